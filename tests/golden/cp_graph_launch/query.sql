-- Case: cp_graph_launch. One cudaGraphLaunch [2,6) (correlation 40) runs graph_a [10,50) and
-- graph_b [52,90) on stream 7 and an all-reduce [10,30) on stream 8. Path back from graph_b's end:
-- graph_b [52,90), the gap after graph_a [50,52) (kernel_kernel_overhead), graph_a [10,50), the
-- graph launch [2,10) (launch_overhead, charged to cudaGraphLaunch), the replay op [0,2). The
-- all-reduce (gpu_communication) ends early and is not on the path.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
