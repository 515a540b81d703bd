-- Case: views_fwd_bwd_threads
-- Forward on thread (1,1), backward on thread (1,2) (the autograd engine thread), linked by fwdbwd
-- flows: s on the forward op carrying the Sequence number (aten::addmm, seq 10; aten::relu, seq 11),
-- f (bp "e") on the backward node (AddmmBackward0, ReluBackward0) inside its evaluate_function
-- wrapper. fwdbwd ids 1, 2 collide with ac2g ids 1, 2 (flows are keyed by (cat, id)).
-- Rule (DESIGN autograd_pairs): one row per (fwd, bwd) pair linked by the fwdbwd flow, link = 'flow';
-- the seq fallback is NOT used in a trace that has fwdbwd flows, so the evaluate_function wrappers
-- (same Sequence numbers) add no rows. *_gpu_time = summed duration of the GPU ops launched inside
-- the op's subtree: addmm -> gemm 30 us; AddmmBackward0 -> mm_k1 20 + mm_k2 40 = 60 us;
-- relu -> relu_k 5 us; ReluBackward0 -> thr_bwd 10 us.
SELECT fwd_name, f.tid AS fwd_tid, bwd_name, b.tid AS bwd_tid, p.seq_num, f.seq_num AS fwd_seq,
       b.seq_num AS bwd_seq, fwd_dur, bwd_dur, fwd_gpu_time, bwd_gpu_time, link
FROM autograd_pairs AS p
JOIN events AS f ON f.id = p.fwd_event_id
JOIN events AS b ON b.id = p.bwd_event_id
ORDER BY p.seq_num;

SELECT gpu_name, launch_name, op_name, top_op_name, launch_delay
FROM op_kernels
ORDER BY gpu_ts;
