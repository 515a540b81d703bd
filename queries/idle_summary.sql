-- name: idle_summary
-- description: GPU idle time per device and cause (host: the CPU launched late; device: queued or launch latency; unknown: no launch found), as a share of the device's active span.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :min_dur 0 (number) — ignore gaps shorter than this many ns
WITH span AS (
  SELECT trace_id, device, min(gpu_ts) AS start_ts, max(gpu_ts + gpu_dur) AS end_ts
  FROM op_kernel_links                -- one row per GPU op (materialised; no names needed)
  WHERE :trace_id IS NULL OR trace_id = :trace_id
  GROUP BY trace_id, device
)
SELECT
  g.trace_id,
  g.device,
  g.cause,
  count(*) AS gaps,
  sum(g.dur) AS idle_dur,
  sum(g.dur) / count(*) AS avg_gap,
  max(g.dur) AS max_gap,
  round(100.0 * sum(g.dur) / max(s.end_ts - s.start_ts, 1), 2) AS pct_of_span
FROM idle_gaps AS g
JOIN span AS s ON s.trace_id = g.trace_id AND s.device IS g.device
WHERE (:trace_id IS NULL OR g.trace_id = :trace_id)
  AND g.dur >= coalesce(:min_dur, 0)
GROUP BY g.trace_id, g.device, g.cause
ORDER BY g.trace_id, g.device, idle_dur DESC;
