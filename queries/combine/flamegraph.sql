-- combine: flamegraph
-- The call paths of every partition's trace (flamegraph.partial.sql) matched across partitions by
-- their frames from the root, (name, cat) each, and summed per path over the job; then the query's
-- own steps: self time clipped at 0 per path, folded per merged path with :merge_steps (frames
-- ProfilerStep#N read ProfilerStep#* and NULL '?'), the GPU op name as the leaf frame, separators
-- and quotes in names replaced. Rows of the same text are in the order of their paths' ids in the
-- job's database (stacks: the trace that met a path first, then its order there).
WITH RECURSIVE
tree AS MATERIALIZED (
  SELECT trace_id, id, parent_id, name, cat, total, child_total,
         quote(name) || quote(cat) AS frame,
         CASE WHEN name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(name, '?') END AS folded
  FROM partial
  WHERE NOT gpu
),
numbered AS MATERIALIZED (            -- each frame a number, and each folded name
  SELECT trace_id, id, parent_id, total, child_total,
         dense_rank() OVER (ORDER BY frame) AS fk, dense_rank() OVER (ORDER BY folded) AS gk
  FROM tree
),
-- Each path's identity: its frames' numbers from the root (node), or its folded names' (merged).
keys(trace_id, id, node, merged, total, child_total) AS (
  SELECT trace_id, id, fk, gk, total, child_total FROM numbered WHERE parent_id IS NULL
  UNION ALL
  SELECT c.trace_id, c.id, p.node || ',' || c.fk, p.merged || ',' || c.gk, c.total, c.child_total
  FROM keys AS p JOIN numbered AS c ON c.trace_id = p.trace_id AND c.parent_id = p.id
),
keyed AS MATERIALIZED (
  SELECT trace_id, id, node, total, child_total,
         CASE WHEN coalesce(:merge_steps, 1) THEN merged ELSE node END AS shown,
         trace_id * 1099511627776 + id AS ord
  FROM keys
),
self AS (                             -- cpu mode: self time per call path
  SELECT shown, max(sum(total) - coalesce(sum(child_total), 0), 0) AS self, min(ord) AS ord
  FROM keyed
  GROUP BY node
  HAVING count(total) > 0
),
vals AS MATERIALIZED (                -- per node shown: the value and its first path (ord)
  SELECT shown, '' AS leaf, sum(self) AS value, min(ord) AS ord
  FROM self
  GROUP BY shown
  UNION ALL
  SELECT k.shown, g.leaf, sum(g.value), min(k.ord)
  FROM partial AS g
  LEFT JOIN keyed AS k ON k.trace_id = g.trace_id AND k.id = g.id
  WHERE g.gpu
  GROUP BY k.shown, g.leaf
),
-- The names of the paths shown, from the first path of each up to its root.
up(ord, trace_id, parent_id, path) AS (
  SELECT v.ord, t.trace_id, t.parent_id,
         replace(CASE WHEN coalesce(:merge_steps, 1) THEN t.folded ELSE coalesce(t.name, '?') END, ';', ':')
  FROM (SELECT DISTINCT ord FROM vals WHERE value > 0 AND shown IS NOT NULL) AS v
  JOIN tree AS t ON t.trace_id = v.ord / 1099511627776 AND t.id = v.ord % 1099511627776
  UNION ALL
  SELECT u.ord, u.trace_id, t.parent_id,
         replace(CASE WHEN coalesce(:merge_steps, 1) THEN t.folded ELSE coalesce(t.name, '?') END, ';', ':')
         || ';' || u.path
  FROM up AS u JOIN tree AS t ON t.trace_id = u.trace_id AND t.id = u.parent_id
),
paths AS MATERIALIZED (SELECT ord, path FROM up WHERE parent_id IS NULL)
SELECT
  replace(replace(replace(replace(
    CASE WHEN coalesce(p.path, '') = '' THEN '(no launch)' ELSE p.path END
    || CASE WHEN v.leaf = '' THEN '' ELSE ';' || replace(coalesce(v.leaf, '?'), ';', ':') END,
    '"', ''''), char(9), ' '), char(10), ' '), char(13), ' ') AS stack,
  v.value
FROM vals AS v
LEFT JOIN paths AS p ON p.ord = v.ord AND v.shown IS NOT NULL
WHERE v.value > 0
ORDER BY 1, v.ord;
