-- Case: views_autograd_seq
-- autograd_pairs without fwdbwd flows (DESIGN: "where a trace has no such flows, by Sequence number";
-- view header: TraceLens's rule). Two traces, decided per trace:
--  trace 1 (modern, no flows at all): the backward node is the evaluate_function wrapper on thread 2;
--   its forward op is the cpu_op with the same Sequence number on ANOTHER thread, the latest one when
--   nested ops share it: seq 5 -> aten::addmm (110) rather than aten::linear (100); aten::zeros
--   (seq 5) is on the backward thread and never a candidate; the inner ReluBackward0 /
--   AddmmBackward0 nodes add no rows (the trace has wrappers). gpu time: addmm -> gemm 30 us,
--   evaluate_function AddmmBackward0 -> mm_k1 + mm_k2 = 60 us; relu -> 5 us; ReluBackward0 wrapper
--   -> 10 us.
--  trace 2 (2021 legacy: bare array, Operator/Runtime/Kernel, numeric-string tids, no
--   evaluate_function wrappers): the node AddmmBackward (thread "8") itself carries seq 3 ->
--   aten::addmm on thread "7". fwd gpu 20 us (gemm2), bwd gpu 40 us (mm3).
SELECT p.trace_id, fwd_name, f.tid AS fwd_tid, bwd_name, b.tid AS bwd_tid, p.seq_num,
       f.seq_num AS fwd_seq, b.seq_num AS bwd_seq, fwd_dur, bwd_dur, fwd_gpu_time, bwd_gpu_time, link
FROM autograd_pairs AS p
JOIN events AS f ON f.id = p.fwd_event_id
JOIN events AS b ON b.id = p.bwd_event_id
ORDER BY p.trace_id, p.seq_num;
