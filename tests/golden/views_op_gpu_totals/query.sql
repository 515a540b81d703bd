-- Case: views_op_gpu_totals
-- op_gpu_totals: one row per CPU op that launched GPU ops itself (the innermost CPU op around the
-- launch call), in op id order. Times in us (ns in the table):
--   aten::mm (inside outer_op) launched k_b (device 1, 135-145, first in the file: the lowest id),
--     k_a (device 0, 130-140), k_c (150-155) and a memset instant (no duration): gpu_ops 4,
--     timed_gpu_ops 3, gpu_time 10 + 10 + 5 = 25; union in start order: k_a 130-140 (10), k_b
--     adds 140-145 (5), k_c 150-155 (5) = 20; device and name of the first timed GPU op by id: k_b.
--   outer_op launched k_d itself (4): one timed GPU op, its union is its duration.
--   aten::add (Input Dims recorded) launched k_e 210-213 and k_f 212-213 inside it: sum 4, union 3.
--   k_g_no_cpu_op (launch outside any CPU op) and k_h_no_launch (no launch) have no row.
SELECT t.op_name, t.input_shape_id IS NOT NULL AS has_shape, t.top_op_name, t.gpu_ops,
       t.timed_gpu_ops, t.gpu_time, t.gpu_union, t.device, n.name AS first_gpu_op,
       t.top_op_event_id = (SELECT e.top_cpu_op_id FROM events AS e WHERE e.id = t.op_event_id) AS top_ok
FROM op_gpu_totals AS t
LEFT JOIN gpu_op_names AS n ON n.id = t.name_id
ORDER BY t.op_event_id;
