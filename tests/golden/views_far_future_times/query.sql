-- Case: views_far_future_times
-- The trace of views_idle_gaps_causes with baseTimeNanoseconds 2.4e18 (year 2046): beyond +-2^61 ns
-- the importer leaves op_kernel_links, idle_gaps and stream_idle_gaps to their SQL (sums could leave
-- int64 there, which SQLite turns into REAL), and says so in import_stats (views_by_sql = 1).
-- Times relative to the base: the same gaps, causes and host ops as views_idle_gaps_causes, worked
-- out there:
--   device 0 [120,150) unknown | [160,200) device, sync_op | [210,280) host, sync_op
--   device 1 [300,350) host, no host op.
-- op_kernel_links: the six kernels with their launches (d0k2's correlation 99 has none), delays
-- = kernel start - launch end: d0k1 100-55 = 45 us, d0k3 200-135 = 65, d0k4 280-270 = 10,
-- d1k1 100-65 = 35, d1k2 350-325 = 25; launch_name_id 8, the first cudaLaunchKernel (NULL for d0k2).
-- stream_idle_gaps (one stream per device): d0k1 -> d0k2 120..150: no launch, 30 us is not < 30:
-- other; d0k2 -> d0k3 160..200: launched at 130, before 160: other (40 us); d0k3 -> d0k4 210..280:
-- launched at 265 > 210: host_wait; d1k1 -> d1k2 300..350: launched at 320 > 300: host_wait.
SELECT name, value, severity FROM import_stats WHERE name = 'views_by_sql';

SELECT g.device, g.ts - t.base_time_ns AS ts, g.dur, g.end_ts - t.base_time_ns AS end_ts, p.name AS prev_name,
       n.name AS next_name, g.next_launch_ts - t.base_time_ns AS next_launch_ts, l.tid AS launch_tid, g.cause,
       h.name AS host_op
FROM idle_gaps AS g
JOIN traces AS t ON t.id = g.trace_id
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS l ON l.id = g.next_launch_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
ORDER BY g.device, g.ts;

SELECT k.device, k.stream, n.name AS kernel, k.gpu_ts - t.base_time_ns AS gpu_ts,
       k.launch_ts - t.base_time_ns AS launch_ts, k.launch_delay, o.name AS op, k.launch_name_id
FROM op_kernel_links AS k
JOIN traces AS t ON t.id = k.trace_id
JOIN events AS n ON n.id = k.gpu_event_id
LEFT JOIN events AS o ON o.id = k.op_event_id
ORDER BY k.device, k.gpu_ts;

SELECT s.device, s.stream, s.ts - t.base_time_ns AS ts, s.dur, p.name AS prev_name, n.name AS next_name,
       s.category
FROM stream_idle_gaps AS s
JOIN traces AS t ON t.id = s.trace_id
JOIN events AS p ON p.id = s.prev_event_id
JOIN events AS n ON n.id = s.next_event_id
ORDER BY s.device, s.stream, s.ts;

-- gpu_segments, made by its SQL here too: no two kernels of a device overlap, so one piece per
-- kernel, named by its own name id (gpu_op_names: d0k1..d0k4 1-4, d1k1 5, d1k2 6); seq in (device,
-- ts) order: device 0's four pieces 1-4, device 1's 5-6.
SELECT g.ts - t.base_time_ns AS ts, g.seq, g.device, g.dur, g.name_ids
FROM gpu_segments AS g JOIN traces AS t ON t.id = g.trace_id
ORDER BY g.trace_id, g.ts, g.seq;
