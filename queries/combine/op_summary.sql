-- combine: op_summary
-- The traces' unjoined groups (op_summary.partial.sql) summed per group and kind over the traces,
-- then joined, computed, ordered and cut as the query does (integer sums throughout).
WITH
own AS (
  SELECT name, input_dims, input_type, sum(calls) AS calls, sum(total_ns) AS total_ns
  FROM partial WHERE part = 'own'
  GROUP BY name, input_dims, input_type
),
child AS (
  SELECT name, input_dims, input_type, sum(child_ns) AS child_ns
  FROM partial WHERE part = 'child'
  GROUP BY name, input_dims, input_type
),
gpu AS (
  SELECT name, input_dims, input_type, sum(gpu_ops) AS gpu_ops, sum(gpu_sum_ns) AS gpu_sum_ns,
         sum(gpu_union_ns) AS gpu_union_ns
  FROM partial WHERE part = 'gpu'
  GROUP BY name, input_dims, input_type
),
summary AS (
  SELECT w.name, w.input_dims, w.input_type,
         w.calls,
         w.total_ns AS cpu_total_ns,
         w.total_ns - coalesce(c.child_ns, 0) AS cpu_self_ns,
         w.total_ns / w.calls AS cpu_avg_ns,
         coalesce(g.gpu_ops, 0) AS gpu_ops,
         round(1.0 * coalesce(g.gpu_ops, 0) / w.calls, 2) AS gpu_ops_per_call,
         coalesce(g.gpu_sum_ns, 0) AS gpu_sum_ns,
         coalesce(g.gpu_union_ns, 0) AS gpu_union_ns
  FROM own AS w
  LEFT JOIN child AS c
    ON c.name = w.name AND c.input_dims IS w.input_dims AND c.input_type IS w.input_type
  LEFT JOIN gpu AS g
    ON g.name = w.name AND g.input_dims IS w.input_dims AND g.input_type IS w.input_type
)
SELECT *
FROM summary
ORDER BY CASE coalesce(:sort, 'cpu_total')
           WHEN 'cpu_self' THEN cpu_self_ns
           WHEN 'gpu_sum' THEN gpu_sum_ns
           WHEN 'gpu_union' THEN gpu_union_ns
           WHEN 'calls' THEN calls
           ELSE cpu_total_ns END DESC,
         name, input_dims, input_type
LIMIT coalesce(:limit, -1);
