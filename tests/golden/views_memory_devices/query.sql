-- Case: views_memory_devices
-- memory_devices: one row per (trace, device_type, device_id) of memory_events with the count of
-- its events, how many lack 'Total Allocated', and the first and last ts (ns).
-- trace1 (every [memory] event has integer device and total: the importer computes the rows):
--   (1, 0): ts 150, 120 (file order is not time order), 190  -> 3 events, first 120000, last 190000
--   (1, 1): ts 160                                           -> 1 event
--   (0,-1): ts 130                                           -> 1 event
--   not counted: the cpu_op named [memory] (ph X) and other_instant.
-- trace2 (left to the view's SQL: one event has no total, one a string Device Id, one no device):
--   (1, 0):  ts 1000 (no total), 900                         -> 2 events, 1 without total
--   (1, '0'): the string id is a device of its own (text sorts after integers), ts 1100
--   (NULL, NULL): ts 1200, no device args and no total (ph I) -> 1 event, 1 without total
-- Cross-check: the table equals its definition (the view's GROUP BY) on both traces: 0 rows differ.
SELECT trace_id, device_type, device_id, typeof(device_id) AS id_type, events, without_total,
       first_ts, last_ts
FROM memory_devices
ORDER BY trace_id, device_type, device_id;
SELECT count(*) AS differing FROM (
  SELECT * FROM memory_devices
  EXCEPT
  SELECT trace_id, device_type, device_id, count(*), count(*) - count(total_allocated), min(ts), max(ts)
  FROM memory_events GROUP BY trace_id, device_type, device_id
);
