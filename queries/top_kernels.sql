-- name: top_kernels
-- description: GPU kernels with the largest total time: short name, calls, total / average / longest (ns), share of all kernel time.
-- param :limit 20 — number of rows
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- Reads the kernels view (a range of events: see event_ranges) once; the share's denominator is the
-- sum over all names of the grouped totals. short_name: the readable name (short_names table).
SELECT
  name,
  (SELECT s.short_name FROM short_names AS s WHERE s.name = kernels.name) AS short_name,
  count(*) AS calls,
  sum(dur) AS total_dur,
  sum(dur) / count(*) AS avg_dur,
  max(dur) AS max_dur,
  round(100.0 * sum(dur) / sum(sum(dur)) OVER (), 2) AS pct
FROM kernels
WHERE :trace_id IS NULL OR trace_id = :trace_id
GROUP BY name
ORDER BY total_dur DESC, name
LIMIT coalesce(:limit, 20);
