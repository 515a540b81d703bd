-- Case: views_nested_ops
-- op_kernels.op_* / top_op_* (DESIGN: op_event_id = innermost CPU op (cpu_op) enclosing the launch on
-- its thread, top_op_event_id the outermost). Thread (1,1) nests
--   python_function forward > aten::linear > python_function helper > aten::matmul > aten::mm > launch
-- so python frames and user annotations in between are skipped, never chosen:
--   k_mm      launch inside aten::mm                       -> op aten::mm, top aten::linear
--   k_region  launch inside user_annotation my_region (inside aten::matmul)
--                                                          -> op aten::matmul, top aten::linear
--   k_triton  cuLaunchKernel under python frames only      -> op NULL, top NULL
--   k_foo     thread (1,2)'s aten::foo [140,500) spans all the launch times above but is on another
--             thread; it is the op (and top op) only of its own launch.
-- Second query: the events columns behind it (cpu_op_id / top_cpu_op_id) for the frames and calls.
SELECT gpu_name, launch_name, op_name, top_op_name, o.tid AS op_tid
FROM op_kernels AS ok
LEFT JOIN events AS o ON o.id = ok.op_event_id
ORDER BY gpu_ts;

SELECT e.name, e.tid, e.depth, o.name AS cpu_op, t.name AS top_cpu_op
FROM events AS e
LEFT JOIN events AS o ON o.id = e.cpu_op_id
LEFT JOIN events AS t ON t.id = e.top_cpu_op_id
WHERE e.pid = 1
ORDER BY e.tid, e.ts;
