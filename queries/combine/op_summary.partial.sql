-- partial: op_summary
-- The partition's trace's groups (name, and with :by_shape 1 Input Dims and Input type) as
-- op_summary counts them, unjoined: 'own' rows (calls, cpu total), 'child' rows (the time of child
-- ops credited to the group) and 'gpu' rows (GPU ops, summed and united time). The combining query
-- sums each kind by group over the traces and joins them as the query does.
WITH
own AS (                              -- calls and CPU time per group, from the importer's counts
  SELECT name, NULL AS input_dims, NULL AS input_type,  -- (cpu_op_groups: a few thousand rows,
         sum(calls) AS calls, sum(total_ns) AS total_ns  -- not a million ops; a branch per
  FROM cpu_op_groups                                    -- :by_shape)
  WHERE NOT coalesce(:by_shape, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY name
  UNION ALL
  SELECT n.name, s.input_dims, s.input_type, sum(n.calls), sum(n.total_ns)
  FROM (SELECT name, input_shape_id AS sid, sum(calls) AS calls, sum(total_ns) AS total_ns
          FROM cpu_op_groups
         WHERE coalesce(:by_shape, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
         GROUP BY name, input_shape_id) AS n   -- by the integer shape first, its text once per group
  LEFT JOIN input_shapes AS s ON s.id = n.sid
  GROUP BY 1, 2, 3
),
child AS (                            -- CPU time of child ops, credited to the group of their parent
  SELECT parent_name AS name,         -- op (the nearest CPU op enclosing them, which skips Python
         NULL AS input_dims,          -- frames and annotations in between)
         NULL AS input_type,
         sum(total_ns) AS child_ns
  FROM cpu_op_groups
  WHERE NOT coalesce(:by_shape, 0) AND parent_name IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY parent_name
  UNION ALL
  SELECT n.parent_name, s.input_dims, s.input_type, sum(n.total_ns)
  FROM (SELECT parent_name, parent_shape_id AS psid, sum(total_ns) AS total_ns
          FROM cpu_op_groups
         WHERE coalesce(:by_shape, 0) AND parent_name IS NOT NULL
           AND (:trace_id IS NULL OR trace_id = :trace_id)
         GROUP BY parent_name, parent_shape_id) AS n
  LEFT JOIN input_shapes AS s ON s.id = n.psid
  GROUP BY 1, 2, 3
),
anc(op_id, owner_id) AS (             -- with :inclusive 1, each op that launched GPU ops and the
  SELECT DISTINCT op_event_id, op_event_id  -- ops that own them: itself and every enclosing CPU op
  FROM op_kernel_links
  WHERE coalesce(:inclusive, 0)
    AND op_event_id IS NOT NULL AND gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
  UNION ALL
  SELECT a.op_id, p.cpu_op_id
  FROM anc AS a
  JOIN events AS e ON e.id = a.owner_id
  JOIN events AS p ON p.id = e.parent_id
  WHERE p.cpu_op_id IS NOT NULL
),
owner AS (                            -- :inclusive 1: (owning op, GPU op)
  SELECT a.owner_id AS op_id, k.gpu_event_id AS gpu_id,
         k.gpu_ts AS ts, k.gpu_ts + k.gpu_dur AS end_ts
  FROM anc AS a
  JOIN op_kernel_links AS k ON k.op_event_id = a.op_id
  WHERE k.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR k.trace_id = :trace_id)
),
g AS (                                -- each op's GPU ops in start order, with the running max end
  SELECT op_id, ts, end_ts,
         max(end_ts) OVER (PARTITION BY op_id ORDER BY ts, gpu_id
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM owner
),
unions AS (                           -- per op call: count, sum, and union: each GPU op adds the
  SELECT op_id,                       -- part of it beyond the end of every earlier one
         count(*) AS gpu_ops,
         sum(end_ts - ts) AS gpu_sum_ns,
         sum(max(0, end_ts - max(ts, coalesce(prev_end, ts)))) AS gpu_union_ns
  FROM g
  GROUP BY op_id
),
incl AS (                             -- :inclusive 1: per op, its name and shape
  SELECT o.name, o.input_shape_id AS sid, u.gpu_ops, u.gpu_sum_ns, u.gpu_union_ns
  FROM unions AS u
  JOIN events AS o ON o.id = u.op_id
),
gpu AS (                              -- per group. :inclusive 0: from op_gpu_totals, whose index
  SELECT op_name AS name,             -- op_gpu_totals_name gives its rows in (name, shape) order
         NULL AS input_dims,          -- (no sort, no event read)
         NULL AS input_type,
         sum(timed_gpu_ops) AS gpu_ops,
         sum(gpu_time) AS gpu_sum_ns,
         sum(gpu_union) AS gpu_union_ns
  FROM op_gpu_totals
  WHERE NOT coalesce(:inclusive, 0) AND NOT coalesce(:by_shape, 0) AND timed_gpu_ops > 0
    AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY op_name
  UNION ALL
  SELECT q.name, s.input_dims, s.input_type,
         sum(q.gpu_ops), sum(q.gpu_sum_ns), sum(q.gpu_union_ns)
  FROM (SELECT op_name AS name, input_shape_id AS sid,
               sum(timed_gpu_ops) AS gpu_ops, sum(gpu_time) AS gpu_sum_ns,
               sum(gpu_union) AS gpu_union_ns
          FROM op_gpu_totals
         WHERE NOT coalesce(:inclusive, 0) AND coalesce(:by_shape, 0) AND timed_gpu_ops > 0
           AND (:trace_id IS NULL OR trace_id = :trace_id)
         GROUP BY op_name, input_shape_id) AS q
  LEFT JOIN input_shapes AS s ON s.id = q.sid
  GROUP BY 1, 2, 3
  UNION ALL
  SELECT name, NULL, NULL, sum(gpu_ops), sum(gpu_sum_ns), sum(gpu_union_ns)
  FROM incl
  WHERE NOT coalesce(:by_shape, 0)
  GROUP BY name
  UNION ALL
  SELECT q.name, s.input_dims, s.input_type,
         sum(q.gpu_ops), sum(q.gpu_sum_ns), sum(q.gpu_union_ns)
  FROM (SELECT name, sid, sum(gpu_ops) AS gpu_ops, sum(gpu_sum_ns) AS gpu_sum_ns,
               sum(gpu_union_ns) AS gpu_union_ns
          FROM incl
         WHERE coalesce(:by_shape, 0)
         GROUP BY 1, 2) AS q
  LEFT JOIN input_shapes AS s ON s.id = q.sid
  GROUP BY 1, 2, 3
)
SELECT 'own' AS part, name, input_dims, input_type, calls, total_ns, NULL AS child_ns,
       NULL AS gpu_ops, NULL AS gpu_sum_ns, NULL AS gpu_union_ns
FROM own
UNION ALL
SELECT 'child', name, input_dims, input_type, NULL, NULL, child_ns, NULL, NULL, NULL
FROM child
UNION ALL
SELECT 'gpu', name, input_dims, input_type, NULL, NULL, NULL, gpu_ops, gpu_sum_ns, gpu_union_ns
FROM gpu;
