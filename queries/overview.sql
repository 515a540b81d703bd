-- name: overview
-- description: One row per trace and GPU device: the file, rank, device (name, memory, SMs from the trace header), trace and GPU spans, steps, GPU ops, and GPU busy time and % of the span.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
--
-- A trace without GPU ops gives one row with device NULL. Columns:
--   trace_id, file (traces.path), rank, world_size, events (traces.event_count)
--   trace_span_ns   traces.end_ts - traces.start_ts (every event)
--   steps           ProfilerStep#N annotations of the trace (steps view)
--   device, device_name, total_memory (bytes), num_sms: devices row of the trace header, when listed
--   gpu_ops         GPU ops (kernel, memcpy, memset) on the device
--   gpu_span_ns     first GPU op start to last GPU op end on the device (as gpu_utilization)
--   busy_ns         gpu_span_ns minus the device's idle_gaps: time at least one GPU op runs
--   busy_pct        busy_ns / gpu_span_ns x 100, rounded to 2 decimals
WITH spans AS MATERIALIZED (
  SELECT trace_id, device, count(*) AS gpu_ops,
         max(gpu_ts + gpu_dur) - min(gpu_ts) AS gpu_span_ns
  FROM op_kernel_links
  WHERE gpu_ts IS NOT NULL AND gpu_dur >= 0 AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY trace_id, device
),
idle AS (
  SELECT trace_id, device, sum(dur) AS idle_ns
  FROM idle_gaps
  WHERE dur > 0 AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY trace_id, device
),
step_counts AS (
  SELECT trace_id, count(*) AS steps FROM steps GROUP BY trace_id
)
SELECT
  t.id AS trace_id,
  t.path AS file,
  t.rank,
  t.world_size,
  t.event_count AS events,
  t.end_ts - t.start_ts AS trace_span_ns,
  coalesce(sc.steps, 0) AS steps,
  s.device,
  d.name AS device_name,
  d.total_memory,
  d.num_sms,
  coalesce(s.gpu_ops, 0) AS gpu_ops,
  s.gpu_span_ns,
  s.gpu_span_ns - coalesce(i.idle_ns, 0) AS busy_ns,
  CASE WHEN s.gpu_span_ns > 0
       THEN round(100.0 * (s.gpu_span_ns - coalesce(i.idle_ns, 0)) / s.gpu_span_ns, 2) END AS busy_pct
FROM traces AS t
LEFT JOIN spans AS s ON s.trace_id = t.id
LEFT JOIN idle AS i ON i.trace_id = s.trace_id AND i.device IS s.device
LEFT JOIN step_counts AS sc ON sc.trace_id = t.id
LEFT JOIN devices AS d ON d.trace_id = t.id AND d.device = s.device
                      AND d.rowid = (SELECT min(x.rowid) FROM devices AS x WHERE x.trace_id = t.id AND x.device = s.device)
WHERE :trace_id IS NULL OR t.id = :trace_id
ORDER BY t.id, s.device;
