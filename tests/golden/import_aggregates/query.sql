-- Case: import_aggregates
-- Checks the aggregates the importer counts while it writes rows (cpu_op_groups, stacks.merged_id,
-- stacks.cpu_self_ns), on two traces. Trace 1, host thread tid 1 (us):
--   ProfilerStep#1 [0,100) > aten::linear [10,40) (dims [[4,8]]) > nn.py(1): forward [12,38)
--     > aten::mm [15,35) (dims [[4,8],[8,16]]) > cudaLaunchKernel [20,25)
--   ProfilerStep#2 [100,200) > aten::linear [110,140) (same dims) > aten::mm [115,135) (same dims)
--                            > aten::mm [150,160) (dims [[2,2],[2,2]])
--   Operator profilerstep#9 [300,310): not in cpu_ops (NOT LIKE 'ProfilerStep#%' is case-blind)
--   Operator aten::add [400,410) (a legacy op); B aten::zero_ at 500 without an E (no duration)
-- Trace 2: Operator aten::add [0,5) on another thread: the same call path as trace 1's aten::add.
--
-- cpu_op_groups (ops with a duration, by name, parent op name, shape, parent op's shape; the parent
-- op is the nearest enclosing CPU op, so the Python frame under the first aten::linear is skipped):
--   trace 1: aten::linear, no parent op (ProfilerStep is an annotation): 2 calls, 30+30 = 60 us
--            aten::mm under aten::linear, [[4,8],[8,16]] / parent [[4,8]]: 2 calls, 20+20 = 40 us
--            aten::mm, no parent op, [[2,2],[2,2]]: 1 call, 10 us
--            aten::add (Operator): 1 call, 10 us; profilerstep#9 and aten::zero_ are left out
--   trace 2: aten::add: 1 call, 5 us
-- stacks.cpu_self_ns (host slices on the path minus the paths directly under it, all traces, ns):
--   ProfilerStep#1 100-30 = 70000; > aten::linear 30-26 = 4000; > nn.py 26-20 = 6000; > aten::mm
--   20-5 = 15000; > cudaLaunchKernel 5000; ProfilerStep#2 100-(30+10) = 60000; > aten::linear 30-20 =
--   10000; > aten::linear > aten::mm 20000; > aten::mm 10000; profilerstep#9 10000; aten::add
--   10+5 = 15000 (both traces); aten::zero_ NULL (no duration).
-- stacks.merged_id: ProfilerStep#2 folds into ProfilerStep#1 and its aten::linear into the first
--   aten::linear; ProfilerStep#2 > aten::linear > aten::mm has no twin (the first one sits under
--   nn.py), nor has > aten::mm; profilerstep#9 is not 'ProfilerStep#' (GLOB is case-sensitive).
SELECT g.trace_id, g.name, g.parent_name, s.input_dims, ps.input_dims AS parent_dims, g.calls, g.total_ns,
       e.ts AS first_ts
FROM cpu_op_groups AS g
LEFT JOIN input_shapes AS s ON s.id = g.input_shape_id
LEFT JOIN input_shapes AS ps ON ps.id = g.parent_shape_id
JOIN events AS e ON e.id = g.first_event_id
ORDER BY g.trace_id, g.name, g.parent_name, s.input_dims;

WITH RECURSIVE path(id, p) AS (
  SELECT id, name FROM stacks WHERE parent_id IS NULL
  UNION ALL
  SELECT s.id, path.p || ' > ' || s.name FROM stacks AS s JOIN path ON s.parent_id = path.id
)
SELECT a.p AS path, s.cpu_self_ns, m.p AS merged_path
FROM stacks AS s
JOIN path AS a ON a.id = s.id
JOIN path AS m ON m.id = s.merged_id
ORDER BY a.p;
