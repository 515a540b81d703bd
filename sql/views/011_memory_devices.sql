-- memory_devices: one row per (trace, device) of the allocator's [memory] events (view
-- memory_events), with how many there are and their time span. memory_timeline and memory_peak read
-- a device's span and size here instead of a pass over its events; a device is (device_type,
-- device_id) as memory_events gives them (NULL is a device too).
-- The importer computes its rows (src/import/analysis.cc) when every [memory] event of the trace has
-- integer 'Device Type', 'Device Id' and 'Total Allocated' args; this SELECT is their definition,
-- the tests compare the two, and it fills the table for the other traces.
-- @materialize always
-- @computed
-- @table CREATE TABLE memory_devices (trace_id INTEGER NOT NULL, device_type, device_id, events INTEGER NOT NULL, without_total INTEGER NOT NULL, first_ts INTEGER, last_ts INTEGER);
CREATE VIEW memory_devices AS
SELECT
  trace_id,                           -- traces.id
  device_type,                        -- memory_events.device_type: 0 CPU, 1 CUDA (6 seen on ROCm)
  device_id,                          -- memory_events.device_id: -1 for the CPU, 0.. GPUs
  count(*) AS events,                 -- its [memory] events
  count(*) - count(total_allocated) AS without_total,  -- of them, those with no 'Total Allocated'
                                      -- (traces before ~PyTorch 1.10: the queries fall back to a
                                      -- running sum of 'Bytes')
  min(ts) AS first_ts,                -- the first event's ts (ns)
  max(ts) AS last_ts                  -- the last event's ts (ns)
FROM memory_events
GROUP BY trace_id, device_type, device_id;
