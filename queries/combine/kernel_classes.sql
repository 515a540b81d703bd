-- combine: kernel_classes
-- The traces' GPU op names with their class, rule, ops and time, and each group's busy time
-- (kernel_classes.partial.sql), added by group (class and rule; with :by_name 1 also name and kind)
-- over the traces; the share computed from the integer sums as the query computes it.
WITH names AS (                       -- every (name, kind) of the job, its group and its sums
  SELECT class, rule_id, min(rule) AS rule, name, kind,
         CASE WHEN coalesce(:by_name, 0) THEN name END AS gname,
         CASE WHEN coalesce(:by_name, 0) THEN kind END AS gkind,
         sum(gpu_ops) AS gpu_ops, sum(total_ns) AS total_ns
  FROM partial
  WHERE part = 'name'
  GROUP BY class, rule_id, name, kind
),
busy AS MATERIALIZED (
  SELECT class, rule_id, name AS gname, kind AS gkind, sum(busy_ns) AS busy_ns
  FROM partial
  WHERE part = 'busy'
  GROUP BY class, rule_id, name, kind
),
groups AS (                           -- per group with a named GPU op (as the query's per_gid)
  SELECT class, rule_id, min(rule) AS rule, gname, gkind, count(*) AS names,
         sum(CASE WHEN name IS NOT NULL THEN gpu_ops END) AS gpu_ops,
         sum(CASE WHEN name IS NOT NULL THEN total_ns END) AS total_ns
  FROM names
  GROUP BY class, rule_id, gname, gkind
  HAVING count(name) > 0
),
agg AS (
  SELECT g.class, g.rule_id, g.rule, g.gname, g.names, g.gpu_ops, g.total_ns, coalesce(b.busy_ns, 0) AS busy_ns
  FROM groups AS g
  LEFT JOIN busy AS b
    ON b.class = g.class AND b.rule_id IS g.rule_id AND b.gname IS g.gname AND b.gkind IS g.gkind
)
SELECT
  class,
  rule_id,
  rule,
  gname AS name,
  names,
  gpu_ops,
  total_ns,
  round(100.0 * total_ns / (SELECT nullif(sum(total_ns), 0) FROM agg), 2) AS pct_total,
  busy_ns
FROM agg
ORDER BY CASE class WHEN 'compute' THEN 1 WHEN 'communication' THEN 2 WHEN 'memory' THEN 3
                    WHEN 'other' THEN 5 ELSE 4 END,
         class, total_ns DESC, rule_id, name;
