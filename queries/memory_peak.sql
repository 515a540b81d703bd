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
-- The peak, its event and the levels come from memory_devices (computed at import), so this reads
-- one row per device and the peak's event, not the events (a device whose events have no time or
-- no level has no row).
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
  d.start_allocated,
  d.end_allocated,
  CASE WHEN d.without_total > 0 THEN 'cumulative' ELSE 'trace' END AS source
FROM memory_devices AS d
JOIN events AS e ON e.id = d.peak_event_id
JOIN memory_events AS p ON p.id = e.id AND p.trace_id = e.trace_id
LEFT JOIN events AS op ON op.id = p.cpu_op_id
LEFT JOIN events AS top ON top.id = e.top_cpu_op_id
WHERE (:trace_id IS NULL OR d.trace_id = :trace_id) AND d.first_ts IS NOT NULL
ORDER BY d.trace_id, d.device_type, d.device_id;
