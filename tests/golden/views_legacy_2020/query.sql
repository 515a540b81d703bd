-- Case: views_legacy_2020
-- A 2020-style file (bare array; cats Operator / Runtime / Kernel / Memcpy / Memset; "async" launch
-- flows named "launch"; CPU tid written as the string "4093687616" on slices and as a number on flow
-- points; GPU tid "stream 7"). DESIGN "Legacy names are normalised into views": Operator reads as a
-- CPU op (cpu_ops), Runtime as a runtime call (runtime_calls), Kernel/Memcpy/Memset as GPU ops
-- (gpu_ops kind kernel/memcpy/memset; device/stream from args), async as a launch flow; events.cat
-- keeps the original. The numeric-string tid is the integer 4093687616 (typeof integer); "stream 7"
-- stays text.
-- op_kernels: each GPU op's Runtime call by correlation; op = innermost Operator. ProfilerStep#1 is an
-- Operator in these files, but it is a step, not an op: it is never an op or top op (cpu_op_id skips
-- it), so the top op is the outermost real op (aten::conv2d around aten::cudnn_convolution). k_after
-- is launched outside any step and op. steps: ProfilerStep#1 (cat Operator) with the GPU extent of the 3 ops launched inside it.
SELECT name, cat, tid, typeof(tid) AS tid_type FROM cpu_ops ORDER BY ts;

SELECT name, cat, correlation FROM runtime_calls ORDER BY ts;

SELECT name, cat FROM kernels ORDER BY ts;

SELECT name, cat, kind, device, stream, tid, typeof(tid) AS tid_type, end_ts FROM gpu_ops ORDER BY ts;

SELECT gpu_name, gpu_kind, launch_name, launch_ts, op_name, top_op_name, step, launch_delay
FROM op_kernels ORDER BY gpu_ts;

SELECT step, ts, end_ts, gpu_ts, gpu_end_ts, gpu_ops FROM steps ORDER BY step;

SELECT f.cat, f.name, s.name AS src_name, d.name AS dst_name FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.flow_id;
