-- Case: views_flows_missing
-- A trace without any flow events (no ac2g, no fwdbwd), as profilers with flows disabled or
-- post-processed files write. Every view must work from correlation ids alone (DESIGN op_kernels:
-- "the runtime call with the same correlation id ... (or the ac2g flow)").
--  op_kernels: memcpy, memset, kernel and both graph kernels find their launch by correlation; op =
--   innermost cpu_op around the launch; step 3 from the ProfilerStep#3 annotation around the launch.
--  idle_gaps on device 0 (memcpy [75,90) memset [95,97) gemm [130,150) g1 [300,310) g2 [310,330)):
--   [90,95)   memset launched at 86 <= 90: device; host at 90: aten::zero_ [85,95)
--   [97,130)  gemm launched at 105 > 97: host; at 97 only ProfilerStep#3 (a user_annotation, not a
--             cpu_op) runs: host_event_id NULL
--   [150,300) g1 launched at 205: host; host NULL. g1 ends exactly where g2 starts: no gap.
--  steps: step 3's GPU extent = [75, 330) us over 5 ops. autograd_pairs: no rows.
SELECT gpu_name, gpu_kind, correlation, launch_name, launch_ts, op_name, top_op_name, step, launch_delay
FROM op_kernels
ORDER BY gpu_ts;

SELECT g.ts, g.dur, p.name AS prev_name, n.name AS next_name, g.next_launch_ts, g.cause,
       h.name AS host_op
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
ORDER BY g.ts;

SELECT step, ts, dur, end_ts, gpu_ts, gpu_end_ts, gpu_ops FROM steps ORDER BY step;

SELECT (SELECT count(*) FROM flows) AS flows, (SELECT count(*) FROM autograd_pairs) AS pairs;
