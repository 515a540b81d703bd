-- Case: unknown_phase_and_cat
-- Checks: an unknown phase letter ("Z") is stored generically as an events row (ph 'Z', dur NULL
-- since it has none, args kept) and counted once in import_stats unknown_phases (exactly one such
-- event, so per-event and per-letter counts agree); an unknown category is stored verbatim.
-- threads.kind: a track with only unknown categories -> 'other'; cpu_op -> 'cpu'.
SELECT e.name, e.ph, e.cat, e.ts, e.dur, (SELECT args FROM event_args WHERE event_id = e.id) AS args, t.kind
FROM events AS e JOIN threads AS t ON t.id = e.thread_id
ORDER BY e.ts;

SELECT name, value
FROM import_stats
WHERE name = 'unknown_phases'
ORDER BY name;

SELECT event_count FROM traces ORDER BY id;
