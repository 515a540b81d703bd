-- Case: views_queue
-- op_kernel_links.queue: GPU ops launched on the op's (device, stream) and not yet started, this one
-- included, as its launch call starts: +1 at each launch start, -1 at each GPU op start, in time
-- order, +1 before -1 at one time, then by op id; the running sum at the op's own +1.
-- Stream (0, 7), changes in order (ts in us; q after the change):
--   100 +1 k1 (q 1) | 102 +1 k2 (2) | 103 -1 k3_skewed: its GPU start is before its own launch (1)
--   104 +1 k3_skewed (2) | 110 -1 k1 (1) | 120 -1 k2 (0)
--   130 +1 graph_k4 (1), +1 graph_k5 (2): one cudaGraphLaunch, two kernels, by op id
--   140 +1 k8 (3), then -1 graph_k4 (2): +1 before -1 at one time
--   150 -1 graph_k5 (1) | 160 -1 k8 (0)
-- Stream (0, 8): 120 +1 k6_other_stream (1) | 125 -1 (0): a queue of its own.
-- k7_no_launch (no runtime call with correlation 99): queue NULL.
SELECT e.name, l.stream, l.launch_ts, l.gpu_ts, l.queue
FROM op_kernel_links AS l JOIN events AS e ON e.id = l.gpu_event_id
ORDER BY l.launch_ts IS NULL, l.launch_ts, l.gpu_event_id;
