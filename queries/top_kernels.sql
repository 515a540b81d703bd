-- name: top_kernels
-- description: GPU kernels with the largest total time: short name, calls, total / average / longest (ns), share of all kernel time.
-- param :limit 20 (integer) — number of rows
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- Reads op_kernel_links (GPU ops, names as gpu_op_names ids) once; the share's denominator is the
-- sum over all names of the grouped totals. short_name: the readable name (short_names table).
WITH k AS (
  SELECT name_id, count(*) AS calls, sum(gpu_dur) AS total_dur, max(gpu_dur) AS max_dur
  FROM op_kernel_links
  WHERE gpu_kind = 'kernel' AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY name_id
)
SELECT
  n.name,
  (SELECT s.short_name FROM short_names AS s WHERE s.name = n.name) AS short_name,
  k.calls,
  k.total_dur,
  k.total_dur / k.calls AS avg_dur,
  k.max_dur,
  round(100.0 * k.total_dur / sum(k.total_dur) OVER (), 2) AS pct
FROM k
JOIN gpu_op_names AS n ON n.id = k.name_id
ORDER BY k.total_dur DESC, n.name
LIMIT coalesce(:limit, 20);
