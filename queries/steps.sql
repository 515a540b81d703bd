-- name: steps
-- description: Each ProfilerStep#N: CPU duration, and the GPU ops it launched (count, summed time, first start to last end).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
SELECT
  s.trace_id,
  s.step,
  s.ts,
  s.dur AS cpu_dur,
  coalesce(k.gpu_ops, 0) AS gpu_ops,
  coalesce(k.gpu_time, 0) AS gpu_time,
  k.gpu_end_ts - k.gpu_ts AS gpu_span,
  k.gpu_ts - s.ts AS gpu_start_offset
FROM steps AS s
LEFT JOIN (
  SELECT
    trace_id,
    step,
    count(*) AS gpu_ops,
    sum(gpu_dur) AS gpu_time,
    min(gpu_ts) AS gpu_ts,
    max(gpu_ts + gpu_dur) AS gpu_end_ts
  FROM op_kernel_links
  WHERE step IS NOT NULL
  GROUP BY trace_id, step
) AS k ON k.trace_id = s.trace_id AND k.step = s.step
WHERE :trace_id IS NULL OR s.trace_id = :trace_id
ORDER BY s.trace_id, s.step;
