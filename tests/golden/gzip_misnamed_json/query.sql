-- Case: gzip_misnamed_json
-- Checks: gzip is detected by the magic bytes 1f 8b, not by the file name: trace1.json holds
-- gzip data. compressed = 1; file_bytes = size on disk (140); json_bytes = inflated JSON size
-- (229, the byte length of the original text).
-- ts 1.5 -> 1500, dur 2 -> 2000; ts 4 -> 4000, dur 0.25 -> 250.
SELECT compressed, file_bytes, json_bytes, root_shape, truncated, event_count
FROM traces
ORDER BY id;

SELECT name, ts, dur
FROM events
ORDER BY ts;
