-- name: memory_peak
-- description: Peak allocated memory per device from the allocator's [memory] events (profile_memory), when it was reached and the op running then, with the peak reserved memory and the start and end levels.
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
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
mem AS MATERIALIZED (                  -- the allocator events (view memory_events)
  SELECT id, trace_id, ts, cpu_op_id, step, bytes, total_allocated, total_reserved, device_type, device_id
  FROM memory_events
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
-- allocated: Total Allocated, or (traces without totals) the running sum of Bytes per device.
ev AS MATERIALIZED (
  SELECT m.*, m.total_allocated AS allocated, 'trace' AS source
  FROM mem AS m WHERE m.total_allocated IS NOT NULL
  UNION ALL
  SELECT m.*,
         sum(m.bytes) OVER (PARTITION BY m.trace_id, m.device_type, m.device_id
                            ORDER BY m.ts, m.id ROWS UNBOUNDED PRECEDING),
         'cumulative'
  FROM mem AS m WHERE m.total_allocated IS NULL
),
per_device AS (
  SELECT
    trace_id, device_type, device_id,
    count(*) AS events,
    max(allocated) AS peak_allocated,
    max(total_reserved) AS peak_reserved,
    min(ts) AS t0,
    max(ts) AS t1,
    min(source) AS source
  FROM ev
  GROUP BY trace_id, device_type, device_id
),
-- The events at the peak, at the first and at the last time; the earliest (then lowest id) of
-- each kind is kept (what = 1 peak, 2 first, 3 last).
marks AS (
  SELECT
    d.trace_id, d.device_type, d.device_id, w.what, e.id, e.ts, e.bytes, e.allocated,
    e.total_reserved, e.cpu_op_id, e.step,
    row_number() OVER (PARTITION BY d.trace_id, d.device_type, d.device_id, w.what
                       ORDER BY e.ts, CASE w.what WHEN 3 THEN -e.id ELSE e.id END) AS pick
  FROM per_device AS d
  JOIN (SELECT 1 AS what UNION ALL SELECT 2 UNION ALL SELECT 3) AS w
  JOIN ev AS e
    ON e.trace_id = d.trace_id AND e.device_type IS d.device_type AND e.device_id IS d.device_id
   AND CASE w.what WHEN 1 THEN e.allocated = d.peak_allocated
                   WHEN 2 THEN e.ts = d.t0
                   ELSE e.ts = d.t1 END
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
