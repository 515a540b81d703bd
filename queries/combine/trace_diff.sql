-- combine: trace_diff
-- Two traces of the job compared (A = :a_trace, B = :b_trace: the job's trace ids, defaults as the
-- query's): the sides of trace_diff.partial.sql of those two partitions, then the query's own
-- matching and classification. (--against, two databases, does not apply to a partition directory.)
WITH
sides AS (
  SELECT
    coalesce(:a_trace, (SELECT min(trace_id) FROM partitions)) AS a_id,
    coalesce(:b_trace,
             (SELECT min(trace_id) FROM partitions
               WHERE trace_id > coalesce(:a_trace, (SELECT min(trace_id) FROM partitions))),
             (SELECT min(trace_id) FROM partitions)) AS b_id
),
a_rows AS (SELECT * FROM partial WHERE trace_id = (SELECT a_id FROM sides)),
b_rows AS (SELECT * FROM partial WHERE trace_id = (SELECT b_id FROM sides)),
-- Number of profiler steps per side (1 when per_step is off or a side has none).
steps AS (
  SELECT
    CASE WHEN coalesce(:per_step, 0) THEN max(1, coalesce((SELECT max(steps) FROM a_rows), 0)) ELSE 1 END AS a_steps,
    CASE WHEN coalesce(:per_step, 0) THEN max(1, coalesce((SELECT max(steps) FROM b_rows), 0)) ELSE 1 END AS b_steps
),
joined AS (
  SELECT kind, name, shapes, sum(an) AS an, sum(at) AS at, sum(bn) AS bn, sum(bt) AS bt
  FROM (
    SELECT kind, name, shapes, n AS an, t AS at, 0 AS bn, 0 AS bt FROM a_rows
    UNION ALL
    SELECT kind, name, shapes, 0, 0, n, t FROM b_rows
  )
  GROUP BY kind, name, shapes
),
scaled AS (
  -- Per step when asked: counts to 2 decimals, times in whole ns.
  SELECT
    j.kind, j.name, j.shapes, j.an, j.bn,
    CASE WHEN coalesce(:per_step, 0) THEN round(1.0 * j.an / s.a_steps, 2) ELSE j.an END AS a_count,
    CASE WHEN coalesce(:per_step, 0) THEN round(1.0 * j.bn / s.b_steps, 2) ELSE j.bn END AS b_count,
    j.at / s.a_steps AS a_time,
    j.bt / s.b_steps AS b_time
  FROM joined AS j, steps AS s
),
classified AS (
  SELECT
    *,
    b_time - a_time AS delta_time,
    CASE
      WHEN an = 0 THEN 'added'
      WHEN bn = 0 THEN 'removed'
      WHEN abs(b_time - a_time) >= coalesce(:min_delta, 0)
           AND b_time > a_time * (1 + coalesce(:tolerance_pct, 5) / 100.0) THEN 'slower'
      WHEN abs(b_time - a_time) >= coalesce(:min_delta, 0)
           AND b_time < a_time * (1 - coalesce(:tolerance_pct, 5) / 100.0) THEN 'faster'
      WHEN b_count > a_count THEN 'more_calls'
      WHEN b_count < a_count THEN 'fewer_calls'
      ELSE 'unchanged'
    END AS status
  FROM scaled
)
SELECT
  kind,
  name,
  shapes,
  a_count,
  b_count,
  b_count - a_count AS delta_count,
  a_time,
  b_time,
  delta_time,
  round(100.0 * delta_time / nullif(a_time, 0), 2) AS delta_pct,
  status
FROM classified
WHERE coalesce(:all, 0) OR status <> 'unchanged'
ORDER BY abs(delta_time) DESC, kind, name, shapes
LIMIT coalesce(:limit, 100);
