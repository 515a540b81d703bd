-- Invariant: every events.parent_id names an existing slice (it has a dur) of the same trace and
-- thread that contains the child: parent.ts <= child.ts AND child.ts + coalesce(child.dur, 0) <=
-- parent.ts + parent.dur; an event is never its own parent. Rows returned = violations.
SELECT c.id AS event_id, c.parent_id, c.thread_id, p.thread_id AS parent_thread_id,
       c.ts, c.dur, p.ts AS parent_ts, p.dur AS parent_dur
FROM events AS c
LEFT JOIN events AS p ON p.id = c.parent_id
WHERE c.parent_id IS NOT NULL
  AND (p.id IS NULL
       OR c.parent_id = c.id
       OR p.trace_id IS NOT c.trace_id
       OR p.thread_id IS NOT c.thread_id
       OR p.dur IS NULL
       OR NOT (p.ts <= c.ts AND c.ts + coalesce(c.dur, 0) <= p.ts + p.dur));
