-- name: launch_delays
-- description: Launch delay (GPU start minus the end of the launching runtime call, ns) by launch call and GPU op (with its short name, short_names), largest total first.
-- param :limit 20 (integer) — number of rows
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- Grouped first by trace, launch call name and GPU op name id (op_kernel_links.launch_name_id and
-- name_id, in the order of the index op_kernel_links_launch_name: no sort, and no kernel or launch
-- call name read per op), then by launch call and GPU op name (a name shared by two kinds of op is
-- one row, as in op_kernels).
WITH per_id AS (                      -- per (trace, launch call name, GPU op name id)
  SELECT (SELECT name FROM events WHERE id = g.launch_name_id) AS launch_name,
         g.name_id, g.launches, g.min_delay, g.max_delay, g.total_delay
  FROM (SELECT o.launch_name_id, o.name_id, count(*) AS launches,
               min(o.launch_delay) AS min_delay, max(o.launch_delay) AS max_delay,
               sum(o.launch_delay) AS total_delay
          FROM op_kernel_links AS o
         WHERE o.launch_name_id IS NOT NULL
           AND (:trace_id IS NULL OR o.trace_id = :trace_id)
         GROUP BY o.trace_id, o.launch_name_id, o.name_id) AS g
)
SELECT
  p.launch_name,
  n.name AS gpu_name,
  (SELECT s.short_name FROM short_names AS s WHERE s.name = n.name) AS gpu_short_name,
  sum(p.launches) AS launches,
  min(p.min_delay) AS min_delay,
  sum(p.total_delay) / sum(p.launches) AS avg_delay,
  max(p.max_delay) AS max_delay,
  sum(p.total_delay) AS total_delay
FROM per_id AS p
JOIN gpu_op_names AS n ON n.id = p.name_id
GROUP BY p.launch_name, n.name
ORDER BY total_delay DESC, p.launch_name, n.name
LIMIT coalesce(:limit, 20);
