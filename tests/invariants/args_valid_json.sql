-- Invariant: stored args are well-formed. events.arg_values is NULL exactly when arg_shape_id is;
-- otherwise it is valid JSON (json_valid) holding an array with one value per key of its shape in
-- arg_keys. Each shape's keys are numbered 0..n-1 with path '$[idx]' and no key twice.
-- traces.metadata and devices.properties are valid JSON objects. Rows returned = violations.
SELECT 'events.arg_values' AS what, e.id AS row_id, substr(e.arg_values, 1, 80) AS detail
FROM events AS e
WHERE (e.arg_values IS NULL) <> (e.arg_shape_id IS NULL)
   OR (e.arg_values IS NOT NULL
       AND CASE WHEN json_valid(e.arg_values)
                THEN json_type(e.arg_values) <> 'array'
                     OR json_array_length(e.arg_values)
                        IS NOT (SELECT count(*) FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id)
                ELSE 1 END)
UNION ALL
SELECT 'arg_keys.idx/path', shape_id, key
FROM arg_keys
WHERE path IS NOT '$[' || idx || ']'
   OR idx < 0
   OR idx >= (SELECT count(*) FROM arg_keys AS k2 WHERE k2.shape_id = arg_keys.shape_id)
UNION ALL
SELECT 'arg_keys duplicate key', shape_id, key
FROM arg_keys
GROUP BY shape_id, key
HAVING count(*) > 1
UNION ALL
SELECT 'traces.metadata', id, substr(metadata, 1, 80)
FROM traces
WHERE CASE WHEN json_valid(metadata) THEN json_type(metadata) <> 'object' ELSE 1 END
UNION ALL
SELECT 'devices.properties', rowid, substr(properties, 1, 80)
FROM devices
WHERE CASE WHEN json_valid(properties) THEN json_type(properties) <> 'object' ELSE 1 END;
