-- title: Many tiny kernels: launch overhead larger than the kernels
-- detects: kernels that run for less time than the CPU spends launching them (launch_stats'
--   short_kernels, HTA "short GPU kernels": GPU duration < launch call duration; op_kernels), with
--   the CPU ops that emit the most of them (op_kernel_links, names from events). Kernels of CUDA/HIP
--   graph launches are not counted short (one call runs many kernels there).
-- evidence: the CPU ops emitting the most short kernels and their counts; the time range.
-- advice: Fuse: torch.compile, fused optimizers (foreach/fused=True), CUDA graphs for a static
--   step, larger batches; the ops named are the candidates.
-- time lost: the launch overhead beyond the kernels' own time (sum of launch call duration - kernel
--   duration over the short kernels), capped by the GPU idle the host caused (idle_gaps, cause
--   'host'): fusing can save the GPU no more than the time it waited for launches.
-- anchor: HTA get_cuda_kernel_launch_stats (short kernels); TensorBoard plugin "kernels too small".
-- param :min_kernels 50 — report a trace with at least this many short kernels
-- param :min_fraction 0.3 — ... making up at least this fraction of its kernels with a launch call
WITH launched AS (                    -- kernels with a launch call, per trace (no names read)
  SELECT trace_id, count(*) AS kernels
  FROM op_kernel_links
  WHERE gpu_kind = 'kernel' AND launch_event_id IS NOT NULL AND gpu_dur IS NOT NULL
  GROUP BY trace_id
),
short AS MATERIALIZED (               -- those shorter than their launch call, graph launches left out,
  SELECT k.trace_id, k.gpu_ts, k.gpu_dur, k.launch_dur,  -- with the CPU op (else the call) emitting them
         coalesce(o.name, l.name) AS emitter
  FROM op_kernel_links AS k
  JOIN events AS l ON l.id = k.launch_event_id
  LEFT JOIN events AS o ON o.id = k.op_event_id
  WHERE k.gpu_kind = 'kernel' AND k.launch_event_id IS NOT NULL AND k.gpu_dur < k.launch_dur
    AND l.name NOT LIKE '%GraphLaunch%'
),
per_trace AS (
  SELECT s.trace_id, n.kernels, count(*) AS short, sum(s.launch_dur - s.gpu_dur) AS overhead_ns,
         min(s.gpu_ts) AS first_ts, max(s.gpu_ts + s.gpu_dur) AS last_ts
  FROM short AS s JOIN launched AS n ON n.trace_id = s.trace_id
  GROUP BY s.trace_id
),
host_idle AS (
  SELECT trace_id, sum(dur) AS ns FROM idle_gaps WHERE cause = 'host' GROUP BY trace_id
),
emitters AS (
  SELECT trace_id, emitter, count(*) AS n,
         row_number() OVER (PARTITION BY trace_id ORDER BY count(*) DESC, emitter) AS rn
  FROM short GROUP BY trace_id, emitter
),
found AS (
  SELECT p.*, min(p.overhead_ns, coalesce(h.ns, 0)) AS lost_ns, a.high_ns, a.medium_ns
  FROM per_trace AS p
  JOIN advise_traces AS a ON a.trace_id = p.trace_id
  LEFT JOIN host_idle AS h ON h.trace_id = p.trace_id
  WHERE p.short >= :min_kernels AND p.short >= :min_fraction * p.kernels
)
SELECT
  f.trace_id,
  'tiny_kernels' AS rule,
  CASE WHEN f.lost_ns >= f.high_ns THEN 'high' WHEN f.lost_ns >= f.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  f.lost_ns AS time_lost_ns,
  printf('%d of %d kernels (%.1f %%) run shorter than their launch call, %.3f ms of launch overhead; from %s',
         f.short, f.kernels, 100.0 * f.short / f.kernels, f.overhead_ns / 1e6,
         (SELECT group_concat(printf('%s (%d)', e.emitter, e.n), ', ')
          FROM (SELECT * FROM emitters AS e WHERE e.trace_id = f.trace_id AND e.rn <= 3 ORDER BY e.rn) AS e))
    AS title,
  printf('op_kernels WHERE trace_id = %d AND gpu_kind = ''kernel'' AND gpu_dur < launch_dur; ts %d..%d',
         f.trace_id, f.first_ts, f.last_ts) AS evidence,
  'Launch fewer, larger kernels: torch.compile the model, use fused/foreach optimizers, capture a static '
  || 'step in a CUDA graph, or raise the batch size; the ops named emit the most tiny kernels.' AS advice
FROM found AS f
