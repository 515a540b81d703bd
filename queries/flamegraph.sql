-- name: flamegraph
-- description: Folded stacks ("frame;frame;frame value") for flamegraph.pl, speedscope or inferno: CPU self time per host call path, or GPU time under the call path of the launch call that issued each GPU op.
-- param :mode cpu — 'cpu': self time (ns) of host slices per call path; 'gpu': GPU op time (ns) under the stack of its launch call, with the GPU op's name as the leaf frame
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :merge_steps 1 — 1: every ProfilerStep#N frame reads 'ProfilerStep#*', so all steps fold into one graph; 0: keep the step numbers
--
-- format: folded
--
-- Output: stack = 'root;child;...;leaf' and value, one row per distinct call path, in path order.
-- `tracesql run` writes it in the format named above when no --format is given: a folded-stacks
-- file, one 'stack value' line per row and no header, which flamegraph.pl, inferno and speedscope
-- read:
--   tracesql run trace.db flamegraph > cpu.folded
--   flamegraph.pl cpu.folded > cpu.svg
-- (any other --format writes the two columns as a table). In frame names ';' becomes ':', '"'
-- becomes "'", and tabs and line breaks become spaces, so every line stays one well-formed record.
-- Call paths come from stacks (events.stack_id): the names from the thread's root slice down. With
-- merge_steps the paths are those of stacks.merged_id (every step's copy of a path shares one), so
-- the paths are built once per merged path, not once per step.
--   cpu: slices (events with a duration) on host threads (threads.kind = 'cpu'): Python frames,
--        CPU ops, annotations, runtime calls. Self time of a call path = the summed duration of
--        its slices minus the summed duration of the slices directly under them (clipped at 0);
--        the values of all paths add up to the time of the root slices.
--   gpu: each GPU op (op_kernels) adds its duration to the path of its launch call
--        (op_kernels.launch_event_id -> events.stack_id) plus a leaf frame with its own name;
--        GPU ops without a launch call sit under a '(no launch)' root. Durations are summed, so
--        ops running concurrently on several streams count fully each.
WITH
-- cpu mode, one trace: summed duration of the trace's host slices per call path (the one pass over
-- events). Over all traces the import has done this (stacks.cpu_self_ns).
tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND :trace_id IS NOT NULL
    AND +e.thread_id IN (SELECT id FROM threads WHERE kind = 'cpu')
    AND e.trace_id = :trace_id
    AND e.dur IS NOT NULL AND e.stack_id IS NOT NULL
  GROUP BY e.stack_id
),
child AS MATERIALIZED (
  SELECT s.parent_id AS id, sum(t.total) AS child_total
  FROM tot AS t JOIN stacks AS s ON s.id = t.id
  WHERE s.parent_id IS NOT NULL
  GROUP BY s.parent_id
),
-- Self time of each call path with host slices (cpu mode): their summed duration minus that of the
-- paths directly under it, clipped at 0.
self AS MATERIALIZED (
  SELECT id, merged_id, cpu_self_ns AS self
  FROM stacks
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND :trace_id IS NULL AND cpu_self_ns IS NOT NULL
  UNION ALL
  SELECT t.id, s.merged_id, max(t.total - coalesce(c.child_total, 0), 0)
  FROM tot AS t
  JOIN stacks AS s ON s.id = t.id
  LEFT JOIN child AS c ON c.id = t.id
),
-- GPU time per (launch call path, GPU op name) (gpu mode only).
gpu AS MATERIALIZED (
  SELECT l.stack_id, k.gpu_name, sum(k.gpu_dur) AS value
  FROM op_kernels AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  WHERE coalesce(:mode, 'cpu') = 'gpu' AND (:trace_id IS NULL OR k.trace_id = :trace_id)
  GROUP BY l.stack_id, k.gpu_name
),
-- With merge_steps: the merged call paths (one per stacks.merged_id), named top-down; each frame
-- reads 'ProfilerStep#*' for any step.
mnodes AS MATERIALIZED (
  SELECT s.id, p.merged_id AS parent_id,
         CASE WHEN s.name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(s.name, '?') END AS name
  FROM stacks AS s
  LEFT JOIN stacks AS p ON p.id = s.parent_id
  WHERE coalesce(:merge_steps, 1) AND s.merged_id = s.id
),
mpaths(id, path) AS (
  SELECT id, replace(name, ';', ':') FROM mnodes WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, p.path || ';' || replace(c.name, ';', ':')
  FROM mpaths AS p JOIN mnodes AS c ON c.parent_id = p.id
),
-- ... and the values summed per merged path (and GPU op name).
mvals AS MATERIALIZED (
  SELECT merged_id AS id, '' AS leaf, sum(self) AS value
  FROM self
  WHERE coalesce(:merge_steps, 1)
  GROUP BY merged_id
  UNION ALL
  SELECT s.merged_id, g.gpu_name, sum(g.value)
  FROM gpu AS g
  LEFT JOIN stacks AS s ON s.id = g.stack_id
  WHERE coalesce(:merge_steps, 1)
  GROUP BY 1, 2
),
-- Without merge_steps every call path is its own line: the nodes are the paths with host slices
-- (cpu) or every path (gpu), named top-down.
nodes AS MATERIALIZED (
  SELECT s.id, s.parent_id, coalesce(s.name, '?') AS name, x.self
  FROM self AS x JOIN stacks AS s ON s.id = x.id
  WHERE NOT coalesce(:merge_steps, 1)
  UNION ALL
  SELECT id, parent_id, coalesce(name, '?'), 0 FROM stacks
  WHERE NOT coalesce(:merge_steps, 1) AND coalesce(:mode, 'cpu') = 'gpu'
),
npaths(id, path, self) AS (
  SELECT id, replace(name, ';', ':'), self FROM nodes WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, p.path || ';' || replace(c.name, ';', ':'), c.self
  FROM npaths AS p JOIN nodes AS c ON c.parent_id = p.id
),
lines(path, leaf, value) AS (
  SELECT coalesce(p.path, ''), v.leaf, v.value
  FROM mvals AS v
  LEFT JOIN mpaths AS p ON p.id = v.id
  WHERE v.value > 0
  UNION ALL
  -- Without merge_steps: one line per node (cpu) or per (launch node, GPU op name) (gpu).
  SELECT path, '', self FROM npaths WHERE coalesce(:mode, 'cpu') = 'cpu' AND self > 0
  UNION ALL
  SELECT coalesce(p.path, ''), g.gpu_name, g.value
  FROM gpu AS g
  LEFT JOIN npaths AS p ON p.id = g.stack_id
  WHERE NOT coalesce(:merge_steps, 1) AND g.value > 0
)
-- The GPU op name as the leaf frame; '"' -> "'" and tab/CR/LF -> ' ' (separators in names were
-- turned into ':' above).
SELECT
  replace(replace(replace(replace(
    CASE WHEN path = '' THEN '(no launch)' ELSE path END
    || CASE WHEN leaf = '' THEN '' ELSE ';' || replace(leaf, ';', ':') END,
    '"', ''''), char(9), ' '), char(10), ' '), char(13), ' ') AS stack,
  value
FROM lines
ORDER BY 1;
