-- name: flamegraph
-- description: Folded stacks ("frame;frame;frame value") for flamegraph.pl, speedscope or inferno: CPU self time per host call path, or GPU time under the call path of the launch call that issued each GPU op.
-- param :mode cpu — 'cpu': self time (ns) of host slices per call path; 'gpu': GPU op time (ns) under the stack of its launch call, with the GPU op's name as the leaf frame
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :merge_steps 1 — 1: every ProfilerStep#N frame reads 'ProfilerStep#*', so all steps fold into one graph; 0: keep the step numbers
--
-- Output: one column, folded = 'root;child;...;leaf <value>', one line per distinct call path, in
-- path order. Write a file flamegraph.pl / speedscope read with
--   tracesql run trace.db flamegraph --format tsv --no-header > cpu.folded
--   flamegraph.pl cpu.folded > cpu.svg
-- (csv output would quote lines holding commas). In frame names ';' becomes ':', '"' becomes
-- "'", and tabs and line breaks become spaces, so every line stays one well-formed record.
-- Call paths come from stacks (events.stack_id): the names from the thread's root slice down.
--   cpu: slices (events with a duration) on host threads (threads.kind = 'cpu'): Python frames,
--        CPU ops, annotations, runtime calls. Self time of a call path = the summed duration of
--        its slices minus the summed duration of the slices directly under them (clipped at 0);
--        the values of all paths add up to the time of the root slices.
--   gpu: each GPU op (op_kernels) adds its duration to the path of its launch call
--        (op_kernels.launch_event_id -> events.stack_id) plus a leaf frame with its own name;
--        GPU ops without a launch call sit under a '(no launch)' root. Durations are summed, so
--        ops running concurrently on several streams count fully each.
WITH
-- Summed duration of the host slices on each call path (cpu mode only): the one pass over events.
tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE coalesce(:mode, 'cpu') = 'cpu'
    AND +e.thread_id IN (SELECT id FROM threads WHERE kind = 'cpu')
    AND (:trace_id IS NULL OR e.trace_id = :trace_id)
    AND e.dur IS NOT NULL AND e.stack_id IS NOT NULL
  GROUP BY e.stack_id
),
-- GPU time per (launch call path, GPU op name) (gpu mode only).
gpu AS MATERIALIZED (
  SELECT l.stack_id, k.gpu_name, sum(k.gpu_dur) AS value
  FROM op_kernels AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  WHERE coalesce(:mode, 'cpu') = 'gpu' AND (:trace_id IS NULL OR k.trace_id = :trace_id)
  GROUP BY l.stack_id, k.gpu_name
),
-- The call-path nodes: in cpu mode those with slices (their ancestors have slices too), in gpu
-- mode every stack; with merge_steps, ProfilerStep#N named 'ProfilerStep#*'.
nodes AS MATERIALIZED (
  SELECT
    s.id, s.parent_id, n.total,
    CASE WHEN coalesce(:merge_steps, 1) AND s.name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*'
         ELSE coalesce(s.name, '?') END AS name
  FROM (
    SELECT id, total FROM tot
    UNION ALL
    SELECT id, NULL FROM stacks WHERE coalesce(:mode, 'cpu') = 'gpu'
  ) AS n
  JOIN stacks AS s ON s.id = n.id
),
-- Summed duration of the slices directly under each node (cpu mode).
child AS MATERIALIZED (
  SELECT parent_id AS id, sum(total) AS child_total
  FROM nodes WHERE parent_id IS NOT NULL AND total IS NOT NULL GROUP BY parent_id
),
-- With merge_steps: one number per distinct frame name (a DISTINCT, not a sort of every node).
names AS MATERIALIZED (
  SELECT name, row_number() OVER () AS nid
  FROM (SELECT DISTINCT name FROM nodes WHERE coalesce(:merge_steps, 1))
),
-- Self time (clipped at 0) and name number of each node.
coded AS MATERIALIZED (
  SELECT
    n.id, n.parent_id, n.name,
    m.nid,
    max(coalesce(n.total, 0) - coalesce(c.child_total, 0), 0) AS self
  FROM nodes AS n
  LEFT JOIN names AS m ON m.name = n.name
  LEFT JOIN child AS c ON c.id = n.id
),
-- With merge_steps, paths are built top-down as lists of name numbers ('12,7,301,'), which stay
-- short, are grouped (folding every step's copy of a call path together) and only then turned
-- into names. Without it every node is its own path, built top-down from the names directly.
ipaths(id, ipath, self) AS (
  SELECT id, nid || ',', self FROM coded
  WHERE parent_id IS NULL AND coalesce(:merge_steps, 1)
  UNION ALL
  SELECT c.id, p.ipath || c.nid || ',', c.self
  FROM ipaths AS p JOIN coded AS c ON c.parent_id = p.id
),
npaths(id, path, self) AS (
  SELECT id, replace(name, ';', ':'), self FROM coded
  WHERE parent_id IS NULL AND NOT coalesce(:merge_steps, 1)
  UNION ALL
  SELECT c.id, p.path || ';' || replace(c.name, ';', ':'), c.self
  FROM npaths AS p JOIN coded AS c ON c.parent_id = p.id
),
-- Values per name-number path (merge_steps) ...
iagg AS MATERIALIZED (
  SELECT ipath, '' AS leaf, sum(self) AS value
  FROM ipaths
  WHERE coalesce(:mode, 'cpu') = 'cpu'
  GROUP BY ipath
  UNION ALL
  SELECT coalesce(p.ipath, ''), g.gpu_name, sum(g.value)
  FROM gpu AS g
  LEFT JOIN ipaths AS p ON p.id = g.stack_id
  WHERE coalesce(:merge_steps, 1)
  GROUP BY 1, 2
),
-- ... turned back into names, one frame per step of the recursion.
expand(ipath, leaf, rest, path) AS (
  SELECT ipath, leaf, ipath, '' FROM iagg WHERE value > 0
  UNION ALL
  SELECT
    x.ipath, x.leaf,
    substr(x.rest, instr(x.rest, ',') + 1),
    x.path || CASE WHEN x.path = '' THEN '' ELSE ';' END
      || (SELECT replace(m.name, ';', ':') FROM names AS m
          WHERE m.nid = CAST(substr(x.rest, 1, instr(x.rest, ',') - 1) AS INTEGER))
  FROM expand AS x
  WHERE x.rest <> ''
),
lines(path, leaf, value) AS (
  SELECT e.path, e.leaf, a.value
  FROM expand AS e
  JOIN iagg AS a ON a.ipath = e.ipath AND a.leaf = e.leaf
  WHERE e.rest = ''
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
    '"', ''''), char(9), ' '), char(10), ' '), char(13), ' ')
  || ' ' || value AS folded
FROM lines
ORDER BY 1;
