-- Case: views_gap_zero_len_edge
-- Zero-length GPU ops at the edges of a device's window. Rule (DESIGN idle_gaps): gaps lie inside
-- [first GPU op start, last GPU op end]; Z0 [50,50) is the first GPU op and Z1 [130,130) the last, so
-- the window is [50,130) and the device is idle over [50,100) (prev Z0, next C) and [110,130)
-- (prev C, next Z1). The issue's invariant says the same: sum(idle_gaps.dur) + busy union (10 us)
-- = last end - first start (80 us). Zero-length ops split no gap (views_gap_zero_len_op), but they do
-- bound the window.
SELECT g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name, g.cause
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
ORDER BY g.device, g.ts;

SELECT o.device, max(o.end_ts) - min(o.ts) AS span,
       (SELECT coalesce(sum(i.dur), 0) FROM idle_gaps AS i WHERE i.device = o.device) AS idle
FROM gpu_ops AS o GROUP BY o.device ORDER BY o.device;
