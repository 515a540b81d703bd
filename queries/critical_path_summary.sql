-- name: critical_path_summary
-- description: What bounds a window (critical_path, written by `tracesql critical-path`): the share of the path per bound_by (cpu, gpu_compute, gpu_communication, launch_overhead, kernel_kernel_overhead, sync, data_loading), or the ops and GPU ops that take most of it.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :window NULL — only this window ('step 3', 'FROM..TO', 'trace'); every window written when NULL
-- param :by bound_by {bound_by|op} — 'bound_by': one row per category; 'op': the events on the path by name
-- param :limit 20 (integer) — by=op: rows per window (-1: all)
--
-- Columns: trace_id, window, bound_by, name, kind, pieces (rows of critical_path), ns, pct (ns / the
--   path's length x 100; the path's length is the window's), largest first.
-- by=bound_by: one row per bound_by of each window (name and kind NULL); a window's pct add up to 100.
-- by=op: name is the CPU op, runtime call or GPU op the path runs through (its own time only:
--   edge_kind 'op'), kind 'cpu' or the GPU op's kind ('kernel', 'memcpy', 'memset').
WITH path AS (
  SELECT * FROM critical_path
  WHERE (:trace_id IS NULL OR trace_id = :trace_id)
    AND (:window IS NULL OR window = :window)
),
lengths AS (
  SELECT trace_id, window, sum(dur) AS window_ns FROM path GROUP BY trace_id, window
),
by_bound AS (
  SELECT p.trace_id, p.window, p.bound_by, NULL AS name, NULL AS kind, count(*) AS pieces,
         sum(p.dur) AS ns, round(100.0 * sum(p.dur) / l.window_ns, 2) AS pct
  FROM path AS p JOIN lengths AS l USING (trace_id, window)
  GROUP BY p.trace_id, p.window, p.bound_by
),
by_op AS (
  SELECT p.trace_id, p.window, e.name,
         CASE WHEN g.gpu_kind IS NOT NULL THEN g.gpu_kind ELSE 'cpu' END AS kind,
         p.bound_by, count(*) AS pieces, sum(p.dur) AS ns,
         round(100.0 * sum(p.dur) / l.window_ns, 2) AS pct
  FROM path AS p
  JOIN lengths AS l USING (trace_id, window)
  JOIN events AS e ON e.id = p.event_id
  LEFT JOIN op_kernel_links AS g ON g.gpu_event_id = p.event_id
  WHERE p.edge_kind = 'op'
  GROUP BY p.trace_id, p.window, e.name, kind, p.bound_by
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY trace_id, window ORDER BY ns DESC, name, kind) AS rn
  FROM by_op
)
SELECT trace_id, window, bound_by, name, kind, pieces, ns, pct
FROM by_bound
WHERE coalesce(:by, 'bound_by') = 'bound_by'
UNION ALL
SELECT trace_id, window, bound_by, name, kind, pieces, ns, pct
FROM ranked
WHERE :by = 'op' AND (coalesce(:limit, 20) < 0 OR rn <= coalesce(:limit, 20))
ORDER BY trace_id, window, ns DESC, bound_by, name, kind;
