-- Case: views_memory_levels
-- memory_levels: one row per memory_events row, with the device's level after it (allocated) and
-- whether that level is a running sum of Bytes (cumulative), read in its index's (trace_id,
-- device_type, device_id, ts, id) order. The traces of views_memory_devices (see there); event ids
-- trace1 3..12, trace2 14..17.
-- trace1 (integer device, totals and Bytes on every event: the importer writes the rows):
--   allocated = Total Allocated, cumulative 0; (0,-1) id 5 first (device_type 0), then (1,0) in
--   time order 4 (ts 120), 3 (150), 6 (190), then (1,1) 7, 9 (both ts 160: id order), 11, 12, 8, 10
--   (both ts 220); cpu_op_id: aten::empty (id 1) for the tid-1 events inside it (ts 120..190 us),
--   else NULL.
-- trace2 (left to the view's SQL): (NULL, NULL) id 17 first (NULL sorts first), cumulative 1, level
--   16 (its own Bytes); (1, 0): id 15 (ts 900, total 2048, cumulative 0), id 14 (ts 1000, no total:
--   the running sum of the Bytes of the device's events without a total, 4096); then (1, '0') id 16
--   (its total 8: a text device id sorts after the integers).
-- Cross-check: the table equals its definition (the view's SELECT over memory_events): 0 rows differ.
SELECT trace_id, device_type, device_id, ts, id, bytes, allocated, total_reserved, cpu_op_id, cumulative
FROM memory_levels INDEXED BY memory_levels_device
ORDER BY trace_id, device_type, device_id, ts, id;
SELECT count(*) AS differing FROM (
  SELECT id, trace_id, device_type, device_id, ts, bytes, allocated, total_reserved, cpu_op_id, cumulative
  FROM memory_levels
  EXCEPT
  SELECT id, trace_id, device_type, device_id, ts, bytes,
         CASE WHEN total_allocated IS NOT NULL THEN total_allocated
              ELSE sum(bytes) FILTER (WHERE total_allocated IS NULL)
                     OVER (PARTITION BY trace_id, device_type, device_id ORDER BY ts, id) END,
         total_reserved, cpu_op_id, total_allocated IS NULL
  FROM memory_events
);
