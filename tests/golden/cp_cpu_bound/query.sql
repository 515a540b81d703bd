-- Case: cp_cpu_bound (critical-path, whole trace [0, 200) µs).
-- op_a [0,100) launches k1 [20,30) at [10,15); op_b [100,200) follows. The GPU is done at 30, the
-- host at 200, so the path is the host thread: op_a [0,10), its launch call [10,15), op_a [15,100),
-- op_b [100,200): 100 % cpu. k1 is not on the path.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
