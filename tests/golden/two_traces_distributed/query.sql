-- Case: two_traces_distributed
-- Checks: two files imported into one database as trace_id 1 and 2 (in order), rank/world_size from
-- distributedInfo (before traceEvents in trace1, after it in trace2).
--   event ids continue across traces: trace 1 holds ids 1..4, trace 2 ids 5..7 (whatever the
--   order inside a trace, ids are dense and a trace's ids precede the next trace's);
--   the same pid/tid in two traces gives separate processes and threads rows;
--   flows never cross traces: (ac2g, 7) has s+f in trace 1 (one bound row) but only an f in trace 2
--   -> a row with src NULL in trace 2;
--   stacks has no trace_id: identical name paths are shared across traces, so the 4 distinct paths
--   (ProfilerStep#0; ProfilerStep#0 > nccl:all_reduce; ... > cudaLaunchKernel; the nccl kernel) give 4
--   rows.
-- start/end: trace 1 = 0 .. max(100000, 30000, 18000, 70000) = 100000;
--            trace 2 = 5000 .. max(105000, 37000, 75000) = 105000.
SELECT id, rank, world_size, event_count, start_ts, end_ts
FROM traces
ORDER BY id;

SELECT trace_id, count(*) AS n, min(id) AS min_id, max(id) AS max_id
FROM events
GROUP BY trace_id
ORDER BY trace_id;

SELECT trace_id, pid
FROM processes
WHERE EXISTS (SELECT 1 FROM threads AS t JOIN events AS e ON e.thread_id = t.id
              WHERE t.process_id = processes.id)
ORDER BY trace_id, pid;

SELECT trace_id, pid, tid, kind
FROM threads
WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.thread_id = threads.id)
ORDER BY trace_id, pid, tid;

SELECT f.trace_id, f.cat, f.flow_id, s.name AS src_name, s.trace_id AS src_trace,
       d.name AS dst_name, d.trace_id AS dst_trace, d.ts AS dst_event_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.trace_id, f.cat, f.flow_id;

SELECT e.trace_id, e.name, e.ts, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.trace_id, e.ts;

SELECT count(*) AS n_stacks FROM stacks ORDER BY 1;
