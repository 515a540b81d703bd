-- Case: cp_gpu_bound. op_a [0,20) launches k1 at 2 and k2 at 6; k1 [10,110), k2 [110,300) on
-- stream 7. Whole trace [0,300): back from k2's end: k2 [110,300) (it waited for k1, not for its
-- launch: a zero-length kernel_kernel edge), k1 [10,110), k1's launch [2,10) (launch_overhead,
-- charged to the call), op_a [0,2). Window [50,200) (--from/--to): k1 runs across the start and is
-- clipped to [50,110); k2 [110,200) is clipped at the end; nothing on the host: 100 % gpu_compute.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
