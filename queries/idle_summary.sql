-- name: idle_summary
-- description: GPU idle time per device and cause (host: the CPU launched late; device: queued or launch latency; unknown: no launch found), as a share of the device's active span.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :min_dur 0 (number) — ignore gaps shorter than this many ns
WITH span AS MATERIALIZED (
  SELECT trace_id, device, min(gpu_ts) AS start_ts, max(gpu_ts + gpu_dur) AS end_ts
  FROM op_kernel_links                -- one row per GPU op: its (trace_id, device, gpu_ts, gpu_dur, ...)
  WHERE :trace_id IS NULL OR trace_id = :trace_id  -- index, read in order (no sort, no names)
  GROUP BY trace_id, device
),
per AS MATERIALIZED (                 -- per device and cause: read in the order of the
  SELECT trace_id, device, cause,     -- (trace_id, device, cause, ts, dur) index (no sort)
         count(*) AS gaps, sum(dur) AS idle_dur, max(dur) AS max_gap
  FROM idle_gaps
  WHERE (:trace_id IS NULL OR trace_id = :trace_id)
    AND dur >= coalesce(:min_dur, 0)
  GROUP BY trace_id, device, cause
)
SELECT
  g.trace_id,
  g.device,
  g.cause,
  g.gaps,
  g.idle_dur,
  g.idle_dur / g.gaps AS avg_gap,
  g.max_gap,
  round(100.0 * g.idle_dur / max(s.end_ts - s.start_ts, 1), 2) AS pct_of_span
FROM per AS g
JOIN span AS s ON s.trace_id = g.trace_id AND s.device IS g.device
ORDER BY g.trace_id, g.device, g.idle_dur DESC;
