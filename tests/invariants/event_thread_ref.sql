-- Invariant: every events.thread_id names an existing threads row of the same trace, with the same
-- (pid, tid) as the event, whose process is of the same trace and pid. Rows returned = violations.
SELECT e.id AS event_id, e.trace_id, e.thread_id, e.pid, e.tid,
       t.trace_id AS thread_trace_id, t.pid AS thread_pid, t.tid AS thread_tid, p.pid AS process_pid
FROM events AS e
LEFT JOIN threads AS t ON t.id = e.thread_id
LEFT JOIN processes AS p ON p.id = t.process_id
WHERE t.id IS NULL
   OR t.trace_id IS NOT e.trace_id
   OR t.pid IS NOT e.pid
   OR t.tid IS NOT e.tid
   OR p.id IS NULL
   OR p.trace_id IS NOT t.trace_id
   OR p.pid IS NOT t.pid;
