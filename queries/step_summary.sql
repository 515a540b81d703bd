-- name: step_summary
-- description: Step time per trace: number of ProfilerSteps and the minimum, median, mean and maximum of their GPU windows (as step_breakdown's window_ns), with the slowest step, so a slow or jittery step stands out.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
--
-- A step's time is its window (step_windows: from its CPU start, or the previous window's end if
-- later, to the later of its CPU end and the end of the last GPU op it launched). Steps whose
-- annotation has no duration are left out. Columns: steps, min_ns, median_ns (the middle value; the
-- mean of the two middle ones, truncated to integer ns, for an even count), mean_ns (truncated),
-- max_ns, slowest_step (the N of the step with max_ns; the first one on a tie), spread_pct
-- ((max_ns - min_ns) / median_ns x 100, rounded to 2 decimals). A trace without steps gives no row.
WITH w AS MATERIALIZED (
  SELECT trace_id, step, w_end - w_ts AS ns
  FROM step_windows
  WHERE w_end IS NOT NULL AND (:trace_id IS NULL OR trace_id = :trace_id)
),
r AS MATERIALIZED (
  SELECT trace_id, step, ns,
         row_number() OVER (PARTITION BY trace_id ORDER BY ns, step) AS i,
         count(*) OVER (PARTITION BY trace_id) AS n
  FROM w
),
m AS (
  SELECT trace_id, sum(ns) / count(*) AS median_ns
  FROM r
  WHERE i IN ((n + 1) / 2, (n + 2) / 2)
  GROUP BY trace_id
)
SELECT
  r.trace_id,
  t.rank,
  count(*) AS steps,
  min(r.ns) AS min_ns,
  m.median_ns,
  sum(r.ns) / count(*) AS mean_ns,
  max(r.ns) AS max_ns,
  (SELECT x.step FROM r AS x WHERE x.trace_id = r.trace_id ORDER BY x.ns DESC, x.step LIMIT 1) AS slowest_step,
  round(100.0 * (max(r.ns) - min(r.ns)) / nullif(m.median_ns, 0), 2) AS spread_pct
FROM r
JOIN m ON m.trace_id = r.trace_id
JOIN traces AS t ON t.id = r.trace_id
GROUP BY r.trace_id
ORDER BY r.trace_id;
