-- Case: metadata_events
-- Checks: M events anywhere in traceEvents (before, between and after the events they describe)
-- fill processes.name/labels/sort_index and threads.name/sort_index; when the same
-- (name, pid, tid) M event occurs twice the LAST one in file order wins:
--   process_name pid 10: "python3" then "trainer" -> trainer
--   process_sort_index pid 0: 16777216 then 5000000 -> 5000000
--   thread_name (10, 11): "thread 11 (python3)" then "thread 11 (pt_main_thread)" -> the latter
-- Each of those three keys occurs exactly twice -> import_stats duplicate_metadata = 3 (same count
-- whether one counts repeated events or repeated keys).
-- "stream 7 " keeps its trailing space (length 9). process_sort_index on pid "Spans" (tid 0) applies
-- to the "Spans" process. M events are not events rows: event_count = 3.
-- Only processes/threads that carry events are selected (M-only tracks such as (10, 0) may or may
-- not get a threads row; that is not asserted).
SELECT pr.pid, pr.name, pr.labels, pr.sort_index
FROM processes AS pr
WHERE EXISTS (SELECT 1 FROM threads AS t JOIN events AS e ON e.thread_id = t.id
              WHERE t.process_id = pr.id)
ORDER BY pr.pid;

SELECT t.pid, t.tid, t.name, length(t.name) AS name_len, t.sort_index, t.kind
FROM threads AS t
WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.thread_id = t.id)
ORDER BY t.pid, t.tid;

SELECT event_count, (SELECT count(*) FROM events) AS n_events
FROM traces
ORDER BY id;

SELECT name, value
FROM import_stats
WHERE name = 'duplicate_metadata'
ORDER BY name;
