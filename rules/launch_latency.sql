-- title: GPU idle while launched work waited to start
-- detects: idle gaps (idle_gaps, cause 'device': the next op was already launched when the gap
--   began) closed by an op that found its stream's launch queue empty (op_kernel_links.queue = 1,
--   HTA queue length) and still started more than :min_delay_ns after its launch call returned
--   (op_kernel_links.launch_delay): the GPU waited on something other than the host's launches: a
--   cross-stream dependency, lazy module loading, a slow driver path.
-- evidence: the GPU ops that close the three longest such gaps (events.id) and the time range.
-- advice: Look at what the named ops waited for: cudaStreamWaitEvent / other streams before them,
--   first-call costs (CUDA_MODULE_LOADING=EAGER, warm-up steps, autotuning), cudaGraph instantiation.
-- time lost: per gap, the smaller of the gap and the op's launch delay, summed.
-- anchor: HTA get_cuda_kernel_launch_stats (launch delay outliers, 100 us) and queue length.
-- param :min_delay_ns 100000 — a launch delay longer than this is an outlier (HTA: 100 us)
-- param :min_share 0.01 — report a device when the time lost is at least this share of the trace's GPU span
WITH g AS (
  SELECT i.trace_id, i.device, i.ts, i.dur, i.next_event_id, min(i.dur, k.launch_delay) AS lost_ns,
         k.launch_delay
  FROM idle_gaps AS i
  JOIN op_kernel_links AS k ON k.gpu_event_id = i.next_event_id
  WHERE i.cause = 'device' AND i.dur > 0 AND k.queue = 1 AND k.launch_delay > :min_delay_ns
),
per_device AS (
  SELECT trace_id, device, count(*) AS gaps, sum(lost_ns) AS lost_ns, max(launch_delay) AS max_delay,
         min(ts) AS first_ts, max(ts + dur) AS last_ts
  FROM g GROUP BY trace_id, device
),
longest AS (
  SELECT trace_id, device, next_event_id,
         row_number() OVER (PARTITION BY trace_id, device ORDER BY dur DESC, ts) AS rn
  FROM g
)
SELECT
  p.trace_id,
  'launch_latency' AS rule,
  CASE WHEN p.lost_ns >= a.high_ns THEN 'high' WHEN p.lost_ns >= a.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  p.lost_ns AS time_lost_ns,
  printf('GPU %s idle %.3f ms in %d gap%s while launched ops waited on an empty queue (launch delay up to %.3f ms)',
         coalesce(p.device, '?'), p.lost_ns / 1e6, p.gaps, CASE WHEN p.gaps = 1 THEN '' ELSE 's' END, p.max_delay / 1e6) AS title,
  printf('idle_gaps WHERE trace_id = %d AND cause = ''device'' closed by GPU ops %s (the longest); ts %d..%d',
         p.trace_id,
         (SELECT group_concat(l.next_event_id, ', ')
          FROM (SELECT * FROM longest AS l WHERE l.trace_id = p.trace_id AND l.device IS p.device AND l.rn <= 3
                ORDER BY l.rn) AS l),
         p.first_ts, p.last_ts) AS evidence,
  'The GPU waited for something other than launches: check cross-stream waits before these ops, '
  || 'first-call costs (CUDA_MODULE_LOADING=EAGER, warm-up steps, autotuning) and graph instantiation.'
    AS advice
FROM per_device AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.lost_ns >= :min_share * a.span_ns
