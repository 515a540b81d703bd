-- op_kernel_links: the ids and times behind op_kernels (which host work launched each GPU op), one row
-- per GPU op (gpu_ops), without the names: op_kernels adds those from events, so the materialised
-- table stays small (names of kernels are long) and a query that needs no name reads no event.
-- The launch is the runtime call with the same correlation id in the same trace (one call maps to all
-- kernels of a CUDA/HIP graph launch); where no runtime call carries the correlation, the source of
-- a launch flow (ac2g and its legacy names) bound to the op. No launch found: launch columns NULL.
-- A table after every import, also with --no-materialize: every other analysis view reads it,
-- autograd_pairs once per row (as a view that took minutes on a 150 MB trace). The importer computes
-- its rows (src/import/analysis.cc); this SELECT is their definition, and the tests compare the two.
-- name_id (gpu_op_names) lets queries classify or group ops without reading their long names, and
-- launch_name_id group them by launch API without reading the launch call.
-- Stored with gpu_event_id as its rowid (the rows are GPU ops, one each): a lookup by GPU op is one
-- seek, and every index below carries the GPU op's id.
-- @materialize always
-- @computed
-- @table CREATE TABLE op_kernel_links(trace_id INT, gpu_event_id INTEGER PRIMARY KEY, gpu_kind, gpu_ts INT, gpu_dur INT, device, stream, correlation INT, launch_event_id INT, launch_ts INT, launch_dur INT, launch_thread_id INT, op_event_id INT, top_op_event_id INT, step, launch_delay, name_id, queue, launch_name_id INT);
CREATE VIEW op_kernel_links AS
WITH launch_by_corr AS (
  SELECT trace_id, correlation, min(id) AS id
  FROM runtime_calls
  WHERE correlation > 0
  GROUP BY trace_id, correlation
),
linked AS (
  SELECT
    g.*,
    coalesce(
      (SELECT lc.id FROM launch_by_corr AS lc
        WHERE lc.trace_id = g.trace_id AND lc.correlation = g.correlation AND g.correlation > 0),
      (SELECT f.src_event_id FROM flows AS f
        WHERE f.dst_event_id = g.id AND f.src_event_id IS NOT NULL
          AND f.cat IN ('ac2g', 'async', 'async_cpu_to_gpu', 'async_gpu')
        ORDER BY f.id LIMIT 1)
    ) AS launch_id
  FROM gpu_ops AS g
),
-- The queue of each (device, stream): +1 when a launch call starts, -1 when its GPU op starts, in
-- time order (NULL first; +1 before -1 at one time; then by op id); the running sum at each +1.
changes AS (
  SELECT g.trace_id, g.device, g.stream, g.id AS gpu_event_id, l.ts AS t, 1 AS delta
  FROM linked AS g JOIN events AS l ON l.id = g.launch_id
  UNION ALL
  SELECT g.trace_id, g.device, g.stream, g.id, g.ts, -1
  FROM linked AS g WHERE g.launch_id IS NOT NULL
),
queue AS (
  SELECT gpu_event_id, queue FROM (
    SELECT gpu_event_id, delta,
           sum(delta) OVER (PARTITION BY trace_id, device, stream
                            ORDER BY t, delta DESC, gpu_event_id ROWS UNBOUNDED PRECEDING) AS queue
    FROM changes)
  WHERE delta = 1
)
SELECT
  g.trace_id,                         -- trace
  g.id AS gpu_event_id,               -- the GPU op (events.id)
  g.kind AS gpu_kind,                 -- 'kernel' | 'memcpy' | 'memset'
  g.ts AS gpu_ts,                     -- GPU op start (ns)
  g.dur AS gpu_dur,                   -- GPU op duration (ns)
  g.device,                           -- device (args 'device', else the GPU track's pid)
  g.stream,                           -- stream (args 'stream', else the GPU track's tid)
  g.correlation,                      -- correlation id of the GPU op
  l.id AS launch_event_id,            -- the runtime call (cudaLaunchKernel, hipGraphLaunch, ...)
  l.ts AS launch_ts,                  -- launch call start (ns)
  l.dur AS launch_dur,                -- launch call duration (ns)
  l.thread_id AS launch_thread_id,    -- host thread that launched it
  l.cpu_op_id AS op_event_id,         -- innermost CPU op enclosing the launch on its thread
  l.top_cpu_op_id AS top_op_event_id, -- outermost CPU op enclosing the launch
  coalesce(g.step, l.step) AS step,   -- N of the enclosing ProfilerStep#N (of the launch)
  g.ts - (l.ts + l.dur) AS launch_delay, -- signed: GPU start minus launch-call end (ns)
  (SELECT n.id FROM gpu_op_names AS n WHERE n.name IS g.name AND n.kind = g.kind) AS name_id,
                                      -- gpu_op_names.id of the op's (name, kind)
  q.queue,                            -- GPU ops launched on the op's (device, stream) and not yet
                                      -- started, this one included, as its launch call starts (see
                                      -- queue below); NULL without a launch
  CASE WHEN l.id IS NOT NULL THEN min(l.id) OVER (PARTITION BY g.trace_id, l.name) END AS launch_name_id
                                      -- the launch call's name as a number: the lowest events.id of the
                                      -- trace's launch calls with that name (launch API: cudaLaunchKernel,
                                      -- ...; equal ids, equal names); NULL without a launch
FROM linked AS g
LEFT JOIN events AS l ON l.id = g.launch_id
LEFT JOIN queue AS q ON q.gpu_event_id = g.id;
-- @index CREATE INDEX op_kernel_links_launch ON op_kernel_links(launch_event_id);
-- @index CREATE INDEX op_kernel_links_launch_thread_ts ON op_kernel_links(launch_thread_id, launch_ts);
-- @index CREATE INDEX op_kernel_links_op ON op_kernel_links(op_event_id);
-- @index CREATE INDEX op_kernel_links_kernel_dur ON op_kernel_links(name_id, gpu_dur, trace_id, device) WHERE gpu_kind = 'kernel' AND gpu_dur IS NOT NULL;
-- Each device's GPU ops in time order with what a span or a class needs (trace_id, device, gpu_ts,
-- gpu_dur, name_id): a query that groups ops by device reads it in order, without sorting every op.
-- @index CREATE INDEX op_kernel_links_device ON op_kernel_links(trace_id, device, gpu_ts, gpu_dur, name_id);
-- The GPU ops with a launch by (trace, launch call name, GPU op name) with the times launch_stats sums:
-- it groups them in this order, reading neither the table nor the launch calls' events rows.
-- @index CREATE INDEX op_kernel_links_launch_name ON op_kernel_links(trace_id, launch_name_id, name_id, launch_dur, gpu_dur, launch_delay, gpu_ts, launch_ts) WHERE launch_name_id IS NOT NULL;
