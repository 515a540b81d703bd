-- Case: views_two_streams_overlap
-- Device 0, two streams (7: A [100,150) C [200,260) L [300,500); 8: B [140,210) S [310,320)
-- T [400,410) E [520,530), us). Device 1: X1 [120,300) on stream 7 and Y1 [150,160) on stream 9.
-- Rule (DESIGN idle_gaps): a gap is a maximal interval inside [first op start, last op end] of a
-- device in which no GPU op of ANY stream of that device runs. So:
--   A/B and B/C overlap across streams: no gap there; S and T lie inside L: no gap between them,
--   although stream 8 alone is idle from 320 to 400 (a per-stream or "previous op's end" rule would
--   invent one); gaps are only [260,300) (prev C, next L) and [500,520) (prev L: the op whose end opens
--   the gap, next E). Device 1 has none, even though its X1 overlaps device 0's gap [260,300): gaps
--   are per device. No op has a launch: cause 'unknown', launch and host columns NULL.
--   Per device: span = last end - first start; union of busy time (device 0: 160+200+10 = 370 us)
--   plus gaps (60 us) = span (430 us).
-- stream_idle_gaps (contrast, ANALYSES 3): per stream, consecutive ops by start, dur = next start -
-- previous end; no launch -> never host_wait; every interval >= 30 us -> 'other'.
SELECT g.trace_id, g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name,
       g.next_launch_event_id, g.next_launch_ts, g.cause, g.host_event_id
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
ORDER BY g.trace_id, g.device, g.ts;

SELECT o.device, max(o.end_ts) - min(o.ts) AS span,
       (SELECT coalesce(sum(i.dur), 0) FROM idle_gaps AS i WHERE i.device = o.device) AS idle
FROM gpu_ops AS o
GROUP BY o.device
ORDER BY o.device;

SELECT s.device, s.stream, s.ts, s.dur, s.end_ts, p.name AS prev_name, n.name AS next_name, s.category
FROM stream_idle_gaps AS s
JOIN events AS p ON p.id = s.prev_event_id
JOIN events AS n ON n.id = s.next_event_id
ORDER BY s.device, s.stream, s.ts;
