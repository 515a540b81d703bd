-- partial: flamegraph
-- Per partition, the call paths of its trace with what the flamegraph sums over the job, as the
-- query derives them for one trace (self time is clipped at 0 only once summed over every trace,
-- so the sums before clipping): one row per call path, with
--   node    the path's identity in every database: its (name, cat) from the root, each quoted
--   folded  its names from the root with ProfilerStep#N read as ProfilerStep#* and NULL as '?'
--           (stacks.merged_id's identity), quoted
--   path    the frames as the query names them (folded with :merge_steps), ';'-separated
--   leaf    NULL in cpu mode; in gpu mode the GPU op's name (a row per path and GPU op name)
--   total, child_total   cpu mode: summed duration of the host slices on the path, and of those
--           on the paths directly under it (NULL where none)
--   value   gpu mode: summed GPU op time under the path's launch calls
--   trace_id, stack_id   the trace and the path's stacks.id there (where paths of the same names
--           differ in their cats, the flamegraph lists them in the order of their ids in the
--           job's database: the trace that met them first, then the order there)
-- GPU ops without a launch call path have NULL node, folded and path.
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
vals AS MATERIALIZED (
  SELECT id, NULL AS leaf, max(total) AS total, max(child_total) AS child_total, NULL AS value
  FROM (SELECT id, total, NULL AS child_total FROM tot UNION ALL SELECT id, NULL, child_total FROM child)
  GROUP BY id
  UNION ALL
  SELECT l.stack_id, n.name, NULL, NULL, sum(k.gpu_dur)
  FROM op_kernel_links AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  LEFT JOIN gpu_op_names AS n ON n.id = k.name_id
  WHERE coalesce(:mode, 'cpu') = 'gpu'
  GROUP BY l.stack_id, k.name_id
),
anc(id) AS (
  SELECT id FROM vals WHERE id IS NOT NULL
  UNION
  SELECT s.parent_id FROM anc AS a JOIN stacks AS s ON s.id = a.id WHERE s.parent_id IS NOT NULL
),
frames AS MATERIALIZED (
  SELECT s.id, s.parent_id, quote(s.name) || quote(s.cat) AS node,
         quote(CASE WHEN s.name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE coalesce(s.name, '?') END) AS folded,
         replace(CASE WHEN s.name GLOB 'ProfilerStep#*' AND coalesce(:merge_steps, 1) THEN 'ProfilerStep#*'
                      ELSE coalesce(s.name, '?') END, ';', ':') AS frame
  FROM stacks AS s
  WHERE s.id IN (SELECT id FROM anc)
),
paths(id, node, folded, path) AS (
  SELECT id, node, folded, frame FROM frames WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, p.node || ',' || c.node, p.folded || ',' || c.folded, p.path || ';' || c.frame
  FROM paths AS p JOIN frames AS c ON c.parent_id = p.id
)
SELECT p.node, p.folded, p.path, v.leaf, v.total, v.child_total, v.value,
       (SELECT min(id) FROM traces) AS trace_id, v.id AS stack_id
FROM vals AS v LEFT JOIN paths AS p ON p.id = v.id
ORDER BY p.node, v.leaf;
