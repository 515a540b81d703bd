-- name: memory_peak
-- description: Peak allocated memory per device from the allocator's [memory] events (profile_memory), when it was reached and the op running then, with the peak reserved memory and the start and end levels.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
--
-- One row per device (device_type 0 CPU / 1 CUDA / 6 ROCm, device_id -1 for the CPU). allocated is
-- 'Total Allocated' after each event, or for traces without totals (before ~PyTorch 1.10) the
-- running sum of 'Bytes' from the trace's first event (source = 'cumulative': relative to the
-- unknown amount allocated before profiling started). See memory_timeline for the curve.
--   peak_allocated   the largest allocated value (bytes); peak_ts / peak_event_id: the first
--                    event reaching it
--   alloc_bytes      the Bytes of that event (the allocation that made the peak)
--   op_name          innermost CPU op running at that event (memory_events.cpu_op_id), NULL if none
--   top_op_name      outermost CPU op running then (the op the user called)
--   step             ProfilerStep number at the peak
--   reserved_at_peak 'Total Reserved' at that event; peak_reserved the largest over the trace
--   start_allocated / end_allocated  the level after the first / last event
WITH
mem AS MATERIALIZED (                  -- the allocator events (view memory_events), read once
  SELECT id, trace_id, ts, cpu_op_id, step, bytes, total_allocated, total_reserved, device_type, device_id
  FROM memory_events
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
-- allocated: Total Allocated, or (traces without totals) the running sum of Bytes per device over
-- the events without one (a window pass only over those: most traces have none).
cum AS MATERIALIZED (
  SELECT m.*,
         sum(m.bytes) OVER (PARTITION BY m.trace_id, m.device_type, m.device_id
                            ORDER BY m.ts, m.id ROWS UNBOUNDED PRECEDING) AS allocated,
         'cumulative' AS source
  FROM mem AS m
  WHERE m.total_allocated IS NULL
),
ev AS NOT MATERIALIZED (
  SELECT m.*, m.total_allocated AS allocated, 'trace' AS source
  FROM mem AS m
  WHERE m.total_allocated IS NOT NULL
  UNION ALL
  SELECT * FROM cum
),
-- Per device (memory_devices: its events, span, and whether totals are missing), the maxima of
-- its events into a JSON array, from one scan of the events grouped by device (a scan per device
-- grows with the square of the traces in the database); they are read from it when they are
-- integers (exact), else scanned for again.
maxima AS MATERIALIZED (
  SELECT trace_id, device_type, device_id,
         json_array(max(allocated), max(total_reserved),
                    max(typeof(allocated) = 'real' OR typeof(total_reserved) = 'real')) AS st
  FROM ev
  GROUP BY trace_id, device_type, device_id
),
dev_scan AS MATERIALIZED (
  SELECT d.trace_id, d.device_type, d.device_id, d.events, d.first_ts, d.last_ts,
         CASE WHEN d.without_total > 0 THEN 'cumulative' ELSE 'trace' END AS source,
         coalesce(m.st, json_array(NULL, NULL, NULL)) AS st
  FROM memory_devices AS d
  LEFT JOIN maxima AS m
    ON m.trace_id = d.trace_id AND m.device_type IS d.device_type AND m.device_id IS d.device_id
  WHERE :trace_id IS NULL OR d.trace_id = :trace_id
),
per_device AS MATERIALIZED (
  SELECT d.trace_id, d.device_type, d.device_id, d.events,
         CASE WHEN d.st ->> 2 THEN (SELECT max(e.allocated) FROM ev AS e
                                    WHERE +e.trace_id = d.trace_id AND +e.device_type IS d.device_type
                                      AND +e.device_id IS d.device_id)
              ELSE d.st ->> 0 END AS peak_allocated,
         CASE WHEN d.st ->> 2 THEN (SELECT max(e.total_reserved) FROM ev AS e
                                    WHERE +e.trace_id = d.trace_id AND +e.device_type IS d.device_type
                                      AND +e.device_id IS d.device_id)
              ELSE d.st ->> 1 END AS peak_reserved,
         d.first_ts AS t0, d.last_ts AS t1, d.source
  FROM dev_scan AS d
),
-- The events at the peak, at the first and at the last time (one more scan; few rows).
cand AS MATERIALIZED (
  SELECT d.trace_id, d.device_type, d.device_id, e.id, e.ts, e.bytes, e.allocated,
         e.total_reserved, e.cpu_op_id, e.step,
         e.allocated = d.peak_allocated AS at_peak, e.ts = d.t0 AS at_first, e.ts = d.t1 AS at_last
  FROM ev AS e                        -- (the events scanned once, each one's device looked up)
  CROSS JOIN per_device AS d
  WHERE d.trace_id = e.trace_id AND d.device_type IS e.device_type AND d.device_id IS e.device_id
    AND (e.allocated = d.peak_allocated OR e.ts = d.t0 OR e.ts = d.t1)
),
-- The earliest (then lowest id) of each kind is kept (what = 1 peak, 2 first, 3 last: the
-- latest id at the last time).
marks AS (
  SELECT
    c.*, w.what,
    row_number() OVER (PARTITION BY c.trace_id, c.device_type, c.device_id, w.what
                       ORDER BY c.ts, CASE w.what WHEN 3 THEN -c.id ELSE c.id END) AS pick
  FROM cand AS c
  JOIN (SELECT 1 AS what UNION ALL SELECT 2 UNION ALL SELECT 3) AS w
    ON CASE w.what WHEN 1 THEN c.at_peak WHEN 2 THEN c.at_first ELSE c.at_last END
)
SELECT
  d.trace_id,
  d.device_type,
  d.device_id,
  d.events,
  d.peak_allocated,
  p.ts AS peak_ts,
  p.id AS peak_event_id,
  p.bytes AS alloc_bytes,
  op.name AS op_name,
  top.name AS top_op_name,
  p.step,
  p.total_reserved AS reserved_at_peak,
  d.peak_reserved,
  f.allocated AS start_allocated,
  l.allocated AS end_allocated,
  d.source
FROM per_device AS d
JOIN marks AS p
  ON p.trace_id = d.trace_id AND p.device_type IS d.device_type AND p.device_id IS d.device_id
 AND p.what = 1 AND p.pick = 1
JOIN marks AS f
  ON f.trace_id = d.trace_id AND f.device_type IS d.device_type AND f.device_id IS d.device_id
 AND f.what = 2 AND f.pick = 1
JOIN marks AS l
  ON l.trace_id = d.trace_id AND l.device_type IS d.device_type AND l.device_id IS d.device_id
 AND l.what = 3 AND l.pick = 1
LEFT JOIN events AS op ON op.id = p.cpu_op_id
LEFT JOIN events AS e ON e.id = p.id
LEFT JOIN events AS top ON top.id = e.top_cpu_op_id
ORDER BY d.trace_id, d.device_type, d.device_id;
