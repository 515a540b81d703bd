-- Invariant: events.id is ordered by (trace, thread, ts): traces in id order, each thread's events
-- contiguous, and ts non-decreasing within a thread. Rows returned = violations.
SELECT id AS event_id, trace_id, thread_id, ts, prev_trace_id, prev_thread_id, prev_ts
FROM (
  SELECT id, trace_id, thread_id, ts,
         lag(trace_id) OVER w AS prev_trace_id,
         lag(thread_id) OVER w AS prev_thread_id,
         lag(ts) OVER w AS prev_ts,
         count(*) OVER (PARTITION BY thread_id ORDER BY id ROWS UNBOUNDED PRECEDING) AS nth,
         lag(thread_id) OVER w IS NOT thread_id AS starts_run
  FROM events
  WINDOW w AS (ORDER BY id)
)
WHERE prev_trace_id > trace_id
   OR (prev_thread_id = thread_id AND prev_ts > ts)
   OR (starts_run AND nth > 1);
