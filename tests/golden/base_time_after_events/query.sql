-- Case: base_time_after_events
-- Checks: relative ts (us.nnn) + a 19-digit baseTimeNanoseconds that appears AFTER traceEvents.
--   abs_ns = baseTimeNanoseconds + int_part*1000 + fraction (padded to 3 digits), integer math:
--   1751410836000000000 + 1419247332972313 = 1752830083332972313  (ProfilerStep#6, cpu)
--   1751410836000000000 + 1419247333072400 = 1752830083333072400  (aten::mm, ts "...072.4")
--   1751410836000000000 + 1419247333430848 = 1752830083333430848  (ProfilerStep#6, gpu)
--   dur is not shifted: 4426.114 -> 4426114, 2.24 -> 2240, 3907.827 -> 3907827.
-- The M event (ts 0.0) is not an events row and does not count for start_ts.
-- traces: base_time_ns = 1751410836000000000, start_ts = 1752830083332972313,
--   end_ts = max(1752830083332972313+4426114 = 1752830083337398427,
--                1752830083333430848+3907827 = 1752830083337338675) = 1752830083337398427.
-- metadata holds every top-level key except traceEvents, including the ones after it.
SELECT e.name, e.cat, e.ts, e.dur, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts;

SELECT base_time_ns, start_ts, end_ts, event_count,
       json_extract(metadata, '$.baseTimeNanoseconds') AS meta_base,
       json_extract(metadata, '$.displayTimeUnit') AS meta_unit,
       json_extract(metadata, '$.schemaVersion') AS meta_schema
FROM traces
ORDER BY id;

SELECT j.key, j.type
FROM traces AS t, json_each(t.metadata) AS j
ORDER BY j.key;
