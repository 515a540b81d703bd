-- Invariant: traces.event_count and threads.event_count equal the rows in events, and every event
-- lies inside its trace's [start_ts, end_ts]. Rows returned = violations.
SELECT 'traces.event_count' AS what, t.id AS row_id, t.event_count AS stored,
       (SELECT count(*) FROM events AS e WHERE e.trace_id = t.id) AS actual
FROM traces AS t
WHERE t.event_count IS NOT (SELECT count(*) FROM events AS e WHERE e.trace_id = t.id)
UNION ALL
SELECT 'threads.event_count', th.id, th.event_count,
       (SELECT count(*) FROM events AS e WHERE e.thread_id = th.id)
FROM threads AS th
WHERE th.event_count IS NOT (SELECT count(*) FROM events AS e WHERE e.thread_id = th.id)
UNION ALL
SELECT 'event outside [start_ts, end_ts]', e.id, e.ts, e.ts + coalesce(e.dur, 0)
FROM events AS e
JOIN traces AS t ON t.id = e.trace_id
WHERE e.ts < t.start_ts OR e.ts + coalesce(e.dur, 0) > t.end_ts;
