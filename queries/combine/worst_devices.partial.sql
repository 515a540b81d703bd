-- partial: worst_devices
-- Per partition: its devices as overview finds them (kind 'device': span and idle time) and its
-- collective ops (kind 'op': process group, seq, start); trace_rank is traces.rank (NULL where the
-- trace has none: the combining query puts the job's trace id in its place, as collective_ops does).
WITH per_trace AS MATERIALIZED (
  SELECT t.id AS trace_id, min(o.device) AS dmin, max(o.device) AS dmax, count(o.device) AS with_device,
         count(*) AS gpu_ops, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts) AS gpu_span_ns
  FROM traces AS t                    -- (CROSS JOIN: traces outermost, so the GROUP BY needs no sort)
  CROSS JOIN event_ranges AS r ON r.trace_id = t.id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE o.gpu_ts IS NOT NULL AND o.gpu_dur >= 0
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
  WHERE dur > 0
  GROUP BY trace_id, device
)
SELECT 'device' AS kind, t.id AS trace_id, t.rank AS trace_rank, s.device, s.gpu_span_ns, i.idle_ns,
       NULL AS process_group, NULL AS seq, NULL AS ts
FROM traces AS t
LEFT JOIN spans AS s ON s.trace_id = t.id
LEFT JOIN idle AS i ON i.trace_id = s.trace_id AND i.device IS s.device
UNION ALL
SELECT 'op', o.trace_id, t.rank, NULL, NULL, NULL, o.process_group, o.seq, o.ts
FROM collective_ops AS o
JOIN traces AS t ON t.id = o.trace_id;
