-- Case: views_idle_gaps_causes
-- All three causes and host_event_id (DESIGN idle_gaps). Host pid 100: thread 1 launches device 0's
-- kernels, thread 2 device 1's. Launches by correlation (no flows).
--   device 0 [120,150)  next d0k2 has correlation 99, which no runtime call carries: 'unknown';
--                       next_launch_* and host_event_id NULL.
--   device 0 [160,200)  next d0k3 launched at 130 <= 160: 'device'; at 160 thread 1 runs
--                       sync_op [145,260) > cudaDeviceSynchronize: host op = sync_op.
--   device 0 [210,280)  next d0k4 launched at 265 > 210: 'host'; host op at 210 = sync_op.
--   device 1 [300,350)  next d1k2 launched at 320 > 300: 'host'. Its launching thread 2 runs nothing
--                       at 300 (rank_op ended at 70, late_op starts at 310): host_event_id NULL, even
--                       though thread 1 runs busy_t1 [295,400) then.
-- Second query: per device, busy union + sum(gaps) = last end - first start
-- (device 0: 50 + 140 = 190 us; device 1: 210 + 50 = 260 us).
SELECT g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name,
       g.next_launch_ts, l.tid AS launch_tid, g.cause, h.name AS host_op
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS l ON l.id = g.next_launch_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
ORDER BY g.device, g.ts;

SELECT o.device, max(o.end_ts) - min(o.ts) AS span, sum(o.dur) AS busy,
       (SELECT sum(i.dur) FROM idle_gaps AS i WHERE i.device = o.device) AS idle,
       (SELECT count(*) FROM idle_gaps AS i WHERE i.device = o.device) AS gaps
FROM gpu_ops AS o
GROUP BY o.device
ORDER BY o.device;
