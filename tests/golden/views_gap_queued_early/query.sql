-- Case: views_gap_queued_early
-- GPU gaps where the next op had already been issued (cause 'device'): the host launched k1 (95 us)
-- and k2 (106 us, on stream 8, e.g. held back by an event dependency) long before they ran.
-- Rule (DESIGN idle_gaps): 'host' only when the next op's launch call started AFTER the gap began,
-- else 'device'.
--   [250,300)  next k2, launched at 106 <= 250 -> device; host_event_id = innermost cpu_op running on
--              the launching thread at 250: optimizer_step [240,500).
--   [320,400)  next k3, launched at exactly 320 = the gap start: not after -> device; at 320 the host
--              runs optimizer_step > aten::add_ [318,330) > cudaLaunchKernel [320,325): innermost cpu_op
--              = aten::add_.
-- op_kernels.launch_delay (signed) = gpu_ts - launch end: k2 300000 - 110000 = 190000.
SELECT g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name, g.next_launch_ts,
       g.cause, h.name AS host_op
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
ORDER BY g.device, g.ts;

SELECT gpu_name, stream, launch_ts, launch_dur, op_name, top_op_name, launch_delay
FROM op_kernels
ORDER BY gpu_ts;
