-- combine: op_roofline
-- Rows group within a trace; the job's first :limit rows by the query's order are among the
-- partitions' first :limit rows (each partition ran with the same :limit): ordered and cut again.
SELECT * FROM partial ORDER BY gpu_time DESC, trace_id, category, op_name, input_dims, rowid LIMIT coalesce(:limit, 50);
