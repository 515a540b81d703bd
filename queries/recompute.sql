-- name: recompute
-- description: Forward ops run again inside the backward pass (activation checkpointing): per recomputed nn.Module (or top-level forward op where the trace has no module frames), how many calls ran again, in which backward op, and the GPU time they added.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :by module {module|op} — 'module': one row per recomputed module (the outermost nn.Module frame between the backward op and the ops), ops outside any module frame by op name; 'op': one row per top-level recomputed op name
-- param :limit 50 (integer) — number of rows
--
-- A recomputed op (a row of the table recomputed_ops) is a CPU op that
--   * carries a Sequence number with Fwd thread id 0 (or none): the profiler numbers an op only
--     while grad mode is on, and gives backward ops the id of their forward thread (1, 2, ...),
--     so this is a forward op recorded with grad enabled, and
--   * runs inside a backward op: its outermost enclosing CPU op (events.top_cpu_op_id) is an
--     autograd node ('autograd::engine::evaluate_function: X', or in 2020-21 traces the node 'XBackward'
--     itself), which numbered ops otherwise never are: the engine runs backward with grad off.
-- torch.utils.checkpoint does exactly this: the reentrant variant runs the checkpointed function
-- again inside CheckpointFunctionBackward, the non-reentrant one inside whichever backward op first
-- unpacks a tensor it saved. Top-level recomputed ops are those no other recomputed op encloses.
-- Columns:
--   kind         'module' (name is an nn.Module instance, 'Block_3') or 'op' (name is a CPU op)
--   backward_op  the innermost backward op around the recompute (its node name, without the
--                'autograd::engine::evaluate_function: ' wrapper): CheckpointFunctionBackward for
--                reentrant checkpointing, the node that unpacked the tensor otherwise
--   calls        recomputed module frames (kind 'module') or top-level recomputed ops ('op')
--   ops          recomputed CPU ops in them, nested ops included
--   cpu_ns       summed duration of those module frames / top-level ops (host time, inclusive)
--   gpu_ops, gpu_ns  GPU ops whose launch lies inside a top-level recomputed op on its thread, and
--                their summed duration: the GPU time the recompute adds
--   gpu_pct      gpu_ns as a share of all GPU op time of the trace
-- Not seen: compiled graphs that recompute inside their own backward kernels (torch.compile's
-- min-cut partitioner, selective checkpointing inside a CompiledFunctionBackward), traces without
-- Sequence numbers (the 2020 TensorBoard-plugin trace). Also counted: ops that a backward hook or
-- a double-backward pass (create_graph=True) runs with grad enabled.
WITH recomputed AS MATERIALIZED (  -- the recomputed ops: table recomputed_ops, computed at import
  SELECT e.id, e.trace_id, e.thread_id, e.name, e.ts, e.dur, e.parent_id
  FROM recomputed_ops AS r JOIN events AS e ON e.id = r.op_event_id
  WHERE :trace_id IS NULL OR r.trace_id = :trace_id
),
ordered AS (                        -- nested ops follow their parent: ts, longer first
  SELECT r.*,
         max(r.ts + r.dur) OVER (PARTITION BY r.thread_id ORDER BY r.ts, r.dur DESC, r.id
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM recomputed AS r
),
grouped AS (                        -- top-level: not inside an earlier recomputed op; grp numbers
  SELECT o.*,                       -- each top op and the ops nested in it on its thread
         o.ts >= coalesce(o.prev_end, o.ts) AS is_top,
         sum(o.ts >= coalesce(o.prev_end, o.ts)) OVER (PARTITION BY o.thread_id
           ORDER BY o.ts, o.dur DESC, o.id ROWS UNBOUNDED PRECEDING) AS grp
  FROM ordered AS o
),
tops AS MATERIALIZED (
  SELECT id, trace_id, thread_id, name, ts, dur, parent_id, ops
  FROM (SELECT g.*, count(*) OVER (PARTITION BY g.thread_id, g.grp) AS ops FROM grouped AS g)
  WHERE is_top
),
-- Up from each top op to the innermost backward op, keeping the outermost module frame passed (the
-- top op's own columns ride along, so the end rows need no join back).
walk(id, trace_id, thread_id, name, ts, dur, ops, cur, module_id, backward_op, n) AS (
  SELECT id, trace_id, thread_id, name, ts, dur, ops, parent_id, NULL, NULL, 0 FROM tops
  UNION ALL
  SELECT w.id, w.trace_id, w.thread_id, w.name, w.ts, w.dur, w.ops, p.parent_id,
         CASE WHEN p.cat = 'python_function' AND p.name LIKE 'nn.Module: %' THEN p.id ELSE w.module_id END,
         CASE WHEN p.cat IN ('cpu_op', 'Operator')
                   AND (p.name LIKE 'autograd::engine::evaluate_function: %'
                        OR (p.name GLOB '*Backward*' AND p.name NOT GLOB 'aten::*'))
              THEN replace(p.name, 'autograd::engine::evaluate_function: ', '') END,
         w.n + 1
  FROM walk AS w JOIN events AS p ON p.id = w.cur
  WHERE w.backward_op IS NULL AND w.n < 10000
),
per_top AS (
  SELECT w.id, w.trace_id, w.name, w.dur, w.ops, w.module_id, w.backward_op,
         count(k.gpu_event_id) AS gpu_ops, coalesce(sum(k.gpu_dur), 0) AS gpu_ns
  FROM walk AS w
  LEFT JOIN op_kernel_links AS k      -- (launch_thread_id, launch_ts) index
    ON k.launch_thread_id = w.thread_id AND k.launch_ts >= w.ts AND k.launch_ts <= w.ts + w.dur
  WHERE w.backward_op IS NOT NULL
  GROUP BY w.id
),
units AS (                          -- one row per module frame, or per top op outside modules
  SELECT p.trace_id, p.backward_op,
         CASE WHEN coalesce(:by, 'module') = 'module' AND p.module_id IS NOT NULL
              THEN 'module' ELSE 'op' END AS kind,
         CASE WHEN coalesce(:by, 'module') = 'module' AND p.module_id IS NOT NULL
              THEN p.module_id ELSE p.id END AS unit_id,
         sum(p.ops) AS ops, sum(p.gpu_ops) AS gpu_ops, sum(p.gpu_ns) AS gpu_ns
  FROM per_top AS p
  GROUP BY 1, 2, 3, 4
),
named AS (
  SELECT u.*,
         CASE u.kind WHEN 'module' THEN substr(e.name, 12) ELSE e.name END AS name, e.dur AS cpu_ns
  FROM units AS u JOIN events AS e ON e.id = u.unit_id
),
totals AS (
  SELECT trace_id, sum(gpu_dur) AS gpu_total
  FROM op_kernel_links
  WHERE trace_id IN (SELECT trace_id FROM named)
  GROUP BY trace_id
)
SELECT
  n.trace_id,
  n.kind,
  n.name,
  n.backward_op,
  count(*) AS calls,
  sum(n.ops) AS ops,
  sum(n.cpu_ns) AS cpu_ns,
  sum(n.gpu_ops) AS gpu_ops,
  sum(n.gpu_ns) AS gpu_ns,
  round(100.0 * sum(n.gpu_ns) / nullif(t.gpu_total, 0), 2) AS gpu_pct
FROM named AS n
LEFT JOIN totals AS t ON t.trace_id = n.trace_id
GROUP BY n.trace_id, n.kind, n.name, n.backward_op
ORDER BY gpu_ns DESC, cpu_ns DESC, n.trace_id, n.name, n.backward_op
LIMIT coalesce(:limit, 50);
