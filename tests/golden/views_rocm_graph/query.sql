-- Case: views_rocm_graph
-- ROCm (Kineto over roctracer): HIP calls are written as cuda_runtime; the GPU track is pid 2 (HSA
-- agent), args device 2, stream 0; the runtime calls' "stream" arg is the text "0x0" (not promoted:
-- stream NULL). hipGraphLaunch (correlation 200) has NO ac2g start point; its three kernels each carry
-- an ac2g end point (bp "e") with id 200 (flows with src NULL).
-- Rule (DESIGN op_kernels): the launch is the runtime call with the same correlation id; a graph launch
-- maps to all its kernels -- so all three link to hipGraphLaunch although no flow says so.
-- launch_delay is signed: the memcpy starts at 320 while hipMemcpyWithStream [310,370) has not returned
-- (a synchronous copy): 320000 - 370000 = -50000.
-- idle_gaps on device 2: [215,220) next reduce_kernel launched at 110 -> device; [230,320) next memcpy
-- launched at 310 > 230 -> host; no cpu_op runs on the launching thread at 215 or 230 -> NULL.
SELECT gpu_name, gpu_kind, device, stream, correlation, launch_name, launch_ts, op_name, top_op_name,
       launch_delay
FROM op_kernels ORDER BY gpu_ts;

SELECT name, stream, correlation FROM runtime_calls ORDER BY ts;

SELECT f.flow_id, f.src_event_id IS NULL AS no_src, d.name AS dst_name
FROM flows AS f LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.flow_id, f.dst_ts;

SELECT device, ts, dur, next_launch_ts, cause, host_event_id FROM idle_gaps ORDER BY device, ts;
