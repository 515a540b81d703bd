-- title: GPU idle while the data loader runs
-- detects: the GPU idle time (idle_gaps, every device) inside the data loader's ranges on the
--   host: the ranges PyTorch writes around each batch fetch (enumerate(DataLoader)#...__next__,
--   enumerate(DataPipe)#..., as the TensorBoard plugin's DataLoader role; view annotations, or
--   cpu_ops in 2020-21 traces).
-- evidence: the number of data loader ranges, their total and longest length, and the longest one's
--   event id.
-- advice: Load ahead of the GPU: DataLoader(num_workers>0, pin_memory=True, prefetch_factor,
--   persistent_workers=True), move decoding and augmentation off the training process or onto the
--   GPU (DALI), cache the data set.
-- time lost: the GPU idle inside the loader's ranges: with the next batch ready, the GPU would not
--   have waited for it.
-- anchor: TensorBoard plugin step time breakdown (DataLoader) and its data-loading recommendation.
-- param :min_share 0.02 — report a trace when the idle is at least this share of its GPU span
WITH loads AS (
  SELECT id, trace_id, ts, dur, ts + dur AS end_ts
  FROM annotations
  WHERE side = 'cpu' AND (name LIKE 'enumerate(DataLoader)%' OR name LIKE 'enumerate(DataPipe)%') AND dur > 0
  UNION ALL                           -- 2020-21 traces write them as Operator events (read only in the
  SELECT id, trace_id, ts, dur, ts + dur  -- traces whose op names, cpu_op_groups, have them)
  FROM cpu_ops
  WHERE trace_id IN (SELECT trace_id FROM cpu_op_groups
                     WHERE name LIKE 'enumerate(DataLoader)%' OR name LIKE 'enumerate(DataPipe)%')
    AND (name LIKE 'enumerate(DataLoader)%' OR name LIKE 'enumerate(DataPipe)%') AND dur > 0
),
per_trace AS (
  SELECT trace_id, count(*) AS loads, sum(dur) AS load_ns, max(dur) AS longest FROM loads GROUP BY trace_id
),
idle AS (
  SELECT l.trace_id, sum(min(g.end_ts, l.end_ts) - max(g.ts, l.ts)) AS ns
  FROM loads AS l JOIN idle_gaps AS g ON g.trace_id = l.trace_id AND g.ts < l.end_ts AND g.end_ts > l.ts
  GROUP BY l.trace_id
)
SELECT
  p.trace_id,
  'data_loading' AS rule,
  CASE WHEN i.ns >= a.high_ns THEN 'high' WHEN i.ns >= a.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  i.ns AS time_lost_ns,
  printf('GPU idle %.3f ms (%.1f %% of its span) while the data loader fetched %d batch%s (%.3f ms on the host)',
         i.ns / 1e6, 100.0 * i.ns / nullif(a.span_ns, 0), p.loads, CASE WHEN p.loads = 1 THEN '' ELSE 'es' END, p.load_ns / 1e6) AS title,
  printf('trace %d: data loader ranges (enumerate(DataLoader)#..., enumerate(DataPipe)#...), the longest is event %d (%d ns)',
         p.trace_id,
         (SELECT l.id FROM loads AS l WHERE l.trace_id = p.trace_id ORDER BY l.dur DESC, l.ts LIMIT 1), p.longest)
    AS evidence,
  'Load ahead of the GPU: DataLoader(num_workers>0, pin_memory=True, persistent_workers=True, prefetch_factor), '
  || 'move decoding and augmentation out of the training process or onto the GPU, cache the data set.' AS advice
FROM per_trace AS p
JOIN idle AS i ON i.trace_id = p.trace_id
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE i.ns > 0 AND i.ns >= :min_share * a.span_ns
