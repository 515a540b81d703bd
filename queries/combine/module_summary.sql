-- combine: module_summary
-- Rows group within a trace; the job's first :limit rows by the query's order are among the
-- partitions' first :limit rows (each partition ran with the same :limit): ordered and cut again.
SELECT * FROM partial ORDER BY gpu_time DESC, cpu_time DESC, trace_id, module, rowid LIMIT coalesce(:limit, 100);
