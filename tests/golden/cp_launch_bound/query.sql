-- Case: cp_launch_bound. op_a [0,12) launches k1 at [2,7); the stream is empty, yet k1 starts only
-- at 50 and runs to 60. Path: op_a [0,2) cpu, the launch [2,50) launch_overhead (48 of 60 µs: 80 %),
-- k1 [50,60) gpu_compute.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
