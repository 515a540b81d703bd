-- Case: views_graph_launch
-- A CUDA graph launch that runs three GPU ops (two kernels and a memset, all with correlation 40),
-- then an ordinary cudaLaunchKernel (correlation 41).
-- Rule (DESIGN op_kernels): exactly one row per GPU op; the launch is the runtime call with the same
-- correlation id, so the one cudaGraphLaunch maps to all three ops (1:N). op/top op = innermost /
-- outermost cpu_op enclosing the launch on its thread (here CUDAGraph::replay for both);
-- launch_delay = gpu_ts - (launch_ts + launch_dur), e.g. graph_k_a: 200000 - (110000 + 20000) = 70000.
-- No ProfilerStep in the trace: step NULL.
SELECT gpu_name, gpu_kind, gpu_ts, gpu_dur, device, stream, correlation, launch_name, launch_ts,
       launch_dur, op_name, top_op_name, step, launch_delay
FROM op_kernels
ORDER BY gpu_ts;

-- One launch, three GPU ops; every GPU op exactly once.
SELECT l.name AS launch_name, count(*) AS gpu_ops, count(DISTINCT ok.gpu_event_id) AS distinct_ops
FROM op_kernels AS ok JOIN events AS l ON l.id = ok.launch_event_id
GROUP BY ok.launch_event_id
ORDER BY l.ts;
