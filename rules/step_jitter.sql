-- title: Steps much slower than the median
-- detects: ProfilerSteps whose window (step_windows: CPU start to the later of CPU end and the last
--   GPU op it launched) lasts more than :factor times the median step of the trace, in traces with
--   at least :min_steps steps; for the slowest one, its GPU idle (idle_gaps clipped to the window)
--   next to the median step's: what differs in it.
-- evidence: the slow steps' numbers and the slowest one's window (ts range).
-- advice: A slow first step is warm-up (allocator, cuDNN autotuning, compilation): profile after
--   it (schedule(wait=1, warmup=1, ...)). Later slow steps: compare one with a median step
--   (idle_gaps in both windows; data loading, syncs, garbage collection, checkpointing).
-- time lost: the slow steps' excess over the median, summed.
-- anchor: TensorBoard plugin step time breakdown; HTA temporal breakdown per step.
-- param :factor 1.5 — a step is slow when its window is longer than this times the median
-- param :min_steps 3 — only traces with at least this many steps
WITH d AS (
  SELECT trace_id, step, w_ts, w_end, w_end - w_ts AS dur FROM step_windows WHERE w_end > w_ts
),
r AS (
  SELECT d.*, row_number() OVER (PARTITION BY trace_id ORDER BY dur, step) AS rn,
         count(*) OVER (PARTITION BY trace_id) AS n
  FROM d
),
med AS (                              -- median window; the lower middle step stands for it
  SELECT trace_id, n, CAST(avg(dur) AS INTEGER) AS median, min(step) AS median_step
  FROM r WHERE rn IN ((n + 1) / 2, (n + 2) / 2) GROUP BY trace_id, n
),
slow AS (
  SELECT r.*, m.median, row_number() OVER (PARTITION BY r.trace_id ORDER BY r.dur DESC, r.step) AS worst
  FROM r JOIN med AS m ON m.trace_id = r.trace_id
  WHERE m.n >= :min_steps AND r.dur > :factor * m.median
),
per_trace AS (
  SELECT trace_id, count(*) AS slow_steps, sum(dur - median) AS excess_ns, median,
         group_concat(step, ', ') AS step_list
  FROM (SELECT * FROM slow ORDER BY trace_id, step) GROUP BY trace_id
),
idle_in AS (                          -- GPU idle inside a window (all devices)
  SELECT w.trace_id, w.step, sum(min(g.end_ts, w.w_end) - max(g.ts, w.w_ts)) AS ns
  FROM d AS w JOIN idle_gaps AS g ON g.trace_id = w.trace_id AND g.ts < w.w_end AND g.end_ts > w.w_ts
  GROUP BY w.trace_id, w.step
)
SELECT
  p.trace_id,
  'step_jitter' AS rule,
  CASE WHEN p.excess_ns >= a.high_ns THEN 'high' WHEN p.excess_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  p.excess_ns AS time_lost_ns,
  printf('%d of %d steps take%s over %s x the median %.3f ms; the slowest, step %d, takes %.3f ms with %.3f ms of GPU idle (median step: %.3f ms idle)',
         p.slow_steps, m.n, CASE WHEN p.slow_steps = 1 THEN 's' ELSE '' END, :factor, p.median / 1e6, w.step, w.dur / 1e6,
         coalesce((SELECT i.ns FROM idle_in AS i WHERE i.trace_id = p.trace_id AND i.step = w.step), 0) / 1e6,
         coalesce((SELECT i.ns FROM idle_in AS i WHERE i.trace_id = p.trace_id AND i.step = m.median_step), 0) / 1e6)
    AS title,
  printf('step_windows WHERE trace_id = %d: slow steps %s; the slowest: ts %d..%d', p.trace_id, p.step_list,
         w.w_ts, w.w_end) AS evidence,
  CASE WHEN w.step = (SELECT min(x.step) FROM d AS x WHERE x.trace_id = p.trace_id)
       THEN 'The first step is warm-up (allocator, autotuning, compilation): profile after it with '
            || 'schedule(wait=1, warmup=1, active=N); then compare the remaining slow steps with a median one.'
       ELSE 'Compare a slow step with a median one: idle_gaps in both windows, data loading, syncs, garbage '
            || 'collection or checkpointing that run only in some steps.' END AS advice
FROM per_trace AS p
JOIN med AS m ON m.trace_id = p.trace_id
JOIN slow AS w ON w.trace_id = p.trace_id AND w.worst = 1
JOIN advise_traces AS a ON a.trace_id = p.trace_id
