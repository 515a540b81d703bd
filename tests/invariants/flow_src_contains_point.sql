-- Invariant: a flow's start binds to a slice on the start point's own thread that contains the
-- point (ts <= src_ts < ts + dur, or src_ts = ts for a zero-length slice); the end binds to a
-- slice on the end point's thread. Rows returned = violations.
SELECT f.id AS flow_row, f.cat, f.flow_id, f.src_event_id, f.src_ts, s.ts, s.dur,
       f.src_thread_id, s.thread_id AS src_event_thread_id,
       f.dst_event_id, f.dst_thread_id, d.thread_id AS dst_event_thread_id
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
WHERE (f.src_event_id IS NOT NULL
       AND (s.thread_id IS NOT f.src_thread_id
            OR s.dur IS NULL
            OR NOT (s.ts <= f.src_ts AND (f.src_ts < s.ts + s.dur OR (s.dur = 0 AND f.src_ts = s.ts)))))
   OR (f.dst_event_id IS NOT NULL AND (d.thread_id IS NOT f.dst_thread_id OR d.dur IS NULL));
