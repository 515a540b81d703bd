-- partial: flamegraph
-- Per partition, what the flamegraph sums over the job, for its trace (self time is clipped at 0
-- only once summed over every trace, so the self times before clipping), as the tree of its call
-- paths that the combining query matches across partitions by their frames' (name, cat) from the
-- root:
--   path rows (gpu 0): every call path of the partition (stacks: id, parent_id, name, cat); in cpu
--       mode self (the summed duration of the host slices on the path minus that of the host slices
--       on the paths directly under it, not clipped; NULL where neither) and timed (1 when a host
--       slice ends on the path, else 0)
--   GPU rows (gpu mode, gpu 1): id (the path of the launch call; NULL without one), leaf
--       (the GPU op name) and value (summed GPU op time)
-- trace_id: the trace's.
-- The self time is stacks.cpu_self_ns, which the importer computed for this one trace, wherever
-- that is exact: where it is positive (clipping changes negative values only) and where it is NULL
-- without a host slice on the paths under it. Only a partition with a path whose stored self time
-- was clipped or might hide its children's time (cpu_self_ns = 0, or NULL over children that have
-- host slices) reads its host slices from events.
-- With :merge_steps the rows are those of the merged paths only (stacks rows that are their own
-- merged_id; parent_id the parent's merged_id; self stacks.merged_cpu_self_ns, the sum over the
-- path's copies), GPU rows per merged path too, wherever summing a merged path's copies first
-- gives the same job-wide result: in gpu mode always, in cpu mode when no partition in scope reads
-- its host slices (:job_rescan, from flamegraph.job.sql, is 0), so that every copy's self time is
-- positive or NULL in every partition and clipping the job's sum per path changes nothing (a rank
-- of bench/README.md's 256-rank job: 1,464 rows instead of 10,900). Without :job_rescan (NULL), cpu
-- mode sends every path.
WITH
-- Whether the rows are those of the merged paths.
fold AS MATERIALIZED (
  SELECT 1 AS yes
  WHERE coalesce(:merge_steps, 1) AND (coalesce(:mode, 'cpu') = 'gpu' OR :job_rescan = 0)
),
-- cpu mode: whether the stored self times do not give every path's unclipped one.
rescan AS MATERIALIZED (
  SELECT 1 AS yes
  WHERE coalesce(:mode, 'cpu') = 'cpu' AND NOT EXISTS (SELECT 1 FROM fold)
    AND (EXISTS (SELECT 1 FROM stacks WHERE cpu_self_ns = 0)
         OR EXISTS (SELECT 1 FROM stacks AS c JOIN stacks AS p ON p.id = c.parent_id
                    WHERE c.cpu_self_ns IS NOT NULL AND p.cpu_self_ns IS NULL))
),
tot AS MATERIALIZED (
  SELECT e.stack_id AS id, sum(e.dur) AS total
  FROM events AS e
  WHERE EXISTS (SELECT 1 FROM rescan)
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
  SELECT CASE WHEN EXISTS (SELECT 1 FROM fold) THEN s.merged_id ELSE l.stack_id END AS id,
         n.name AS leaf, sum(k.gpu_dur) AS value
  FROM op_kernel_links AS k
  LEFT JOIN events AS l ON l.id = k.launch_event_id
  LEFT JOIN stacks AS s ON s.id = l.stack_id
  LEFT JOIN gpu_op_names AS n ON n.id = k.name_id
  WHERE coalesce(:mode, 'cpu') = 'gpu'
  GROUP BY 1, k.name_id
)
SELECT (SELECT min(id) FROM traces) AS trace_id, id, parent_id, name, cat,
       CASE WHEN coalesce(:mode, 'cpu') = 'cpu' THEN cpu_self_ns END AS self,
       coalesce(:mode, 'cpu') = 'cpu' AND cpu_self_ns IS NOT NULL AS timed,
       0 AS gpu, NULL AS leaf, NULL AS value
FROM stacks
WHERE NOT EXISTS (SELECT 1 FROM rescan) AND NOT EXISTS (SELECT 1 FROM fold)
UNION ALL
SELECT (SELECT min(id) FROM traces), s.id, p.merged_id, s.name, s.cat,
       CASE WHEN coalesce(:mode, 'cpu') = 'cpu' THEN s.merged_cpu_self_ns END,
       coalesce(:mode, 'cpu') = 'cpu' AND s.merged_cpu_self_ns IS NOT NULL, 0, NULL, NULL
FROM stacks AS s
LEFT JOIN stacks AS p ON p.id = s.parent_id
WHERE EXISTS (SELECT 1 FROM fold) AND s.merged_id = s.id
UNION ALL
SELECT (SELECT min(id) FROM traces), s.id, s.parent_id, s.name, s.cat,
       CASE WHEN t.id IS NULL AND c.id IS NULL THEN NULL ELSE coalesce(t.total, 0) - coalesce(c.child_total, 0) END,
       t.id IS NOT NULL, 0, NULL, NULL
FROM stacks AS s
LEFT JOIN tot AS t ON t.id = s.id
LEFT JOIN child AS c ON c.id = s.id
WHERE EXISTS (SELECT 1 FROM rescan)
UNION ALL
SELECT (SELECT min(id) FROM traces), id, NULL, NULL, NULL, NULL, 0, 1, leaf, value
FROM gpu;
