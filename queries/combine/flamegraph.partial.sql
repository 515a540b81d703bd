-- partial: flamegraph
-- Per partition, what the flamegraph sums over the job, for its trace (self time is clipped at 0
-- only once summed over every trace, so the sums before clipping), as a tree of call paths that the
-- combining query matches across partitions by their frames' (name, cat) from the root:
--   path rows (gpu 0): id, parent_id, name, cat of each call path that has a value and of its
--       ancestors (stacks); in cpu mode total (summed duration of the host slices on the path) and
--       child_total (that of the host slices on the paths directly under it), NULL where none
--   GPU rows (gpu mode, gpu 1): id (the path of the launch call; NULL without one), leaf
--       (the GPU op name) and value (summed GPU op time)
-- trace_id: the trace's.
WITH RECURSIVE
tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE coalesce(:mode, 'cpu') = 'cpu'
    AND e.thread_id IN (SELECT id FROM threads WHERE kind = 'cpu')
    AND e.dur IS NOT NULL AND e.stack_id IS NOT NULL
  GROUP BY e.stack_id
),
child AS MATERIALIZED (
  SELECT s.parent_id AS id, sum(t.total) AS child_total
  FROM tot AS t JOIN stacks AS s ON s.id = t.id
  WHERE s.parent_id IS NOT NULL
  GROUP BY s.parent_id
),
gpu AS MATERIALIZED (
  SELECT l.stack_id AS id, n.name AS leaf, sum(k.gpu_dur) AS value
  FROM op_kernel_links AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  LEFT JOIN gpu_op_names AS n ON n.id = k.name_id
  WHERE coalesce(:mode, 'cpu') = 'gpu'
  GROUP BY l.stack_id, k.name_id
),
anc(id) AS (
  SELECT id FROM tot UNION SELECT id FROM child UNION SELECT id FROM gpu WHERE id IS NOT NULL
  UNION
  SELECT s.parent_id FROM anc AS a JOIN stacks AS s ON s.id = a.id WHERE s.parent_id IS NOT NULL
)
SELECT (SELECT min(id) FROM traces) AS trace_id, s.id, s.parent_id, s.name, s.cat, t.total, c.child_total,
       0 AS gpu, NULL AS leaf, NULL AS value
FROM anc AS a
JOIN stacks AS s ON s.id = a.id
LEFT JOIN tot AS t ON t.id = a.id
LEFT JOIN child AS c ON c.id = a.id
UNION ALL
SELECT (SELECT min(id) FROM traces), id, NULL, NULL, NULL, NULL, NULL, 1, leaf, value
FROM gpu;
