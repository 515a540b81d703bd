-- recomputed_ops: forward ops run again inside the backward pass (activation checkpointing), one
-- row per CPU op that
--   * carries a Sequence number with Fwd thread id 0 (or none): the profiler numbers an op only
--     while grad mode is on, and gives backward ops the id of their forward thread (1, 2, ...),
--     so this is a forward op recorded with grad enabled, and
--   * runs inside a backward op: its outermost enclosing CPU op (events.top_cpu_op_id) is an
--     autograd node ('autograd::engine::evaluate_function: X', or in 2020-21 traces the node
--     'XBackward' itself), which numbered ops otherwise never are: the engine runs backward with
--     grad off.
-- The bundled query recompute groups them per module and backward op; most traces have none, and
-- this table spares it a scan of every numbered CPU op.
-- @materialize
CREATE VIEW recomputed_ops AS
WITH numbered AS (                    -- every numbered CPU op: one scan of cpu_ops, integers only
  SELECT id, trace_id, top_cpu_op_id AS top,
         (coalesce(fwd_thread_id, 0) > 0
          OR name LIKE 'autograd::engine::evaluate_function: %'
          OR (name GLOB '*Backward*' AND name NOT GLOB 'aten::*')) AS is_backward
  FROM cpu_ops
  WHERE seq_num IS NOT NULL
)
SELECT
  n.id AS op_event_id,                -- the recomputed CPU op (events.id)
  n.trace_id,                         -- trace
  n.top AS backward_event_id          -- the backward op it runs in: its outermost CPU op
                                      -- (events.top_cpu_op_id)
FROM numbered AS n
WHERE NOT n.is_backward
  AND n.top IN (SELECT b.id FROM numbered AS b WHERE b.is_backward AND b.top = b.id);
