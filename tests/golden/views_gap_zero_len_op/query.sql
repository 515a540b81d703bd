-- Case: views_gap_zero_len_op
-- A zero-length GPU op inside an idle interval (2020/21 Kineto files write "dur": 0 for sub-us kernels:
-- 309 in kineto_tbplugin_resnet50_2020_array_format, 636 in the 2021 resnet50 trace).
-- Rule (DESIGN idle_gaps; view header): one row per MAXIMAL interval in which no GPU op runs. Z [150,150)
-- runs during no interval, so device 0 is idle over all of [110,200): ONE gap, prev A, next B. (Numbering
-- starts and ends separately, nsys-style, splits it at Z into [110,150) and [150,200).)
SELECT g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name, g.cause
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
ORDER BY g.device, g.ts;
