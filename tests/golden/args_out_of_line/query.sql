-- Case: args_out_of_line
-- A promoted arg that is an integer ('External id', 'Sequence number', 'Fwd thread id', 'Python id',
-- 'correlation', 'device', 'stream', ...) is stored once, in its events column: arg_keys.path is NULL
-- and events.arg_values leaves it out, like 'Input Dims' / 'Input type' (in input_shapes) and the
-- allocator args of a [memory] instant (in memory_args). The args and event_args views put every
-- value back, in file order, with its JSON type. Values stay in line when:
--  * the value is not an integer within int64 ("12", 1.0, 2^64; the ROCm stream "0x0", JSON null);
--  * it is written -0 (json_extract would read 0, `->` keeps -0): the whole event stays in line;
--  * the key is promoted under another spelling later in the same args: only the last
--    ('External id' after 'external id') gives the column its value and moves;
--  * the key is an allocator arg of an event that is not a [memory] instant, or not an integer
--    (Bytes -512.0).
-- A B/E pair: the B's promoted values move, the E's args are appended in line after them.
SELECT e.name, e.arg_values,
       (SELECT group_concat(k.key || coalesce('@' || k.path, ''), ' | ')
          FROM (SELECT * FROM arg_keys WHERE shape_id = e.arg_shape_id ORDER BY idx) AS k) AS keys
FROM events AS e
ORDER BY e.ts;

SELECT e.name, a.key, a.value, typeof(a.value) AS sql_type, a.value_type
FROM args AS a JOIN events AS e ON e.id = a.event_id
ORDER BY e.ts, (SELECT k.idx FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id AND k.key = a.key);

SELECT e.name, a.args
FROM event_args AS a JOIN events AS e ON e.id = a.event_id
ORDER BY e.ts;

SELECT name, external_id, correlation, seq_num, fwd_thread_id, python_id, python_parent_id, device, stream
FROM events
ORDER BY ts;

SELECT e.ts, m.bytes, m.addr, m.total_allocated, m.total_reserved, m.device_type, m.device_id
FROM memory_args AS m JOIN events AS e ON e.id = m.event_id
ORDER BY e.ts;

SELECT ts, bytes, addr, total_allocated, device_id FROM memory_events ORDER BY ts;
