-- Invariant: cpu_op_groups, counted by the importer, equals its definition recomputed from events:
-- the cpu_ops rows with a duration grouped by (trace, name, parent op's name, input_shape_id, parent
-- op's input_shape_id), the parent op being the cpu_op_id of the op's parent event; calls, summed
-- dur, lowest id. Rows returned = violations.
WITH want AS MATERIALIZED (
  SELECT c.trace_id, c.name, o.name AS parent_name, c.input_shape_id, o.input_shape_id AS parent_shape_id,
         count(*) AS calls, sum(c.dur) AS total_ns, min(c.id) AS first_event_id
  FROM cpu_ops AS c
  LEFT JOIN events AS p ON p.id = c.parent_id
  LEFT JOIN events AS o ON o.id = p.cpu_op_id
  WHERE c.dur IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5
)
SELECT 'missing or different' AS what, w.trace_id, w.name, w.calls, w.total_ns
FROM want AS w
WHERE NOT EXISTS (
  SELECT 1 FROM cpu_op_groups AS g
  WHERE g.trace_id = w.trace_id AND g.name IS w.name AND g.parent_name IS w.parent_name
    AND g.input_shape_id IS w.input_shape_id AND g.parent_shape_id IS w.parent_shape_id
    AND g.calls = w.calls AND g.total_ns = w.total_ns AND g.first_event_id = w.first_event_id)
UNION ALL
SELECT 'row count', NULL, NULL, (SELECT count(*) FROM cpu_op_groups), (SELECT count(*) FROM want)
WHERE (SELECT count(*) FROM cpu_op_groups) <> (SELECT count(*) FROM want);
