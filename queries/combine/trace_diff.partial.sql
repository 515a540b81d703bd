-- partial: trace_diff
-- Per partition: its trace's side of the comparison, as trace_diff computes side A (a_rows): CPU
-- ops by name (and shapes unless :shapes 0) and GPU ops by kind and name, each with its count (n) and
-- summed time (t, ns), and the trace's number of ProfilerStep#N (steps, on every row). The combining
-- query picks the two traces compared (:a_trace, :b_trace: the job's trace ids).
WITH
tr AS (SELECT min(id) AS id FROM main.traces),
a_cpu AS (
  SELECT name, NULL AS sid, sum(calls) AS n, sum(total_ns) AS t
  FROM main.cpu_op_groups
  WHERE trace_id = (SELECT id FROM tr)
    AND name NOT GLOB 'ProfilerStep#*'
    AND NOT coalesce(:shapes, 1)
  GROUP BY name
  UNION ALL
  SELECT name, input_shape_id, sum(calls), sum(total_ns)
  FROM main.cpu_op_groups
  WHERE trace_id = (SELECT id FROM tr)
    AND name NOT GLOB 'ProfilerStep#*'
    AND coalesce(:shapes, 1)
  GROUP BY name, input_shape_id
),
a_gpu AS (                          -- (a GPU op without a stack_id: a group of its own)
  SELECT coalesce(e.stack_id, -e.id) AS sk,
         min(e.id) AS rep,
         count(*) AS n,
         sum(e.dur) AS t
  FROM main.event_ranges AS r
  JOIN main.events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE r.kind IN ('kernel', 'memcpy', 'memset') AND r.trace_id = (SELECT id FROM tr)
    AND e.cat IN ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset')
  GROUP BY 1
),
a_rows AS (
  SELECT
    'cpu_op' AS kind,
    c.name,
    CASE WHEN s.input_type IS NOT NULL
           THEN '[' || coalesce(s.input_dims, 'null') || ',' || s.input_type || ']'
         ELSE s.input_dims END AS shapes,
    sum(c.n) AS n,
    sum(c.t) AS t
  FROM a_cpu AS c
  LEFT JOIN main.input_shapes AS s ON s.id = c.sid
  GROUP BY c.name, shapes
  UNION ALL
  SELECT
    CASE WHEN g.cat IN ('kernel', 'Kernel') THEN 'kernel'
         WHEN g.cat IN ('gpu_memcpy', 'Memcpy') THEN 'memcpy' ELSE 'memset' END,
    g.name, NULL, sum(g.n), sum(g.t)
  FROM (SELECT CASE WHEN x.sk > 0 THEN st.cat ELSE (SELECT cat FROM main.events WHERE id = x.rep) END AS cat,
               CASE WHEN x.sk > 0 THEN st.name ELSE (SELECT name FROM main.events WHERE id = x.rep) END
                 AS name,
               x.n, x.t
          FROM a_gpu AS x
          LEFT JOIN main.stacks AS st ON st.id = x.sk) AS g
  GROUP BY 1, 2
),
steps AS (                          -- host ProfilerStep#N annotations (user_annotation, legacy Operator)
  SELECT count(*) AS steps
  FROM main.event_ranges AS r
  JOIN main.events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE coalesce(:per_step, 0)
    AND r.kind IN ('user_annotation', 'other') AND r.trace_id = (SELECT id FROM tr)
    AND e.name GLOB 'ProfilerStep#*' AND e.cat IN ('user_annotation', 'Operator')
)
SELECT (SELECT id FROM tr) AS trace_id, kind, name, shapes, n, t, (SELECT steps FROM steps) AS steps
FROM a_rows;
