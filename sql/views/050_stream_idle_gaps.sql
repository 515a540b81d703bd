-- stream_idle_gaps: HTA's per-stream idle intervals, to reproduce its idle-time breakdown. One row per
-- pair of consecutive GPU ops (kernel, memcpy, memset) on one stream, ordered by start:
--   dur = next start - previous end, NOT clipped: overlapping ops on a stream (PDL) give dur <= 0,
--   which HTA sums as it is.
--   category = 'host_wait'   the next op's launch call started after the previous op ended
--              'kernel_wait' else, when dur < 30 us (HTA's consecutive_kernel_delay, which HTA applies
--                            to integer-microsecond times)
--              'other'
-- Differences from idle_gaps: per stream, not per device (a stream is idle while another keeps the
-- device busy), no merging, and HTA compares with the previous op's end rather than the gap start.
-- Computed by the importer when materialised (src/import/analysis.cc): the same rows as this SELECT,
-- which --no-materialize keeps as the view and the tests compare with the table.
-- @materialize
-- @computed
CREATE VIEW stream_idle_gaps AS
WITH k AS (
  SELECT
    trace_id, device, stream, gpu_event_id AS id, gpu_ts AS ts, launch_ts,
    lag(gpu_ts + gpu_dur) OVER w AS prev_end,
    lag(gpu_event_id) OVER w AS prev_id
  FROM op_kernel_links                -- one row per GPU op, with its launch
  WHERE gpu_ts IS NOT NULL AND gpu_dur IS NOT NULL
  WINDOW w AS (PARTITION BY trace_id, device, stream ORDER BY gpu_ts, gpu_event_id)
)
SELECT
  trace_id, device, stream,
  prev_end AS ts,                     -- end of the previous op on the stream (ns)
  ts - prev_end AS dur,               -- signed idle interval (ns)
  ts AS end_ts,                       -- start of the next op (ns)
  prev_id AS prev_event_id,
  id AS next_event_id,
  launch_ts AS next_launch_ts,
  CASE WHEN launch_ts > prev_end THEN 'host_wait'
       WHEN ts - prev_end < 30000 THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM k
WHERE prev_end IS NOT NULL;
