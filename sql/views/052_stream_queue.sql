-- stream_queue: the launch queue length of each stream as a step function, one row per change (HTA
-- trace_counters queue length, a CUDA/HIP graph launch counting once): the rows of the bundled query
-- queue_series with its defaults, in its order (seq). Per (trace, device, stream), +1 at the start of
-- each queue entry's launch call, -1 when the entry starts on the GPU; an entry is a GPU op with its
-- own launch call, or a CUDA/HIP graph launch's GPU ops on the stream (a launch call that ran more
-- than one GPU op; the entry leaves the queue when the first of them starts). GPU ops without a
-- launch call are left out. At equal times the +1s are applied before the -1s, and only the last
-- change at each time is kept (the earlier ones hold for 0 ns); a change at a NULL time is kept
-- (hold_ns NULL) and comes first on its stream.
-- Computed by the importer when materialised (src/import/analysis.cc): the same rows as this SELECT,
-- which --no-materialize keeps as the view and the tests compare with the table. Stored WITHOUT
-- ROWID in (trace_id, seq) order: a trace's series is one range of the key, read without a sort.
-- @materialize
-- @computed
-- @table CREATE TABLE stream_queue (trace_id INTEGER NOT NULL, seq INTEGER NOT NULL, device, stream, ts INTEGER, queue_length INTEGER NOT NULL, hold_ns INTEGER, PRIMARY KEY (trace_id, seq)) WITHOUT ROWID;
CREATE VIEW stream_queue AS
WITH graphs AS (                      -- launch calls that ran more than one GPU op
  SELECT launch_event_id AS id
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
  GROUP BY launch_event_id
  HAVING count(*) > 1
),
entries AS (                          -- a GPU op with its own launch call, or a graph launch's ops on
  SELECT trace_id, device, stream, launch_ts, gpu_ts  -- one stream (one launch time; the first start)
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL AND launch_event_id NOT IN (SELECT id FROM graphs)
  UNION ALL
  SELECT trace_id, device, stream, min(launch_ts), min(gpu_ts)
  FROM op_kernel_links
  WHERE launch_event_id IN (SELECT id FROM graphs)
  GROUP BY trace_id, device, stream, launch_event_id
),
changes AS (
  SELECT trace_id, device, stream, launch_ts AS ts, 1 AS delta FROM entries
  UNION ALL
  SELECT trace_id, device, stream, gpu_ts, -1 FROM entries
),
walk AS (                             -- in time order per stream (NULL first, +1 before -1): the
  SELECT trace_id, device, stream, ts, delta,  -- running sum and the next change's time
         sum(delta) OVER w AS queue_length,
         lead(ts) OVER w AS next_ts,
         lead(1) OVER w AS has_next
  FROM changes
  WINDOW w AS (PARTITION BY trace_id, device, stream ORDER BY ts, delta DESC ROWS UNBOUNDED PRECEDING)
),
kept AS (
  SELECT trace_id, device, stream, ts, delta, queue_length,
         CASE WHEN ts IS NOT NULL AND has_next THEN next_ts - ts END AS hold_ns
  FROM walk
)
SELECT
  trace_id,                           -- trace
  row_number() OVER (PARTITION BY trace_id ORDER BY device, stream, ts, delta DESC) AS seq,
                                      -- 1.. in (device, stream, time) order (queue_series' order)
  device,                             -- device (op_kernel_links.device)
  stream,                             -- stream (op_kernel_links.stream)
  ts,                                 -- time of the change (ns); NULL where the launch call or the
                                      -- GPU op has no time
  queue_length,                       -- launched-but-not-started entries after every change at ts
  hold_ns                             -- until the next change on the stream; NULL at the last one
FROM kept
WHERE hold_ns IS NOT 0;
