-- combine: launch_delays
-- The traces' per-(launch call, GPU op name) launches and delays (launch_delays.partial.sql) summed
-- by names; the average computed from the integer sums as the query computes it.
SELECT
  launch_name,
  gpu_name,
  max(gpu_short_name) AS gpu_short_name,
  sum(launches) AS launches,
  min(min_delay) AS min_delay,
  sum(total_delay) / sum(launches) AS avg_delay,
  max(max_delay) AS max_delay,
  sum(total_delay) AS total_delay
FROM partial
GROUP BY launch_name, gpu_name
ORDER BY total_delay DESC, launch_name, gpu_name
LIMIT coalesce(:limit, 20);
