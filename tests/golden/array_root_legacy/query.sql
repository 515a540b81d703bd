-- Case: array_root_legacy (2020 "G0" generation)
-- Checks: a bare JSON array root (root_shape 'array', metadata an empty object, no header);
-- legacy categories Operator/Runtime/Memcpy/Kernel stay as written in events.cat;
-- the CPU tid written as the numeric string "4093687616" is normalised to the integer 4093687616
-- (above INT32), so the flow start written with the int tid binds to the Runtime slice on that track;
-- the GPU tid "stream 7" stays text and its flow end binds to the Memcpy at the same ts;
-- legacy lower-case 'external id' is promoted to external_id; 'External id' too. Promotion matches
-- key spelling exactly: the 2020 Operator arg 'Device' (capital D) is NOT 'device' -> device NULL.
-- Flow binding: innermost slice containing the point's ts on (pid, tid): the s at 1606910596350464
-- is inside aten::copy_ [..350400, ..353400) and cudaMemcpyAsync [..350464, ..352958) -> the latter.
-- flow 65461 has an f but no s -> one row with src NULL.
-- Nesting: cudaMemcpyAsync lies inside aten::copy_ -> depth 1.
-- traces: start = 1606910596350000000 (Trace span), end = span end 1606910596360000000.
SELECT e.name, e.cat, e.pid, e.tid, typeof(e.tid) AS tid_type, e.ts, e.dur, e.depth,
       p.name AS parent_name, e.external_id, e.correlation, e.device, e.stream
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts;

SELECT t.pid, t.tid, typeof(t.tid) AS tid_type, t.name, length(t.name) AS name_len, t.kind
FROM threads AS t
WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.thread_id = t.id)
ORDER BY t.pid, t.tid;

SELECT f.cat, f.name, f.flow_id, s.name AS src_name, f.src_ts, d.name AS dst_name, f.dst_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.flow_id;

SELECT root_shape, json_type(metadata) AS meta_type,
       (SELECT count(*) FROM json_each(traces.metadata)) AS meta_keys,
       event_count, start_ts, end_ts, rank, world_size
FROM traces
ORDER BY id;

SELECT pid, name
FROM processes
WHERE pid = 67844
ORDER BY pid;
