-- Invariant: the import-time columns of stacks equal their SQL definitions (docs/schema.md).
--   cpu_self_ns: summed dur of host-thread slices (threads.kind = 'cpu') ending on the path minus
--                that of the paths directly under it with such slices, clipped at 0; NULL without one.
--   merged_id:   the lowest id among the paths whose parent has the same merged_id and whose name
--                is the same once ProfilerStep#N reads 'ProfilerStep#*' and NULL reads '?' (by
--                induction from the roots, this is "same names from the root").
--   merged_cpu_self_ns: on a path that is its own merged_id, the sum of cpu_self_ns over the paths
--                with that merged_id; NULL elsewhere and when none has one.
-- Rows returned = violations.
WITH tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE e.thread_id IN (SELECT id FROM threads WHERE kind = 'cpu')
    AND e.dur IS NOT NULL AND e.stack_id IS NOT NULL
  GROUP BY e.stack_id
),
child AS MATERIALIZED (
  SELECT s.parent_id AS id, sum(t.total) AS child_total
  FROM tot AS t JOIN stacks AS s ON s.id = t.id
  WHERE s.parent_id IS NOT NULL
  GROUP BY s.parent_id
),
canon AS MATERIALIZED (
  SELECT s.id, s.merged_id,
         CASE WHEN s.name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(s.name, '?') END AS cname,
         p.merged_id AS parent_merged
  FROM stacks AS s LEFT JOIN stacks AS p ON p.id = s.parent_id
),
merged_sums AS MATERIALIZED (
  SELECT merged_id AS id, sum(cpu_self_ns) AS total FROM stacks GROUP BY merged_id
),
firsts AS MATERIALIZED (
  SELECT cname, parent_merged, min(id) AS first_id FROM canon GROUP BY cname, parent_merged
)
SELECT 'cpu_self_ns' AS what, s.id, s.cpu_self_ns AS got,
       max(t.total - coalesce(c.child_total, 0), 0) AS want
FROM stacks AS s
LEFT JOIN tot AS t ON t.id = s.id
LEFT JOIN child AS c ON c.id = s.id
WHERE s.cpu_self_ns IS NOT (CASE WHEN t.id IS NULL THEN NULL ELSE max(t.total - coalesce(c.child_total, 0), 0) END)
UNION ALL
SELECT 'merged_id', a.id, a.merged_id, f.first_id
FROM canon AS a
JOIN firsts AS f ON f.cname = a.cname AND f.parent_merged IS a.parent_merged
WHERE a.merged_id IS NOT f.first_id
UNION ALL
SELECT 'merged_cpu_self_ns', s.id, s.merged_cpu_self_ns, CASE WHEN s.merged_id = s.id THEN m.total END
FROM stacks AS s
LEFT JOIN merged_sums AS m ON m.id = s.id
WHERE s.merged_cpu_self_ns IS NOT (CASE WHEN s.merged_id = s.id THEN m.total END);
