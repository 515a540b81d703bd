-- combine: top_kernels
-- The traces' per-name calls, totals and maxima (top_kernels.partial.sql) summed by name; the
-- average and the share computed from the integer sums as the query computes them.
WITH k AS (
  SELECT name, max(short_name) AS short_name, sum(calls) AS calls, sum(total_dur) AS total_dur,
         max(max_dur) AS max_dur
  FROM partial
  GROUP BY name
)
SELECT
  name,
  short_name,
  calls,
  total_dur,
  total_dur / calls AS avg_dur,
  max_dur,
  round(100.0 * total_dur / sum(total_dur) OVER (), 2) AS pct
FROM k
ORDER BY total_dur DESC, name
LIMIT coalesce(:limit, 20);
