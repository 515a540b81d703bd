-- name: kernel_classes
-- description: GPU time per class (compute / communication / memory / other) and per rule of the editable kernel_class_rules table, with the rule that matched; :by_name 1 lists every GPU op name.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :by_name 0 {0|1} — 1: one row per GPU op name (with its class and the rule that matched); 0: one row per (class, rule)
--
-- Every GPU op (kernel, memcpy, memset: op_kernels) gets the class of the kernel_class_rules row with
-- the highest priority whose kind (NULL = any) and pattern (GLOB or LIKE, column syntax) match; no
-- matching rule: class 'other', rule_id NULL. Edit the table to change the classes everywhere.
-- Columns:
--   class, rule_id, rule         the class and the rule that matched ("kind syntax pattern")
--   name                         the GPU op name (only with :by_name 1, else NULL)
--   names                        distinct GPU op names in the row
--   gpu_ops, total_ns            number of GPU ops and the sum of their durations
--   pct_total                    total_ns / sum of all GPU op durations in scope x 100
--   busy_ns                      union of the row's GPU op intervals per (trace, device), summed over
--                                devices: the time at least one of them ran (HTA's per-type time,
--                                before its overlap split)
-- How: counts and sums per name id (op_kernel_links); busy_ns from gpu_segments, each device's busy
-- time cut into pieces by the names running: a piece counts once for every group among its names.
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
busy_gid AS (                         -- each combination counts once for every group among its names
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
),
agg AS (
  SELECT g.class, g.rule_id, g.gkey, g.names, p.gpu_ops, p.total_ns, p.busy_ns
  FROM per_gid AS p
  JOIN (SELECT gid, class, rule_id, gkey, count(*) AS names FROM grp GROUP BY gid) AS g
    ON g.gid = p.gid
)
SELECT
  a.class,
  a.rule_id,
  CASE WHEN r.id IS NOT NULL
       THEN coalesce(r.kind, 'any') || ' ' || r.syntax || ' ' || r.pattern END AS rule,
  nm.name,
  a.names,
  a.gpu_ops,
  a.total_ns,
  round(100.0 * a.total_ns / (SELECT nullif(sum(total_ns), 0) FROM agg), 2) AS pct_total,
  a.busy_ns
FROM agg AS a
LEFT JOIN kernel_class_rules AS r ON r.id = a.rule_id
LEFT JOIN names AS nm ON nm.nid = a.gkey
ORDER BY CASE a.class WHEN 'compute' THEN 1 WHEN 'communication' THEN 2 WHEN 'memory' THEN 3
                      WHEN 'other' THEN 5 ELSE 4 END,
         a.class, a.total_ns DESC, a.rule_id, nm.name;
