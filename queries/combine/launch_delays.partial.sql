-- partial: launch_delays
-- Per (launch call name, GPU op name) of the partition's trace: launches and the least, largest and
-- summed launch delay, as launch_delays groups them (the combining query sums them by names).
WITH by_nid AS MATERIALIZED (
  SELECT o.name_id, min(l.name) AS lo, max(l.name) AS hi, count(l.name) AS named, count(*) AS launches,
         min(o.launch_delay) AS min_delay, max(o.launch_delay) AS max_delay, sum(o.launch_delay) AS total_delay
  FROM op_kernel_links AS o
  JOIN events AS l ON l.id = o.launch_event_id
  WHERE o.launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  GROUP BY o.name_id
),
mixed AS MATERIALIZED (               -- the name ids launched under several names (or NULL and one)
  SELECT name_id FROM by_nid WHERE NOT (named = launches AND lo = hi)
),
per_id AS (
  SELECT lo AS launch_name, name_id, launches, min_delay, max_delay, total_delay
  FROM by_nid
  WHERE named = launches AND lo = hi
  UNION ALL
  SELECT l.name, o.name_id, count(*), min(o.launch_delay), max(o.launch_delay), sum(o.launch_delay)
  FROM op_kernel_links AS o
  JOIN events AS l ON l.id = o.launch_event_id
  WHERE EXISTS (SELECT 1 FROM mixed)  -- (checked once: no op read when there are none)
    AND o.name_id IN (SELECT name_id FROM mixed)
    AND o.launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  GROUP BY l.name, o.name_id
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
