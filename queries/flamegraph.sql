-- name: flamegraph
-- description: Folded stacks ("frame;frame;frame value") for flamegraph.pl, speedscope or inferno: CPU self time per host call path, or GPU time under the call path of the launch call that issued each GPU op.
-- param :mode cpu {cpu|gpu} — 'cpu': self time (ns) of host slices per call path; 'gpu': GPU op time (ns) under the stack of its launch call, with the GPU op's name as the leaf frame
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :merge_steps 1 {0|1} — 1: every ProfilerStep#N frame reads 'ProfilerStep#*', so all steps fold into one graph; 0: keep the step numbers
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
-- the paths are built once per merged path, not once per step. Only the paths with a value and
-- their ancestors are named (stacks is shared by every trace of the database).
--   cpu: slices (events with a duration) on host threads (threads.kind = 'cpu'): Python frames,
--        CPU ops, annotations, runtime calls. Self time of a call path = the summed duration of
--        its slices minus the summed duration of the slices directly under them (clipped at 0);
--        the values of all paths add up to the time of the root slices.
--   gpu: each GPU op (op_kernels) adds its duration to the path of its launch call
--        (op_kernels.launch_event_id -> events.stack_id) plus a leaf frame with its own name;
--        GPU ops without a launch call sit under a '(no launch)' root. Durations are summed, so
--        ops running concurrently on several streams count fully each.
WITH
-- cpu mode, one trace: summed duration of the trace's host slices per call path (read through
-- events_thread_ts, the trace's host threads only). Over all traces the import has done this
-- (stacks.cpu_self_ns, and folded by step stacks.merged_cpu_self_ns).
tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND :trace_id IS NOT NULL
    AND e.thread_id IN (SELECT id FROM threads WHERE kind = 'cpu' AND trace_id = :trace_id)
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
self AS (                             -- (over all traces, folded by step: stacks.merged_cpu_self_ns)
  SELECT id, merged_id, cpu_self_ns AS self
  FROM stacks
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND :trace_id IS NULL AND NOT coalesce(:merge_steps, 1)
    AND cpu_self_ns IS NOT NULL
  UNION ALL
  SELECT t.id, s.merged_id, max(t.total - coalesce(c.child_total, 0), 0)
  FROM tot AS t
  JOIN stacks AS s ON s.id = t.id
  LEFT JOIN child AS c ON c.id = t.id
),
-- GPU time per (launch call path, GPU op name id) (gpu mode only); no names read per op.
gpu AS (
  SELECT l.stack_id, k.name_id, sum(k.gpu_dur) AS value
  FROM op_kernel_links AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  WHERE coalesce(:mode, 'cpu') = 'gpu' AND (:trace_id IS NULL OR k.trace_id = :trace_id)
  GROUP BY l.stack_id, k.name_id
),
-- The values per node of the graph: per merged path (stacks.merged_id) with merge_steps, per path
-- without; in gpu mode per (node, GPU op name), the name becoming the leaf frame.
vals AS MATERIALIZED (
  SELECT id, '' AS leaf, merged_cpu_self_ns AS value
  FROM stacks
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND :trace_id IS NULL AND coalesce(:merge_steps, 1)
    AND merged_cpu_self_ns IS NOT NULL
  UNION ALL
  SELECT merged_id, '', sum(self)
  FROM self WHERE coalesce(:merge_steps, 1)
  GROUP BY merged_id
  UNION ALL
  SELECT id, '', self FROM self WHERE NOT coalesce(:merge_steps, 1)
  UNION ALL
  SELECT s.merged_id, n.name, sum(g.value)
  FROM gpu AS g
  LEFT JOIN stacks AS s ON s.id = g.stack_id
  LEFT JOIN gpu_op_names AS n ON n.id = g.name_id
  WHERE coalesce(:merge_steps, 1)
  GROUP BY 1, 2
  UNION ALL
  SELECT g.stack_id, n.name, sum(g.value)
  FROM gpu AS g
  LEFT JOIN gpu_op_names AS n ON n.id = g.name_id
  WHERE NOT coalesce(:merge_steps, 1)
  GROUP BY 1, 2
),
-- The nodes named: those with a value and their ancestors (the parent of a merged path: its
-- parent path's merged_id).
anc(id) AS (
  SELECT id FROM vals WHERE value > 0 AND id IS NOT NULL
  UNION
  SELECT CASE WHEN coalesce(:merge_steps, 1) THEN p.merged_id ELSE p.id END
  FROM anc AS a
  JOIN stacks AS s ON s.id = a.id
  JOIN stacks AS p ON p.id = s.parent_id
),
-- ... with their parent and name; each frame reads 'ProfilerStep#*' for any step with merge_steps.
nodes AS MATERIALIZED (
  SELECT s.id, p.merged_id AS parent_id,
         CASE WHEN s.name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(s.name, '?') END AS name
  FROM stacks AS s
  LEFT JOIN stacks AS p ON p.id = s.parent_id
  WHERE coalesce(:merge_steps, 1) AND s.id IN (SELECT id FROM anc)
  UNION ALL
  SELECT id, parent_id, coalesce(name, '?')
  FROM stacks
  WHERE NOT coalesce(:merge_steps, 1) AND id IN (SELECT id FROM anc)
),
-- The paths, named top-down.
paths(id, path) AS (
  SELECT id, replace(name, ';', ':') FROM nodes WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, p.path || ';' || replace(c.name, ';', ':')
  FROM paths AS p JOIN nodes AS c ON c.parent_id = p.id
)
-- The GPU op name as the leaf frame; '"' -> "'" and tab/CR/LF -> ' ' (separators in names were
-- turned into ':' above). (paths drives the join: an index on vals, not a copy of every path.)
SELECT
  replace(replace(replace(replace(
    CASE WHEN coalesce(l.path, '') = '' THEN '(no launch)' ELSE l.path END
    || CASE WHEN l.leaf = '' THEN '' ELSE ';' || replace(coalesce(l.leaf, '?'), ';', ':') END,
    '"', ''''), char(9), ' '), char(10), ' '), char(13), ' ') AS stack,
  l.value
FROM (SELECT p.path, v.leaf, v.value
      FROM paths AS p CROSS JOIN vals AS v ON v.id = p.id
      WHERE v.value > 0
      UNION ALL
      SELECT NULL, leaf, value FROM vals WHERE id IS NULL AND value > 0) AS l
ORDER BY 1;
