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
-- How: the GPU ops are read trace by trace (traces in id order, each one's ops by their id ranges in
-- event_ranges), so a trace whose ops all run on one device gets its figures without a sort; only
-- the traces with several devices (or NULL and non-NULL ones) are grouped by device.
WITH per_trace AS MATERIALIZED (
  SELECT t.id AS trace_id, min(o.device) AS dmin, max(o.device) AS dmax, count(o.device) AS with_device,
         count(*) AS gpu_ops, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts) AS gpu_span_ns
  FROM traces AS t                    -- (CROSS JOIN: traces outermost, so the GROUP BY needs no sort)
  CROSS JOIN event_ranges AS r ON r.trace_id = t.id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE o.gpu_ts IS NOT NULL AND o.gpu_dur >= 0 AND (:trace_id IS NULL OR t.id = :trace_id)
  GROUP BY t.id
),
spans AS MATERIALIZED (
  SELECT trace_id, dmin AS device, gpu_ops, gpu_span_ns
  FROM per_trace
  WHERE with_device = 0 OR (with_device = gpu_ops AND dmin = dmax)  -- one device (NULL included)
  UNION ALL
  SELECT p.trace_id, o.device, count(*), max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts)
  FROM per_trace AS p
  CROSS JOIN event_ranges AS r ON r.trace_id = p.trace_id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE NOT (p.with_device = 0 OR (p.with_device = p.gpu_ops AND p.dmin = p.dmax))
    AND o.gpu_ts IS NOT NULL AND o.gpu_dur >= 0
  GROUP BY p.trace_id, o.device
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
