-- combine: gemm_flops
-- Rows group within a trace; the job's first :limit rows by the query's order are among the
-- partitions' first :limit rows (each partition ran with the same :limit): ordered and cut again.
SELECT * FROM partial ORDER BY gpu_time DESC, total_flops DESC, trace_id, op_name, input_dims, rowid LIMIT coalesce(:limit, 50);
