-- combine: flamegraph
-- The call paths of every partition's trace (flamegraph.partial.sql) matched across partitions by
-- their frames from the root, (name, cat) each, and summed per path over the job; then the query's
-- own steps: self time clipped at 0 per path, folded per merged path with :merge_steps (frames
-- ProfilerStep#N read ProfilerStep#* and NULL '?'), the GPU op name as the leaf frame, separators
-- and quotes in names replaced. Rows of the same text are in the order of their paths' ids in the
-- job's database (stacks: the trace that met a path first, then its order there).
-- Ranks of one job mostly share their call paths under the same ids: a path whose id, parent id,
-- name and cat are those of the first trace's path of that id, and whose ancestors' are too, is that
-- path, matched by its id alone; only the other paths (and the first trace's) are matched by their
-- frames.
WITH RECURSIVE
first AS MATERIALIZED (SELECT min(trace_id) AS t FROM partial),
ref AS MATERIALIZED (                 -- the first trace's paths
  SELECT id, parent_id, name, cat FROM partial WHERE NOT gpu AND trace_id = (SELECT t FROM first)
),
-- The other traces' paths that differ from the first trace's path of their id, and those under them.
differ(trace_id, id, parent_id, name, cat, self, timed) AS (
  SELECT p.trace_id, p.id, p.parent_id, p.name, p.cat, p.self, p.timed
  FROM partial AS p
  LEFT JOIN ref AS r ON r.id = p.id
  WHERE NOT p.gpu
    AND (r.id IS NULL OR r.parent_id IS NOT p.parent_id OR r.name IS NOT p.name OR r.cat IS NOT p.cat)
  UNION
  SELECT c.trace_id, c.id, c.parent_id, c.name, c.cat, c.self, c.timed
  FROM differ AS d
  JOIN partial AS c ON c.trace_id = d.trace_id AND c.parent_id = d.id
  WHERE NOT c.gpu
),
mis AS MATERIALIZED (SELECT * FROM differ),
-- The paths matched by frames: the first trace's and the differing ones, each frame a number and
-- each folded name; ptr: the trace of the parent's row here (the first trace's for a parent that
-- is the first trace's path).
framed AS MATERIALIZED (
  SELECT trace_id, id, parent_id, ptr, name, folded,
         dense_rank() OVER (ORDER BY quote(name) || quote(cat)) AS fk, dense_rank() OVER (ORDER BY folded) AS gk
  FROM (
    SELECT trace_id, id, parent_id, ptr, name, cat,
           CASE WHEN name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(name, '?') END AS folded
    FROM (
      SELECT (SELECT t FROM first) AS trace_id, id, parent_id, (SELECT t FROM first) AS ptr, name, cat
      FROM ref
      UNION ALL
      SELECT m.trace_id, m.id, m.parent_id,
             CASE WHEN EXISTS (SELECT 1 FROM mis AS q WHERE q.trace_id = m.trace_id AND q.id = m.parent_id)
                  THEN m.trace_id ELSE (SELECT t FROM first) END,
             m.name, m.cat
      FROM mis AS m
    )
  )
),
-- Each path's identity: its frames' numbers from the root (node), or its folded names' (merged).
keys(trace_id, id, node, merged) AS (
  SELECT trace_id, id, fk, gk FROM framed WHERE parent_id IS NULL
  UNION ALL
  SELECT c.trace_id, c.id, k.node || ',' || c.fk, k.merged || ',' || c.gk
  FROM keys AS k JOIN framed AS c ON c.ptr = k.trace_id AND c.parent_id = k.id
),
keyed AS MATERIALIZED (SELECT * FROM keys),
-- Per path: self time and timed rows summed over the traces (the paths matched by id: every row of
-- the id less the differing ones), and the first row's position in the job (ord).
byid AS MATERIALIZED (SELECT id, sum(self) AS self, sum(timed) AS timed FROM partial WHERE NOT gpu GROUP BY id),
misid AS MATERIALIZED (SELECT id, sum(self) AS self, sum(timed) AS timed FROM mis GROUP BY id),
nodes AS (
  SELECT k.node, k.merged, b.self - coalesce(m.self, 0) AS self, b.timed - coalesce(m.timed, 0) AS timed,
         k.trace_id * 1099511627776 + k.id AS ord
  FROM byid AS b
  JOIN keyed AS k ON k.trace_id = (SELECT t FROM first) AND k.id = b.id
  LEFT JOIN misid AS m ON m.id = b.id
  UNION ALL
  SELECT k.node, k.merged, m.self, m.timed, m.trace_id * 1099511627776 + m.id
  FROM mis AS m
  JOIN keyed AS k ON k.trace_id = m.trace_id AND k.id = m.id
),
self AS (                             -- cpu mode: self time per call path
  SELECT CASE WHEN coalesce(:merge_steps, 1) THEN merged ELSE node END AS shown,
         max(sum(self), 0) AS self, min(ord) AS ord
  FROM nodes
  GROUP BY node
  HAVING sum(timed) > 0
),
vals AS MATERIALIZED (                -- per node shown: the value and its first path (ord)
  SELECT shown, '' AS leaf, sum(self) AS value, min(ord) AS ord
  FROM self
  GROUP BY shown
  UNION ALL
  SELECT CASE WHEN coalesce(:merge_steps, 1) THEN k.merged ELSE k.node END, g.leaf, sum(g.value),
         min(CASE WHEN k.id IS NOT NULL THEN g.trace_id * 1099511627776 + g.id END)
  FROM partial AS g
  LEFT JOIN keyed AS k
    ON k.id = g.id
   AND k.trace_id = CASE WHEN EXISTS (SELECT 1 FROM mis AS q WHERE q.trace_id = g.trace_id AND q.id = g.id)
                         THEN g.trace_id ELSE (SELECT t FROM first) END
  WHERE g.gpu
  GROUP BY 1, g.leaf
),
-- The names of the paths shown, from the first path of each up to its root.
up(ord, parent_id, ptr, path) AS (
  SELECT v.ord, f.parent_id, f.ptr,
         replace(CASE WHEN coalesce(:merge_steps, 1) THEN f.folded ELSE coalesce(f.name, '?') END, ';', ':')
  FROM (SELECT DISTINCT ord FROM vals WHERE value > 0 AND shown IS NOT NULL) AS v
  JOIN framed AS f
    ON f.id = v.ord % 1099511627776
   AND f.trace_id = CASE WHEN EXISTS (SELECT 1 FROM mis AS q
                                      WHERE q.trace_id = v.ord / 1099511627776 AND q.id = v.ord % 1099511627776)
                         THEN v.ord / 1099511627776 ELSE (SELECT t FROM first) END
  UNION ALL
  SELECT u.ord, f.parent_id, f.ptr,
         replace(CASE WHEN coalesce(:merge_steps, 1) THEN f.folded ELSE coalesce(f.name, '?') END, ';', ':')
         || ';' || u.path
  FROM up AS u JOIN framed AS f ON f.trace_id = u.ptr AND f.id = u.parent_id
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
