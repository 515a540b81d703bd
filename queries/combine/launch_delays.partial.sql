-- partial: launch_delays
-- Per (launch call name, GPU op name) of the partition's trace: launches and the least, largest and
-- summed launch delay, as launch_delays groups them (the combining query sums them by names).
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
  max(p.max_delay) AS max_delay,
  sum(p.total_delay) AS total_delay
FROM per_id AS p
JOIN gpu_op_names AS n ON n.id = p.name_id
GROUP BY p.launch_name, n.name;
