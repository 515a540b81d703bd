-- op_kernels: which host work launched each GPU op. Exactly one row per GPU op (gpu_ops).
-- The launch is the runtime call with the same correlation id in the same trace (one call maps to all
-- kernels of a CUDA/HIP graph launch); where no runtime call carries the correlation, the source of
-- a launch flow (ac2g and its legacy names) bound to the op. No launch found: launch columns NULL.
-- Materialised into a table at import (same SQL); databases imported with --no-materialize get the view.
-- @materialize
CREATE VIEW op_kernels AS
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
)
SELECT
  g.trace_id,                         -- trace
  g.id AS gpu_event_id,               -- the GPU op (events.id)
  g.name AS gpu_name,
  g.kind AS gpu_kind,                 -- 'kernel' | 'memcpy' | 'memset'
  g.ts AS gpu_ts,
  g.dur AS gpu_dur,
  g.device,
  g.stream,
  g.correlation,
  l.id AS launch_event_id,            -- the runtime call (cudaLaunchKernel, hipGraphLaunch, ...)
  l.name AS launch_name,
  l.ts AS launch_ts,
  l.dur AS launch_dur,
  l.thread_id AS launch_thread_id,    -- host thread that launched it
  op.id AS op_event_id,               -- innermost CPU op enclosing the launch on its thread
  op.name AS op_name,
  top.id AS top_op_event_id,          -- outermost CPU op enclosing the launch
  top.name AS top_op_name,
  coalesce(g.step, l.step) AS step,   -- N of the enclosing ProfilerStep#N (of the launch)
  g.ts - (l.ts + l.dur) AS launch_delay  -- signed: GPU start minus launch-call end (ns)
FROM linked AS g
LEFT JOIN events AS l ON l.id = g.launch_id
LEFT JOIN events AS op ON op.id = l.cpu_op_id
LEFT JOIN events AS top ON top.id = l.top_cpu_op_id;
-- @index CREATE UNIQUE INDEX op_kernels_gpu ON op_kernels(gpu_event_id);
-- @index CREATE INDEX op_kernels_launch ON op_kernels(launch_event_id);
-- @index CREATE INDEX op_kernels_launch_thread_ts ON op_kernels(launch_thread_id, launch_ts);
-- @index CREATE INDEX op_kernels_op ON op_kernels(op_event_id);
