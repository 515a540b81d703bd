-- memory_devices: one row per (trace, device) of the allocator's [memory] events (view
-- memory_events), with how many there are, their time span, and the device's peak and its start
-- and end levels. memory_timeline reads a device's span and size here instead of a pass over its
-- events, memory_peak everything it reports; a device is (device_type, device_id) as memory_events
-- gives them (NULL is a device too).
-- The importer computes its rows (src/import/analysis.cc) when every [memory] event of the trace has
-- integer 'Device Type', 'Device Id', 'Total Allocated' and 'Total Reserved' args; this SELECT is
-- their definition, the tests compare the two, and it fills the table for the other traces.
-- allocated, the level after an event: its 'Total Allocated', or for an event without one (traces
-- before ~PyTorch 1.10) the running sum of the 'Bytes' of the device's events without one, in
-- (ts, id) order (NULL ts first).
-- @materialize always
-- @computed
-- @table CREATE TABLE memory_devices (trace_id INTEGER NOT NULL, device_type, device_id, events INTEGER NOT NULL, without_total INTEGER NOT NULL, first_ts INTEGER, last_ts INTEGER, peak_allocated, peak_event_id INTEGER, peak_reserved, start_allocated, end_allocated);
CREATE VIEW memory_devices AS
WITH
levels AS (
  SELECT trace_id, device_type, device_id, id, ts, total_allocated, total_reserved,
         CASE WHEN total_allocated IS NOT NULL THEN total_allocated
              ELSE sum(bytes) FILTER (WHERE total_allocated IS NULL)
                     OVER (PARTITION BY trace_id, device_type, device_id ORDER BY ts, id
                           ROWS UNBOUNDED PRECEDING) END AS allocated
  FROM memory_events
),
spans AS (
  SELECT *, max(allocated) OVER d AS peak, min(ts) OVER d AS t0, max(ts) OVER d AS t1
  FROM levels
  WINDOW d AS (PARTITION BY trace_id, device_type, device_id)
),
ranked AS (             -- rank 1: the first event at the peak, at the first ts, the last at the last ts
  SELECT *,
         row_number() OVER (PARTITION BY trace_id, device_type, device_id
                            ORDER BY allocated = peak DESC, ts, id) AS peak_rank,
         row_number() OVER (PARTITION BY trace_id, device_type, device_id
                            ORDER BY ts = t0 DESC, id) AS first_rank,
         row_number() OVER (PARTITION BY trace_id, device_type, device_id
                            ORDER BY ts = t1 DESC, id DESC) AS last_rank
  FROM spans
)
SELECT
  trace_id,                           -- traces.id
  device_type,                        -- memory_events.device_type: 0 CPU, 1 CUDA (6 seen on ROCm)
  device_id,                          -- memory_events.device_id: -1 for the CPU, 0.. GPUs
  count(*) AS events,                 -- its [memory] events
  count(*) - count(total_allocated) AS without_total,  -- of them, those with no 'Total Allocated'
                                      -- (traces before ~PyTorch 1.10: allocated is then a running
                                      -- sum of 'Bytes', relative to an unknown start)
  min(ts) AS first_ts,                -- the first event's ts (ns)
  max(ts) AS last_ts,                 -- the last event's ts (ns)
  max(allocated) AS peak_allocated,   -- the largest allocated level (bytes)
  max(CASE WHEN peak_rank = 1 AND allocated = peak THEN id END) AS peak_event_id,
                                      -- the first event (ts, then id) reaching it (memory_events.id)
  max(total_reserved) AS peak_reserved,  -- the largest 'Total Reserved'
  max(CASE WHEN first_rank = 1 AND ts = t0 THEN allocated END) AS start_allocated,
                                      -- allocated after the first event (at first_ts, lowest id)
  max(CASE WHEN last_rank = 1 AND ts = t1 THEN allocated END) AS end_allocated
                                      -- allocated after the last event (at last_ts, highest id)
FROM ranked
GROUP BY trace_id, device_type, device_id;
