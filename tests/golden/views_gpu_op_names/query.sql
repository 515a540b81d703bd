-- Case: views_gpu_op_names
-- gpu_op_names: each distinct (name, kind) of the GPU ops, numbered in order of first appearance by
-- event id. Within a trace events are grouped by kind (kernels, then memcpys, then memsets), so in
-- trace 1 the kernels come first even though the memcpy is earlier in the file:
--   1 gemm_bf16 (kernel)   2 ncclDevKernel_AllReduce (kernel)
--   3 '' (the kernel at ts 30 has no name key: stored as '', a name like any other)
--   4 Memcpy HtoD (memcpy)   5 Memset (Device) (memset; trace 1's has no dur)
-- trace 2 adds 6 softmax_fwd (kernel) and, after its memset, 7 Memcpy DtoH (memcpy, no dur);
-- gemm_bf16 again: 3 ops in all. timed: 'Memset (Device)' has a dur in trace 2, so 1 (2 ops);
-- 'Memcpy DtoH' never has one: 0.
-- op_kernel_links.name_id: each GPU op's row, by event.
-- gpu_op_classes: the timed names only (not 7), with their id: gemm/softmax 'compute' and the ''
-- kernel too (rule 'kernel' GLOB '*' matches ''), nccl 'communication', memcpy/memset 'memory'.
SELECT id, name, kind, timed, ops FROM gpu_op_names ORDER BY id;

SELECT k.trace_id, e.name, k.gpu_kind, k.gpu_ts, k.name_id
FROM op_kernel_links AS k JOIN events AS e ON e.id = k.gpu_event_id
ORDER BY k.trace_id, k.gpu_ts, k.gpu_event_id;

SELECT name_id, name, kind, class FROM gpu_op_classes ORDER BY name_id;
