-- Invariant: every non-NULL events.args is valid JSON holding an object (json_valid), and so are
-- traces.metadata and devices.properties. Rows returned = violations.
SELECT 'events.args' AS col, id AS row_id, substr(args, 1, 80) AS text
FROM events
WHERE args IS NOT NULL
  AND CASE WHEN json_valid(args) THEN json_type(args) <> 'object' ELSE 1 END
UNION ALL
SELECT 'traces.metadata', id, substr(metadata, 1, 80)
FROM traces
WHERE CASE WHEN json_valid(metadata) THEN json_type(metadata) <> 'object' ELSE 1 END
UNION ALL
SELECT 'devices.properties', rowid, substr(properties, 1, 80)
FROM devices
WHERE CASE WHEN json_valid(properties) THEN json_type(properties) <> 'object' ELSE 1 END;
