-- name: op_summary
-- description: Per CPU op name (optionally also per Input Dims and Input type): calls, CPU total and self time, the GPU time of its GPU ops as a sum and as a union of their intervals, GPU ops per call (torch key_averages, TraceLens ops_summary).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :by_shape 0 {0|1} — 1: group by name, Input Dims and Input type (torch group_by_input_shape; TraceLens groups by these too)
-- param :inclusive 0 {0|1} — 0: an op's GPU ops are those it launched itself (it is the innermost CPU op around the launch call); 1: also those launched by the ops it calls
-- param :sort cpu_total {cpu_total|cpu_self|gpu_sum|gpu_union|calls} — order by cpu_total, cpu_self, gpu_sum, gpu_union or calls (largest first)
-- param :limit -1 (integer) — number of rows (-1: all)
--
-- Ops are cpu_ops rows (cat cpu_op / legacy Operator) with a duration. Columns:
--   name, input_dims, input_type   the group (the args as JSON text; NULL unless :by_shape 1)
--   calls            number of op instances
--   cpu_total_ns     sum of durations (torch "CPU total"; nested calls of the same op count twice,
--                    as in torch)
--   cpu_self_ns      cpu_total_ns minus the time of the child CPU ops, i.e. the ops whose nearest
--                    enclosing CPU op is this one (torch "Self CPU"); runtime calls, annotations
--                    and Python frames are not children, so their time stays in self
--   cpu_avg_ns       cpu_total_ns / calls (integer)
--   gpu_ops          GPU ops (kernels, memcpys, memsets) launched by the op (see :inclusive)
--   gpu_ops_per_call gpu_ops / calls (2 decimals): "kernels per call"
--   gpu_sum_ns       sum of their durations (torch "Self CUDA" with :inclusive 0, "CUDA total" with
--                    :inclusive 1; HTA kernel_dur_sum)
--   gpu_union_ns     per call, the union of their intervals (time at least one of them ran), summed
--                    over calls (TraceLens total_direct_kernel_time with :inclusive 0). Smaller than
--                    gpu_sum_ns when an op's GPU ops overlap (several streams)
-- How it is computed: the CPU side reads cpu_op_groups, where the importer has counted the ops per
-- (name, parent op's name, input_shape_id, parent op's input_shape_id); shapes text is looked up
-- once per group. GPU ops (:inclusive 0) come from op_gpu_totals, where the importer has counted,
-- summed and united each op's GPU ops (one narrow row per op that launched any); with :inclusive 1
-- from op_kernel_links, each op's GPU ops charged to it and to every CPU op around it.
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
