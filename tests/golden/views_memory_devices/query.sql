-- Case: views_memory_devices
-- memory_devices: one row per (trace, device_type, device_id) of memory_events with the count of
-- its events, how many lack 'Total Allocated', the first and last ts (ns), the peak allocated level
-- and the first event (ts, then id) reaching it, the peak 'Total Reserved', and the level after the
-- first event (lowest id at first_ts) and after the last (highest id at last_ts).
-- Event ids (events.id, grouped by kind, file order within one): trace1 3..12,
-- trace2 14..17.
-- trace1 (every [memory] event has integer device and totals: the importer computes the rows):
--   (1, 0): ts 150 (id 3, 1536), 120 (id 4, 1024; file order is not time order), 190 (id 6, 512)
--           -> 3 events, first 120000, last 190000, peak 1536 at id 3, reserved 2097152,
--           start 1024, end 512
--   (1, 1): ts 160 (id 7, 256), 220 (id 8, 0), 160 (id 9, 384), 220 (id 10, 512, reserved 4194304),
--           200 (id 11, 512), 210 (id 12, 256) -> 6 events, first 160000, last 220000; peak 512
--           reached first at ts 200 (id 11; id 10 is earlier in the file but later in time),
--           peak reserved 4194304, start 256 (id 7: the lowest id at ts 160), end 512 (id 10: the
--           highest id at ts 220)
--   (0,-1): ts 130 (id 5, 64, reserved 0) -> 1 event
--   not counted: the cpu_op named [memory] (ph X) and other_instant.
-- trace2 (left to the view's SQL: one event has no total, one a string Device Id, one no device):
--   (1, 0):  ts 1000 (id 14, no total, +4096), 900 (id 15, total 2048) -> 2 events, 1 without
--            total; levels 2048 then 4096 (the running sum of the Bytes of the events without a
--            total): peak 4096 at id 14, start 2048, end 4096, no reserved
--   (1, '0'): the string id is a device of its own (text sorts after integers), ts 1100 (id 16), 8
--   (NULL, NULL): ts 1200, no device args and no total (ph I, id 17) -> 1 event, 1 without total,
--   16
-- Cross-checks: the table equals its definition (the view's GROUP BY) on both traces, and on
-- trace1 the importer's peaks and levels equal those read from the events: 0 rows differ.
SELECT trace_id, device_type, device_id, typeof(device_id) AS id_type, events, without_total,
       first_ts, last_ts, peak_allocated, peak_event_id, peak_reserved, start_allocated, end_allocated
FROM memory_devices
ORDER BY trace_id, device_type, device_id;
SELECT count(*) AS differing FROM (
  SELECT trace_id, device_type, device_id, events, without_total, first_ts, last_ts FROM memory_devices
  EXCEPT
  SELECT trace_id, device_type, device_id, count(*), count(*) - count(total_allocated), min(ts), max(ts)
  FROM memory_events GROUP BY trace_id, device_type, device_id
);
SELECT count(*) AS differing_levels FROM (
  SELECT trace_id, device_type, device_id, peak_allocated, peak_event_id, peak_reserved, start_allocated,
         end_allocated
  FROM memory_devices WHERE trace_id = 1
  EXCEPT
  SELECT d.trace_id, d.device_type, d.device_id, d.peak,
         (SELECT e.id FROM memory_events AS e
          WHERE e.trace_id = d.trace_id AND e.device_type = d.device_type AND e.device_id = d.device_id
            AND e.total_allocated = d.peak ORDER BY e.ts, e.id LIMIT 1),
         d.reserved,
         (SELECT e.total_allocated FROM memory_events AS e
          WHERE e.trace_id = d.trace_id AND e.device_type = d.device_type AND e.device_id = d.device_id
          ORDER BY e.ts, e.id LIMIT 1),
         (SELECT e.total_allocated FROM memory_events AS e
          WHERE e.trace_id = d.trace_id AND e.device_type = d.device_type AND e.device_id = d.device_id
          ORDER BY e.ts DESC, e.id DESC LIMIT 1)
  FROM (SELECT trace_id, device_type, device_id, max(total_allocated) AS peak, max(total_reserved) AS reserved
        FROM memory_events WHERE trace_id = 1 GROUP BY trace_id, device_type, device_id) AS d
);
