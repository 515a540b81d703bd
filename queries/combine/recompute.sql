-- combine: recompute
-- Rows group within a trace; the job's first :limit rows by the query's order are among the
-- partitions' first :limit rows (each partition ran with the same :limit): ordered and cut again.
SELECT * FROM partial ORDER BY gpu_ns DESC, cpu_ns DESC, trace_id, name, backward_op, rowid LIMIT coalesce(:limit, 50);
