-- title: Device memory allocated and freed inside steps
-- detects: cudaMalloc / cudaFree (hipMalloc / hipFree, cuMemAlloc / cuMemFree) calls (view
--   runtime_calls) inside ProfilerSteps after the trace's first step: the caching allocator ran out
--   of cached blocks and went to the driver; cudaFree also synchronises the device.
-- evidence: the number of calls, the steps they are in, the three longest (events.id).
-- advice: Keep the cache warm: avoid torch.cuda.empty_cache() in the loop, keep shapes stable
--   (pad variable lengths to buckets), set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, or
--   lower peak memory so the cache does not have to be released.
-- time lost: the calls' duration on the host, summed (the device synchronisation of cudaFree is
--   not counted apart).
-- anchor: nsys cuda_api_sum (cudaMalloc/cudaFree in the loop); PyTorch CUDA caching allocator notes.
-- param :min_calls 2 — report a trace with at least this many calls in steps after the first
WITH first_step AS (
  SELECT trace_id, min(step) AS step FROM steps GROUP BY trace_id
),
c AS (
  SELECT r.id, r.trace_id, r.name, r.ts, r.dur, r.step
  FROM runtime_calls AS r
  JOIN first_step AS f ON f.trace_id = r.trace_id
  WHERE r.name IN ('cudaMalloc', 'cudaFree', 'hipMalloc', 'hipFree', 'cuMemAlloc', 'cuMemAlloc_v2', 'cuMemFree',
                   'cuMemFree_v2', 'cudaMallocManaged', 'hipMallocManaged')
    AND r.step > f.step AND r.dur IS NOT NULL
),
per_trace AS (
  SELECT trace_id, count(*) AS calls, sum(dur) AS ns, sum(name LIKE '%Free%') AS frees,
         count(DISTINCT step) AS steps, min(ts) AS first_ts, max(ts + dur) AS last_ts
  FROM c GROUP BY trace_id
),
longest AS (
  SELECT trace_id, id, row_number() OVER (PARTITION BY trace_id ORDER BY dur DESC, ts) AS rn FROM c
)
SELECT
  p.trace_id,
  'allocator_churn' AS rule,
  CASE WHEN p.ns >= a.high_ns THEN 'high' WHEN p.ns >= a.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  p.ns AS time_lost_ns,
  printf('%d cudaMalloc/cudaFree call%s (%d free%s) in %d step%s after the first take%s %.3f ms on the host',
         p.calls, CASE WHEN p.calls = 1 THEN '' ELSE 's' END, p.frees, CASE WHEN p.frees = 1 THEN '' ELSE 's' END,
         p.steps, CASE WHEN p.steps = 1 THEN '' ELSE 's' END, CASE WHEN p.calls = 1 THEN 's' ELSE '' END, p.ns / 1e6) AS title,
  printf('runtime_calls: events %s (the longest); ts %d..%d',
         (SELECT group_concat(l.id, ', ')
          FROM (SELECT * FROM longest AS l WHERE l.trace_id = p.trace_id AND l.rn <= 3 ORDER BY l.rn) AS l),
         p.first_ts, p.last_ts) AS evidence,
  'The caching allocator goes back to the driver in steady state: drop torch.cuda.empty_cache() from the loop, '
  || 'keep shapes stable (bucket variable lengths), try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, '
  || 'or lower peak memory.' AS advice
FROM per_trace AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.calls >= :min_calls
