-- Invariant: stored args are well-formed. events.arg_values is NULL exactly when arg_shape_id is;
-- otherwise it is valid JSON (json_valid) holding an array with one value per key of its shape in
-- arg_keys that has a path. Each shape's keys are numbered 0..n-1 (idx), no key twice; the keys with
-- a path have '$[0]', '$[1]', ... in idx order. Only these keys have none, each where its column
-- holds the value: 'Input Dims' ('Input dims') / 'Input type' for events with an input_shape_id, a
-- promoted key where its events column is not NULL, an allocator key of a [memory] instant where its
-- memory_args column is not NULL.
-- traces.metadata and devices.properties are valid JSON objects. Rows returned = violations.
SELECT 'events.arg_values' AS what, e.id AS row_id, substr(e.arg_values, 1, 80) AS detail
FROM events AS e
WHERE (e.arg_values IS NULL) <> (e.arg_shape_id IS NULL)
   OR (e.arg_values IS NOT NULL
       AND CASE WHEN json_valid(e.arg_values)
                THEN json_type(e.arg_values) <> 'array'
                     OR json_array_length(e.arg_values)
                        IS NOT (SELECT count(*) FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id
                                                                   AND k.path IS NOT NULL)
                ELSE 1 END)
UNION ALL
SELECT 'arg_keys.idx/path', shape_id, key
FROM arg_keys
WHERE (path IS NULL AND key NOT IN ('Input Dims', 'Input dims', 'Input type', 'External id', 'external id',
                                    'correlation', 'Sequence number', 'Fwd thread id', 'Python id',
                                    'Python parent id', 'device', 'stream', 'Bytes', 'Addr',
                                    'Total Allocated', 'Total Reserved', 'Device Type', 'Device Id'))
   OR (path IS NOT NULL AND path IS NOT '$[' || (SELECT count(*) FROM arg_keys AS k2
                                                WHERE k2.shape_id = arg_keys.shape_id AND k2.idx < arg_keys.idx
                                                  AND k2.path IS NOT NULL) || ']')
   OR idx < 0
   OR idx >= (SELECT count(*) FROM arg_keys AS k2 WHERE k2.shape_id = arg_keys.shape_id)
UNION ALL
SELECT 'arg_keys duplicate key', shape_id, key
FROM arg_keys
GROUP BY shape_id, key
HAVING count(*) > 1
UNION ALL
SELECT 'out-of-line arg without its column', e.id, k.key
FROM events AS e JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
LEFT JOIN memory_args AS m ON m.event_id = e.id
WHERE k.path IS NULL
  AND CASE k.key
        WHEN 'Input Dims' THEN e.input_shape_id WHEN 'Input dims' THEN e.input_shape_id
        WHEN 'Input type' THEN e.input_shape_id
        WHEN 'External id' THEN e.external_id WHEN 'external id' THEN e.external_id
        WHEN 'correlation' THEN e.correlation WHEN 'Sequence number' THEN e.seq_num
        WHEN 'Fwd thread id' THEN e.fwd_thread_id WHEN 'Python id' THEN e.python_id
        WHEN 'Python parent id' THEN e.python_parent_id WHEN 'device' THEN e.device
        WHEN 'stream' THEN e.stream
        WHEN 'Bytes' THEN m.bytes WHEN 'Addr' THEN m.addr WHEN 'Total Allocated' THEN m.total_allocated
        WHEN 'Total Reserved' THEN m.total_reserved WHEN 'Device Type' THEN m.device_type
        WHEN 'Device Id' THEN m.device_id
      END IS NULL
UNION ALL
SELECT 'traces.metadata', id, substr(metadata, 1, 80)
FROM traces
WHERE CASE WHEN json_valid(metadata) THEN json_type(metadata) <> 'object' ELSE 1 END
UNION ALL
SELECT 'devices.properties', rowid, substr(properties, 1, 80)
FROM devices
WHERE CASE WHEN json_valid(properties) THEN json_type(properties) <> 'object' ELSE 1 END;
