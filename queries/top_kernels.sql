-- name: top_kernels
-- description: GPU kernels with the largest total time: calls, total / average / longest (ns), share of all kernel time.
-- param :limit 20 — number of rows
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- Reads op_kernels (one row per GPU op; gpu_kind 'kernel' = the kernels view) rather than the kernels
-- view: the same rows, but a small table instead of a scan of every event.
SELECT
  gpu_name AS name,
  count(*) AS calls,
  sum(gpu_dur) AS total_dur,
  sum(gpu_dur) / count(*) AS avg_dur,
  max(gpu_dur) AS max_dur,
  round(100.0 * sum(gpu_dur) / (
    SELECT sum(gpu_dur) FROM op_kernels
    WHERE gpu_kind = 'kernel'
      AND (:trace_id IS NULL OR trace_id = :trace_id)
  ), 2) AS pct
FROM op_kernels
WHERE gpu_kind = 'kernel'
  AND (:trace_id IS NULL OR trace_id = :trace_id)
GROUP BY gpu_name
ORDER BY total_dur DESC, name
LIMIT coalesce(:limit, 20);
