-- memory_levels: one row per allocator [memory] event (memory_events) with the device's level after
-- it, and an index in (trace, device, ts, id) order holding every column, so that a query reads the
-- events of one device in a time range with one seek and in time order, without reading events or
-- memory_args (memory_timeline's buckets: a few range scans per bucket, no sort).
-- The importer computes its rows (src/import/analysis.cc) when memory_devices' rows are computed and
-- every [memory] event of the trace has an integer 'Bytes'; this SELECT is their definition, the
-- tests compare the two, and it fills the table for the other traces.
-- allocated, as in memory_devices: the event's 'Total Allocated', or for an event without one (traces
-- before ~PyTorch 1.10) the running sum of the 'Bytes' of the device's events without one, in
-- (ts, id) order (NULL ts first).
-- @materialize always
-- @computed
-- @table CREATE TABLE memory_levels (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, device_type, device_id, ts INTEGER, bytes, allocated, total_reserved, cpu_op_id INTEGER, cumulative INTEGER NOT NULL) WITHOUT ROWID;
-- @index CREATE INDEX memory_levels_device ON memory_levels(trace_id, device_type, device_id, ts, id, allocated, bytes, total_reserved, cpu_op_id, cumulative);
CREATE VIEW memory_levels AS
SELECT
  id,                                 -- the [memory] event (events.id, memory_events.id)
  trace_id,                           -- traces.id
  device_type,                        -- memory_events.device_type: 0 CPU, 1 CUDA (6 seen on ROCm)
  device_id,                          -- memory_events.device_id: -1 for the CPU, 0.. GPUs
  ts,                                 -- the event's ts (ns)
  bytes,                              -- its 'Bytes' (negative: a free)
  CASE WHEN total_allocated IS NOT NULL THEN total_allocated
       ELSE sum(bytes) FILTER (WHERE total_allocated IS NULL)
              OVER (PARTITION BY trace_id, device_type, device_id ORDER BY ts, id
                    ROWS UNBOUNDED PRECEDING) END AS allocated,
                                      -- the device's allocated bytes after the event
  total_reserved,                     -- its 'Total Reserved' (NULL when the trace lacks it)
  cpu_op_id,                          -- innermost CPU op running then (events.cpu_op_id)
  total_allocated IS NULL AS cumulative  -- 1: allocated is the running sum of 'Bytes' (no 'Total
                                      -- Allocated'), relative to an unknown start; 0: the trace's
FROM memory_events;
