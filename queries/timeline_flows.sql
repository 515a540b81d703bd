-- name: timeline_flows
-- description: The arrows `tracesql export --with-trace` draws between a trace's events and its overlay tracks (timeline_overlay): from the CPU op blamed for each GPU idle gap to the gap, and along the critical path from each event on it to the next.
-- param :trace_id NULL (integer) — only this trace (traces.id); the first trace when NULL
--
-- One row per arrow, by kind then time. Each end is an event of the trace (src_event_id /
-- dst_event_id, at that event's ts) or a slice of an overlay track (dst_track, at dst_ts).
--   kind 'idle_cause'     idle_gaps.host_event_id (the CPU op the launching thread was running when
--                         the gap began; at its start) -> the gap on 'GPU D idle' (at its start)
--   kind 'critical_path'  each event the path of a window runs through -> the next one (critical_path
--                         in seq order; consecutive pieces of one event and pieces of no event skipped):
--                         from the last ns of the path's last piece on the event to the first ns of
--                         its first piece on the next, each kept inside its event. An arrow that would
--                         point back in time (the importer and the viewers bind flows forward) is left out.
WITH tr AS (
  SELECT coalesce(:trace_id, (SELECT min(id) FROM traces)) AS trace_id
),
idle AS (
  SELECT 'idle_cause' AS kind, g.host_event_id AS src_event_id, h.ts AS src_ts, NULL AS dst_event_id,
         'GPU ' || coalesce(g.device, '?') || ' idle' AS dst_track, g.ts AS dst_ts
  FROM idle_gaps AS g CROSS JOIN tr JOIN events AS h ON h.id = g.host_event_id
  WHERE g.trace_id = tr.trace_id AND g.dur > 0
),
path AS (
  SELECT p.window, p.seq, p.event_id, p.ts, p.ts + p.dur AS end_ts,
         lag(p.event_id) OVER (PARTITION BY p.window ORDER BY p.seq) AS prev_event_id,
         lag(p.ts + p.dur) OVER (PARTITION BY p.window ORDER BY p.seq) AS prev_end_ts
  FROM critical_path AS p CROSS JOIN tr
  WHERE p.trace_id = tr.trace_id AND p.event_id IS NOT NULL
),
-- From the end of the last piece of one event to the start of the first piece of the next, each time
-- kept inside its event (its last / first ns), where the path runs through that event itself.
steps AS (
  SELECT 'critical_path' AS kind, p.prev_event_id AS src_event_id,
         max(s.ts, min(p.prev_end_ts, s.ts + coalesce(s.dur, 0)) - 1) AS src_ts,
         p.event_id AS dst_event_id, NULL AS dst_track,
         max(d.ts, min(p.ts, d.ts + coalesce(d.dur, 0) - 1)) AS dst_ts
  FROM path AS p JOIN events AS s ON s.id = p.prev_event_id JOIN events AS d ON d.id = p.event_id
  WHERE p.prev_event_id <> p.event_id
)
SELECT kind, src_event_id, src_ts, dst_event_id, dst_track, dst_ts FROM idle
UNION ALL
SELECT kind, src_event_id, src_ts, dst_event_id, dst_track, dst_ts FROM steps WHERE src_ts <= dst_ts
ORDER BY kind DESC, src_ts, dst_ts;
