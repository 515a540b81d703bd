-- Invariant: every non-NULL flows.src_event_id / dst_event_id names an existing event of the same
-- trace, and a flow has at least one end (a point, maybe without a valid ts). Rows returned = violations.
SELECT f.id AS flow_id_row, f.trace_id, f.cat, f.flow_id, f.src_event_id, f.dst_event_id,
       s.trace_id AS src_trace_id, d.trace_id AS dst_trace_id
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
WHERE (f.src_event_id IS NOT NULL AND (s.id IS NULL OR s.trace_id IS NOT f.trace_id))
   OR (f.dst_event_id IS NOT NULL AND (d.id IS NULL OR d.trace_id IS NOT f.trace_id))
   OR (f.src_thread_id IS NULL AND f.dst_thread_id IS NULL);
