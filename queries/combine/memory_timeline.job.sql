-- job figures: memory_timeline
-- The partition's devices in scope (memory_devices rows, after :trace_id and :device), summed over
-- the partitions in scope and given to memory_timeline.partial.sql as :job_devices: the job's device
-- count D, from which its default :points budget comes.
SELECT count(*) AS job_devices
FROM memory_devices
WHERE (:trace_id IS NULL OR trace_id = :trace_id)
  AND (:device IS NULL OR device_id = :device);
