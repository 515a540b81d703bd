-- Case: views_recomputed_ops
-- recomputed_ops: the numbered forward ops (Sequence number, Fwd thread id 0) whose outermost CPU op
-- is a backward op (the traces of q_recompute): those run again inside
-- CheckpointFunctionBackward (reentrant checkpointing) and inside MmBackward0 (non-reentrant: the
-- node that unpacked a saved tensor). The forward pass's own numbered ops and the backward ops
-- (Fwd thread id > 0, autograd nodes) are no rows.
SELECT r.trace_id, e.name, e.seq_num, b.name AS backward_op
FROM recomputed_ops AS r
JOIN events AS e ON e.id = r.op_event_id
JOIN events AS b ON b.id = r.backward_event_id
ORDER BY r.rowid;
