-- Case: begin_end_pairs
-- Checks B/E duration events: each E closes the most recent open B on the SAME (pid, tid) track;
-- the pair becomes one events row with ph 'B', ts of the B, dur = E.ts - B.ts, name/cat/args of B.
--   tid 1: outer B@0 .. E@40 -> dur 40000; inner B@5 .. E@15 -> dur 10000 (the E@3 belongs to tid 2);
--   tid 2: other_thread B@1 .. E@3 -> dur 2000.
--   The E@50 on tid 1 has no open B -> not a row, import_stats unmatched_end = 1.
--   never_closed B@60 has no E -> a row with dur NULL, unmatched_begin = 1.
-- Nesting (matched slices): outer > inner > x_in_inner (X [6,8)).
SELECT name, ph, cat, tid, ts, dur, (SELECT args FROM event_args WHERE event_id = events.id) AS args
FROM events
ORDER BY tid, ts;

SELECT e.name, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
WHERE e.dur IS NOT NULL
ORDER BY e.tid, e.ts;

SELECT name, value
FROM import_stats
WHERE name IN ('unmatched_begin', 'unmatched_end')
ORDER BY name;

SELECT event_count FROM traces ORDER BY id;
