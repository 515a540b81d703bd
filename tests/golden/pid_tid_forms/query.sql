-- Case: pid_tid_forms
-- Checks pid/tid normalisation: ints stay ints; numeric strings ("200", "100", "-5", "0", "7") become
-- integers; other strings stay text ("Spans", "PyTorch Profiler", "Traces", and the empty string "").
-- So tid 200 and tid "200" are ONE thread (aten::mm contains cudaLaunchKernel -> depth 1), pid/tid
-- (100,-5) and ("100","-5") are one thread, and the flow s (int tid 200) binds to the slice written
-- with the string tid "200"; the flow f written with pid "0"/tid "7" binds to kernel k1 on (0, 7).
-- threads.kind: (100,200) cpu_op+cuda_runtime -> cpu; (100,-5) cuda_runtime -> cpu; (0,7) kernel ->
-- gpu; Trace span / cat-less instants that are not "[memory]" -> other.
-- Instants on a track without slices: parent NULL, depth 0. The '' pid/tid print as an empty
-- field, hence the typeof() columns. ORDER BY puts integers before text (SQLite type order).
SELECT e.name, e.pid, typeof(e.pid) AS pid_type, e.tid, typeof(e.tid) AS tid_type, e.ts, e.depth,
       p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts, e.name;

SELECT t.pid, typeof(t.pid) AS pid_type, t.tid, typeof(t.tid) AS tid_type, t.kind,
       (SELECT count(*) FROM events AS e WHERE e.thread_id = t.id) AS n_events
FROM threads AS t
WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.thread_id = t.id)
ORDER BY t.pid, t.tid;

SELECT pr.pid, typeof(pr.pid) AS pid_type
FROM processes AS pr
WHERE EXISTS (SELECT 1 FROM threads AS t JOIN events AS e ON e.thread_id = t.id
              WHERE t.process_id = pr.id)
ORDER BY pr.pid;

SELECT f.cat, f.flow_id, s.name AS src_name, d.name AS dst_name
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.cat, f.flow_id;
