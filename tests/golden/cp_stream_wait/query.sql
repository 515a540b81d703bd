-- Case: cp_stream_wait. k1 [5,105) on stream 7; cudaEventRecord (correlation 2) after its launch;
-- stream 9 waits on that event (cudaStreamWaitEvent, correlation 3; Kineto's cuda_sync event says
-- wait_on_stream 7, record correlation 2); k2 launched on stream 9 at 8 starts at 106. Path back
-- from k2's end: k2 [106,120), the wait [105,106) (stream_wait, sync, charged to
-- cudaStreamWaitEvent), k1 [5,105), its launch [1,5), op_a [0,1). Without the wait edge k2 would
-- hang on its launch: [8,106) launch_overhead.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
