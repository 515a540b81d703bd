-- name: op_summary
-- description: Per CPU op name (optionally also per Input Dims and Input type): calls, CPU total and self time, the GPU time of its GPU ops as a sum and as a union of their intervals, GPU ops per call (torch key_averages, TraceLens ops_summary).
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :by_shape 0 — 1: group by name, Input Dims and Input type (torch group_by_input_shape; TraceLens groups by these too)
-- param :inclusive 0 — 0: an op's GPU ops are those it launched itself (it is the innermost CPU op around the launch call); 1: also those launched by the ops it calls
-- param :sort cpu_total — order by cpu_total, cpu_self, gpu_sum, gpu_union or calls (largest first)
-- param :limit -1 — number of rows (-1: all)
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
WITH paths AS (                       -- with :by_shape 1: where each args shape keeps Input Dims
  SELECT shape_id,                    -- and Input type (legacy traces: 'Input dims')
         max(CASE WHEN key IN ('Input Dims', 'Input dims') THEN path END) AS dims_path,
         max(CASE WHEN key = 'Input type' THEN path END) AS type_path
  FROM arg_keys
  WHERE coalesce(:by_shape, 0) AND key IN ('Input Dims', 'Input dims', 'Input type')
  GROUP BY shape_id
),
own AS (                              -- calls and CPU time per group
  SELECT e.name,
         CASE WHEN coalesce(:by_shape, 0) THEN
           e.arg_values -> (SELECT dims_path FROM paths WHERE shape_id = e.arg_shape_id) END AS input_dims,
         CASE WHEN coalesce(:by_shape, 0) THEN
           e.arg_values -> (SELECT type_path FROM paths WHERE shape_id = e.arg_shape_id) END AS input_type,
         count(*) AS calls,
         sum(e.dur) AS total_ns
  FROM cpu_ops AS e
  WHERE e.dur IS NOT NULL AND (:trace_id IS NULL OR e.trace_id = :trace_id)
  GROUP BY 1, 2, 3
),
child AS (                            -- CPU time of child ops, credited to the group of the nearest
  SELECT CASE WHEN p.cpu_op_id = p.id THEN p.name  -- CPU op enclosing them: the cpu_op_id of the
              ELSE (SELECT o.name FROM events AS o WHERE o.id = p.cpu_op_id) END AS name,
         CASE WHEN coalesce(:by_shape, 0) THEN     -- child's parent event (which skips Python
           (SELECT o.arg_values -> (SELECT dims_path FROM paths WHERE shape_id = o.arg_shape_id)
              FROM events AS o WHERE o.id = p.cpu_op_id) END AS input_dims,  -- frames and
         CASE WHEN coalesce(:by_shape, 0) THEN     -- annotations in between)
           (SELECT o.arg_values -> (SELECT type_path FROM paths WHERE shape_id = o.arg_shape_id)
              FROM events AS o WHERE o.id = p.cpu_op_id) END AS input_type,
         sum(c.dur) AS child_ns
  FROM cpu_ops AS c
  JOIN events AS p ON p.id = c.parent_id
  WHERE c.dur IS NOT NULL AND p.cpu_op_id IS NOT NULL
    AND (:trace_id IS NULL OR c.trace_id = :trace_id)
  GROUP BY 1, 2, 3
),
owner(op_id, name, gpu_id, ts, end_ts) AS (  -- (op, GPU op it launched): the innermost op,
  SELECT op_event_id, op_name, gpu_event_id,  -- and with :inclusive 1 every enclosing CPU op too
         gpu_ts, gpu_ts + gpu_dur
  FROM op_kernels
  WHERE op_event_id IS NOT NULL AND gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
  UNION ALL
  SELECT p.cpu_op_id, (SELECT a.name FROM events AS a WHERE a.id = p.cpu_op_id), o.gpu_id, o.ts, o.end_ts
  FROM owner AS o
  JOIN events AS e ON e.id = o.op_id
  JOIN events AS p ON p.id = e.parent_id
  WHERE coalesce(:inclusive, 0) AND p.cpu_op_id IS NOT NULL
),
g AS (                                -- each op's GPU ops in start order, with the running max end
  SELECT op_id, name, ts, end_ts,
         max(end_ts) OVER (PARTITION BY op_id ORDER BY ts, gpu_id
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM owner
),
gpu AS (                              -- per group: count, sum, and union: each GPU op adds the part
  SELECT g.name,                      -- of it beyond the end of every earlier GPU op of the same call
         CASE WHEN coalesce(:by_shape, 0) THEN
           (SELECT o.arg_values -> (SELECT dims_path FROM paths WHERE shape_id = o.arg_shape_id)
              FROM events AS o WHERE o.id = g.op_id) END AS input_dims,
         CASE WHEN coalesce(:by_shape, 0) THEN
           (SELECT o.arg_values -> (SELECT type_path FROM paths WHERE shape_id = o.arg_shape_id)
              FROM events AS o WHERE o.id = g.op_id) END AS input_type,
         count(*) AS gpu_ops,
         sum(g.end_ts - g.ts) AS gpu_sum_ns,
         sum(max(0, g.end_ts - max(g.ts, coalesce(g.prev_end, g.ts)))) AS gpu_union_ns
  FROM g
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
