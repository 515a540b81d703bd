-- name: step_breakdown
-- description: Per ProfilerStep and device: CPU duration, the step's GPU window with its busy and idle time, and the time kernels, memcpys/memsets, communication and compute ran in it (TensorBoard plugin step view, TraceLens timeline per step).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
--
-- The step's GPU window (as the TensorBoard plugin builds it): from the step's CPU start, moved later
-- to the end of the previous step's window if that is later, to the later of its CPU end and the end
-- of the last GPU op launched inside the step. Windows never overlap, so GPU time is counted once;
-- time between windows belongs to no step. Per device of the trace, inside the window:
--   gpu_busy_ns     time at least one GPU op (kernel, memcpy, memset, any stream) runs
--   gpu_idle_ns     window_ns - gpu_busy_ns (also the ramp-up before the first op of the step)
--   gpu_util_pct    gpu_busy_ns / window_ns x 100
--   kernel_ns       time at least one kernel runs (any class)
--   memcpy_ns       time at least one memcpy or memset runs
--   comm_ns         time at least one communication-class op runs (kernel_class_rules)
--   compute_ns      time at least one compute-class op runs
--   exposed_comm_ns time communication runs and compute does not (TraceLens exposed_comm)
-- These overlap one another (a comm kernel is a kernel); only busy + idle add up to the window.
-- Also: cpu_ts / cpu_dur (the ProfilerStep annotation itself), gpu_ops (GPU ops launched inside the
-- step, wherever they ran). A trace without ProfilerStep annotations gives no rows.
-- Method: gpu_segments cuts each device's busy time into disjoint pieces during which the same op
-- names run; a piece counts for a set of ops (all, kernels, memcpys/memsets, communication,
-- compute, communication or compute) when one of its names is in the set. A window's share of a
-- set is the sum of its pieces clipped to the window: the pieces that start inside it, plus the
-- one piece per device that starts before it and runs into it (view step_window_busy: the time per
-- combination of names in each window, read from gpu_segments' indexes without a sort).
-- An op with a negative duration occupies no time.
WITH names AS MATERIALIZED (          -- class bits of each distinct GPU op (view gpu_op_classes):
  SELECT name_id,                     -- 1 kernel, 2 communication, 4 compute
         (kind = 'kernel') + 2 * (class = 'communication') + 4 * (class = 'compute') AS bits
  FROM gpu_op_classes
  WHERE name IS NOT NULL
),
devs AS MATERIALIZED (                -- the devices of the trace's GPU ops (with a known duration)
  SELECT d.trace_id, d.device         -- and a name: per device of the (trace_id, device, ...) index
  FROM (SELECT DISTINCT trace_id, device FROM op_kernel_links  -- (read in order), the first such op
        WHERE :trace_id IS NULL OR trace_id = :trace_id) AS d
  WHERE EXISTS (SELECT 1 FROM op_kernel_links AS o
                 WHERE o.trace_id = d.trace_id AND o.device IS d.device AND o.gpu_dur IS NOT NULL
                   AND o.name_id IN (SELECT name_id FROM names))
),
win AS MATERIALIZED (                 -- the step windows (view step_windows, see the header)
  SELECT * FROM step_windows WHERE :trace_id IS NULL OR trace_id = :trace_id
),
busy AS MATERIALIZED (                -- the time each combination of names ran in each window and
  SELECT trace_id, device, step, name_ids, ns  -- device (view step_window_busy)
  FROM step_window_busy
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
sets AS MATERIALIZED (                -- per combination of names that run together (a piece of
  SELECT s.name_ids,                  -- gpu_segments): which sets of ops it counts for
         max(n.bits & 1) AS k,        -- a kernel
         max(NOT n.bits & 1) AS m,    -- a memcpy or memset
         max((n.bits & 2) > 0) AS comm,
         max((n.bits & 4) > 0) AS comp,
         max((n.bits & 6) > 0) AS cc
  FROM (SELECT DISTINCT name_ids FROM busy) AS s, json_each('[' || s.name_ids || ']') AS j
  JOIN names AS n ON n.name_id = CAST(j.value AS INTEGER)
  GROUP BY s.name_ids
),
agg AS (                              -- per window and device: the time of each set of ops
  SELECT b.trace_id, b.device, b.step,
         sum(b.ns) AS busy_ns,
         sum(b.ns * s.k) AS kernel_ns,
         sum(b.ns * s.m) AS memcpy_ns,
         sum(b.ns * s.comm) AS comm_ns,
         sum(b.ns * s.comp) AS compute_ns,
         sum(b.ns * s.cc) AS cc_ns
  FROM busy AS b
  CROSS JOIN sets AS s ON s.name_ids = b.name_ids
  GROUP BY b.trace_id, b.device, b.step
)
SELECT
  w.trace_id,
  w.step,
  d.device,
  w.cpu_ts,
  w.cpu_dur,
  w.gpu_ops,
  w.w_ts AS window_ts,
  w.w_end - w.w_ts AS window_ns,
  coalesce(a.busy_ns, 0) AS gpu_busy_ns,
  w.w_end - w.w_ts - coalesce(a.busy_ns, 0) AS gpu_idle_ns,
  round(100.0 * coalesce(a.busy_ns, 0) / nullif(w.w_end - w.w_ts, 0), 2) AS gpu_util_pct,
  coalesce(a.kernel_ns, 0) AS kernel_ns,
  coalesce(a.memcpy_ns, 0) AS memcpy_ns,
  coalesce(a.comm_ns, 0) AS comm_ns,
  coalesce(a.compute_ns, 0) AS compute_ns,
  coalesce(a.cc_ns, 0) - coalesce(a.compute_ns, 0) AS exposed_comm_ns
FROM win AS w
LEFT JOIN devs AS d ON d.trace_id = w.trace_id
LEFT JOIN agg AS a ON a.trace_id = w.trace_id AND a.step = w.step AND a.device IS d.device
ORDER BY w.trace_id, w.cpu_ts, w.step, d.device;
