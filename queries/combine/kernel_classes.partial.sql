-- partial: kernel_classes
-- The partition's trace's GPU ops as kernel_classes counts them: per GPU op (name, kind) with a
-- timed op in scope, its class and rule, ops and summed time ('name' rows); per output group (class
-- and rule, with :by_name 1 also name and kind) the busy time of its ops ('busy' rows). The combining
-- query adds them by group over the traces (by name text and rule: name numbers are per database).
WITH tot AS MATERIALIZED (            -- per name id: its timed GPU ops in scope and their summed
  SELECT o.name_id, count(*) AS n,    -- durations
         sum(o.gpu_ts + o.gpu_dur - o.gpu_ts) AS t  -- (end - start: NULL without a start)
  FROM op_kernel_links AS o NOT INDEXED  -- (a plain scan: through an index, each row would be a seek)
  WHERE o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  GROUP BY o.name_id
),
names AS MATERIALIZED (          -- every (name, kind) in scope, numbered, with its rule
  SELECT n.id AS name_id, n.name, n.kind, row_number() OVER (ORDER BY n.name, n.kind) AS nid,
         (SELECT r.id FROM kernel_class_rules AS r
           WHERE (r.kind IS NULL OR r.kind = n.kind)
             AND CASE r.syntax WHEN 'like' THEN n.name LIKE r.pattern ELSE n.name GLOB r.pattern END
           ORDER BY r.priority DESC, r.id LIMIT 1) AS rule_id
  FROM gpu_op_names AS n              -- the names of the timed GPU ops in scope
  WHERE n.id IN (SELECT name_id FROM tot)
),
grp0 AS (                             -- the output row each name belongs to
  SELECT nm.nid, nm.rule_id, coalesce(r.class, 'other') AS class,
         CASE WHEN coalesce(:by_name, 0) THEN nm.nid ELSE 0 END AS gkey
  FROM names AS nm
  LEFT JOIN kernel_class_rules AS r ON r.id = nm.rule_id
),
grp AS MATERIALIZED (                 -- ... numbered: gid (one integer to partition and group by)
  SELECT g.*, nm.name_id, nm.name, nm.kind, dense_rank() OVER (ORDER BY g.class, g.rule_id, g.gkey) AS gid
  FROM grp0 AS g JOIN names AS nm ON nm.nid = g.nid
),
busy AS (                             -- busy time per combination of names that run together (a
  SELECT name_ids, sum(dur) AS dur    -- piece of gpu_segments: each device's busy time cut at every
  FROM gpu_segments                   -- op start and end)
  WHERE :trace_id IS NULL OR trace_id = :trace_id
  GROUP BY name_ids
),
busy_gid AS MATERIALIZED (            -- each combination counts once for every group among its names
  SELECT DISTINCT b.name_ids, g.gid, b.dur
  FROM busy AS b
  CROSS JOIN json_each('[' || b.name_ids || ']') AS j
  JOIN grp AS g ON g.name_id = j.value
  WHERE g.name IS NOT NULL
),
per_gid AS (
  SELECT g.gid,
         sum(t.n) AS gpu_ops,
         sum(t.t) AS total_ns,
         -- the union of the group's ops, per device, summed: the pieces in which one of them runs
         coalesce((SELECT sum(b.dur) FROM busy_gid AS b WHERE b.gid = g.gid), 0) AS busy_ns
  FROM grp AS g
  JOIN tot AS t ON t.name_id = g.name_id
  WHERE g.name IS NOT NULL
  GROUP BY g.gid
)
SELECT 'name' AS part, g.class, g.rule_id,
       CASE WHEN r.id IS NOT NULL THEN coalesce(r.kind, 'any') || ' ' || r.syntax || ' ' || r.pattern END AS rule,
       g.name, g.kind, t.n AS gpu_ops, t.t AS total_ns, NULL AS busy_ns
FROM grp AS g
JOIN tot AS t ON t.name_id = g.name_id
LEFT JOIN kernel_class_rules AS r ON r.id = g.rule_id
UNION ALL
SELECT 'busy', g.class, g.rule_id, NULL,
       CASE WHEN coalesce(:by_name, 0) THEN g.name END, CASE WHEN coalesce(:by_name, 0) THEN g.kind END,
       NULL, NULL, p.busy_ns
FROM per_gid AS p
JOIN (SELECT gid, class, rule_id, name, kind FROM grp WHERE name IS NOT NULL GROUP BY gid) AS g ON g.gid = p.gid;
