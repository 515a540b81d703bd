-- Case: views_gap_slow_host
-- GPU gaps caused by a slow host (no flows: launches found by correlation). Thread (1,1) launches
-- k1..k4 on device 0; thread (1,2) runs other_thread_op [100,1000) us throughout (never the answer:
-- host_event_id looks at the LAUNCHING thread of the next op only).
-- Rule (DESIGN idle_gaps): cause 'host' when the next op's launch call started after the gap began;
-- host_event_id = innermost CPU op running on the launching thread when the gap began ([ts, end)).
--   [150,430)  after k1: the host sits in aten::nonzero > aten::_local_scalar_dense >
--              cudaStreamSynchronize; k2's launch starts at 410 > 150 -> host; innermost running
--              cpu_op = aten::_local_scalar_dense (aten::empty [132,134) already ended; the runtime
--              call is not a cpu_op).
--   [440,650)  nothing runs on (1,1) at 440 (aten::relu ended at 420) -> host, host_event_id NULL.
--   [660,740)  at 660 aten::a [640,660) has just ended and aten::b [660,700) with its child
--              aten::b_inner [660,690) have just started: innermost running op = aten::b_inner.
--              (views_gap_host_tie writes the child first in the file.)
SELECT g.device, g.ts, g.dur, g.end_ts, p.name AS prev_name, n.name AS next_name,
       l.name AS next_launch_name, g.next_launch_ts, g.cause, h.name AS host_op, h.tid AS host_tid
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS l ON l.id = g.next_launch_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
ORDER BY g.device, g.ts;
