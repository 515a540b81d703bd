-- combine: launch_stats
-- Rows group within a trace; the job's first :limit rows by the query's order are among the
-- partitions' first :limit rows (each partition ran with the same :limit): ordered and cut again.
SELECT * FROM partial ORDER BY cpu_total DESC, trace_id, launch_name, gpu_name, rowid LIMIT coalesce(:limit, 50);
