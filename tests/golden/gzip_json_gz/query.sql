-- Case: gzip_json_gz
-- Checks: a .json.gz file holding a bare-array (2020 style) trace: compressed = 1,
-- root_shape 'array', file_bytes = 175 (on disk), json_bytes = 259 (inflated).
-- The [memory] instant without cat (int tid 9) lands on the same track as the Operator written with
-- tid "9": it nests under aten::empty [..297023, ..297036) at depth 1; the track is 'cpu'.
SELECT compressed, file_bytes, json_bytes, root_shape, event_count
FROM traces
ORDER BY id;

SELECT e.name, e.ts, e.dur, e.depth, p.name AS parent_name, t.kind
FROM events AS e
JOIN threads AS t ON t.id = e.thread_id
LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts;
