-- name: launch_delays
-- description: Launch delay (GPU start minus the end of the launching runtime call, ns) by launch call and GPU op (with its short name, short_names), largest total first.
-- param :limit 20 — number of rows
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
SELECT
  launch_name,
  gpu_name,
  (SELECT s.short_name FROM short_names AS s WHERE s.name = op_kernels.gpu_name) AS gpu_short_name,
  count(*) AS launches,
  min(launch_delay) AS min_delay,
  sum(launch_delay) / count(*) AS avg_delay,
  max(launch_delay) AS max_delay,
  sum(launch_delay) AS total_delay
FROM op_kernels
WHERE launch_event_id IS NOT NULL
  AND (:trace_id IS NULL OR trace_id = :trace_id)
GROUP BY launch_name, gpu_name
ORDER BY total_delay DESC, launch_name, gpu_name
LIMIT coalesce(:limit, 20);
