-- Invariant: the promoted copies agree with the args they come from. events.input_shape_id names an
-- input_shapes row, and is NULL only for events whose args have neither 'Input Dims' nor 'Input type';
-- the row's input_dims / input_type are NULL exactly when the event lacks that key, and where the value
-- is also in line (arg_keys.path not NULL) it is the same JSON text. (The args view reads
-- out-of-line values from input_shapes; verify_import.py checks them against the file.) Each
-- memory_args value equals the arg ('Bytes', ...) when that is an integer in line, is not NULL when
-- the arg is out of line (arg_keys.path NULL: the value is only there), and is NULL otherwise;
-- memory_args rows belong to '[memory]' instants. Rows returned = violations.
WITH a AS (
  SELECT e.id, e.input_shape_id,
         (SELECT k.path FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id AND k.key IN ('Input Dims', 'Input dims')
           ORDER BY k.idx DESC LIMIT 1) AS dims_path,
         EXISTS (SELECT 1 FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id AND k.key IN ('Input Dims', 'Input dims')) AS has_dims,
         (SELECT k.path FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id AND k.key = 'Input type') AS types_path,
         EXISTS (SELECT 1 FROM arg_keys AS k WHERE k.shape_id = e.arg_shape_id AND k.key = 'Input type') AS has_types,
         e.arg_values
  FROM events AS e
)
SELECT 'input_shape_id' AS what, a.id AS row_id, coalesce(s.input_dims, '-') || ' ' || coalesce(s.input_type, '-') AS detail
FROM a LEFT JOIN input_shapes AS s ON s.id = a.input_shape_id
WHERE (a.input_shape_id IS NULL) <> (NOT a.has_dims AND NOT a.has_types)
   OR (a.input_shape_id IS NOT NULL
       AND (s.id IS NULL OR (s.input_dims IS NULL) = a.has_dims OR (s.input_type IS NULL) = a.has_types
            OR (a.dims_path IS NOT NULL AND s.input_dims IS NOT a.arg_values -> a.dims_path)
            OR (a.types_path IS NOT NULL AND s.input_type IS NOT a.arg_values -> a.types_path)))
UNION ALL
SELECT 'memory_args ' || k.key, m.event_id, m.v
FROM (SELECT event_id, 'Bytes' AS key, bytes AS v FROM memory_args
      UNION ALL SELECT event_id, 'Addr', addr FROM memory_args
      UNION ALL SELECT event_id, 'Total Allocated', total_allocated FROM memory_args
      UNION ALL SELECT event_id, 'Total Reserved', total_reserved FROM memory_args
      UNION ALL SELECT event_id, 'Device Type', device_type FROM memory_args
      UNION ALL SELECT event_id, 'Device Id', device_id FROM memory_args) AS m
JOIN events AS e ON e.id = m.event_id
LEFT JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id AND k.key = m.key
WHERE CASE WHEN k.shape_id IS NOT NULL AND k.path IS NULL THEN m.v IS NULL
           ELSE m.v IS NOT (CASE WHEN json_type(e.arg_values, k.path) = 'integer' THEN e.arg_values ->> k.path END)
      END
UNION ALL
SELECT 'memory_args row for a non-[memory] event', m.event_id, e.name
FROM memory_args AS m LEFT JOIN events AS e ON e.id = m.event_id
WHERE e.name IS NOT '[memory]' OR e.ph NOT IN ('i', 'I')
UNION ALL
SELECT 'integer allocator arg missing from memory_args', e.id, k.key
FROM events AS e JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
WHERE e.name = '[memory]' AND e.ph IN ('i', 'I')
  AND k.key IN ('Bytes', 'Addr', 'Total Allocated', 'Total Reserved', 'Device Type', 'Device Id')
  AND (k.path IS NULL OR json_type(e.arg_values, k.path) = 'integer')
  AND NOT EXISTS (SELECT 1 FROM memory_args AS m WHERE m.event_id = e.id);
