-- Case: truncated_mid_event
-- Checks: a file cut in the middle of its third event (no closing brackets) imports with a
-- warning: the two complete events are kept, traces.truncated = 1, and import_stats
-- truncated_at_byte = 210, the 0-based byte offset of the '{' that opens the incomplete event
-- (header line 38 bytes + two event lines of 85 bytes each + 2 spaces of indent).
-- Header keys read before the cut are kept in metadata.
SELECT truncated, event_count, json_bytes, json_extract(metadata, '$.schemaVersion') AS schema_version
FROM traces
ORDER BY id;

SELECT e.name, e.ts, e.dur, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts;

SELECT name, value
FROM import_stats
WHERE name = 'truncated_at_byte'
ORDER BY name;
