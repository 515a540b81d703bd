-- Case: views_kernel_no_launch
-- GPU ops whose launch cannot be found keep their op_kernels row with every launch column NULL
-- (DESIGN op_kernels: exactly one row per GPU op; "No launch found: the launch columns are NULL"):
--   trace 1 orphan_corr    correlation 5, but the only runtime call with correlation 5 is in trace 2
--                          (the launch must be in the SAME trace);
--   trace 1 no_corr_arg    no correlation arg at all, no flow;
--   trace 1 Memcpy         correlation 0 (0 means "none": the view links ids > 0 only), although a runtime call in
--                          the trace also says correlation 0;
--   trace 1 flow_end_only  an ac2g end point (bp "e") with no start: the flow has src NULL.
--   trace 1 cudaLaunchKernel corr 7 launched nothing that was recorded: it adds no row.
--   trace 2 mul_kernel     linked normally (correlation 5 in its own trace): launch_delay 150000-110000.
-- Event ids run 1.. in file order across traces: trace 2's aten::mul is 7, its cudaLaunchKernel 8.
SELECT trace_id, gpu_name, gpu_kind, correlation, launch_event_id, launch_name, launch_ts, launch_dur,
       launch_thread_id IS NULL AS no_thread, op_event_id, op_name, top_op_event_id, top_op_name, step,
       launch_delay
FROM op_kernels
ORDER BY trace_id, gpu_ts;

-- Exactly one row per GPU op, per trace.
SELECT g.trace_id, count(*) AS gpu_ops,
       (SELECT count(*) FROM op_kernels AS ok WHERE ok.trace_id = g.trace_id) AS op_kernels_rows
FROM gpu_ops AS g
GROUP BY g.trace_id
ORDER BY g.trace_id;
