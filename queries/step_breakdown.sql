-- name: step_breakdown
-- description: Per ProfilerStep and device: CPU duration, the step's GPU window with its busy and idle time, and the time kernels, memcpys/memsets, communication and compute ran in it (TensorBoard plugin step view, TraceLens timeline per step).
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
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
-- set is the sum of its pieces clipped to the window: the pieces that start inside it (a range of
-- the table's key), plus the one piece per device that starts before it and runs into it: the rows
-- of view step_window_segments, summed here per window while its key range is read (grouping the
-- view's rows would sort all the pieces: 20-25 % slower on 250 k GPU ops).
-- An op with a negative duration occupies no time.
WITH names AS MATERIALIZED (          -- class bits of each distinct GPU op (view gpu_op_classes):
  SELECT name_id,                     -- 1 kernel, 2 communication, 4 compute
         (kind = 'kernel') + 2 * (class = 'communication') + 4 * (class = 'compute') AS bits
  FROM gpu_op_classes
  WHERE name IS NOT NULL
),
devs AS MATERIALIZED (                -- the devices of the trace's GPU ops (with a known duration)
  SELECT DISTINCT o.trace_id, o.device
  FROM op_kernel_links AS o           -- GPU ops, by name id: no names read
  CROSS JOIN names AS n ON n.name_id = o.name_id  -- (the ops scanned once, names looked up)
  WHERE o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
),
sets AS MATERIALIZED (                -- per combination of names that run together (a piece of
  SELECT s.name_ids,                  -- gpu_segments): which sets of ops it counts for
         max(n.bits & 1) AS k,        -- a kernel
         max(NOT n.bits & 1) AS m,    -- a memcpy or memset
         max((n.bits & 2) > 0) AS comm,
         max((n.bits & 4) > 0) AS comp,
         max((n.bits & 6) > 0) AS cc
  FROM (SELECT DISTINCT name_ids FROM gpu_segments WHERE :trace_id IS NULL OR trace_id = :trace_id) AS s
  CROSS JOIN json_each('[' || s.name_ids || ']') AS j
  JOIN names AS n ON n.name_id = j.value
  GROUP BY s.name_ids
),
win AS MATERIALIZED (                 -- the step windows (view step_windows, see the header)
  SELECT * FROM step_windows WHERE :trace_id IS NULL OR trace_id = :trace_id
),
wd AS MATERIALIZED (                  -- each window that holds time on each device: the time of
  SELECT w.trace_id, w.step, w.w_ts, w.w_end, d.device,  -- the pieces that start in it (a key range,
         (SELECT json_array(sum(min(g.ts + g.dur, w.w_end) - g.ts),  -- one scan per window, no sort)
                            sum((min(g.ts + g.dur, w.w_end) - g.ts) * s.k),
                            sum((min(g.ts + g.dur, w.w_end) - g.ts) * s.m),
                            sum((min(g.ts + g.dur, w.w_end) - g.ts) * s.comm),
                            sum((min(g.ts + g.dur, w.w_end) - g.ts) * s.comp),
                            sum((min(g.ts + g.dur, w.w_end) - g.ts) * s.cc))
            FROM gpu_segments AS g
            CROSS JOIN sets AS s ON s.name_ids = g.name_ids
           WHERE g.trace_id = w.trace_id AND g.ts >= w.w_ts AND g.ts < w.w_end
             AND g.device IS d.device) AS inside,
         (SELECT x.ts FROM gpu_segments AS x  -- and the last piece that starts before it
           WHERE x.trace_id = w.trace_id AND x.ts < w.w_ts AND x.device IS d.device
           ORDER BY x.ts DESC LIMIT 1) AS prev_ts
  FROM win AS w
  JOIN devs AS d ON d.trace_id = w.trace_id
  WHERE w.w_end > w.w_ts
),
agg AS (                              -- per window and device: each set's time, with the part of that
  SELECT x.trace_id, x.device, x.step,  -- last piece that runs into the window
         sum(coalesce(x.inside ->> 0, 0) + coalesce(min(g.ts + g.dur, x.w_end) - x.w_ts, 0)) AS busy_ns,
         sum(coalesce(x.inside ->> 1, 0) + coalesce((min(g.ts + g.dur, x.w_end) - x.w_ts) * s.k, 0)) AS kernel_ns,
         sum(coalesce(x.inside ->> 2, 0) + coalesce((min(g.ts + g.dur, x.w_end) - x.w_ts) * s.m, 0)) AS memcpy_ns,
         sum(coalesce(x.inside ->> 3, 0) + coalesce((min(g.ts + g.dur, x.w_end) - x.w_ts) * s.comm, 0)) AS comm_ns,
         sum(coalesce(x.inside ->> 4, 0) + coalesce((min(g.ts + g.dur, x.w_end) - x.w_ts) * s.comp, 0)) AS compute_ns,
         sum(coalesce(x.inside ->> 5, 0) + coalesce((min(g.ts + g.dur, x.w_end) - x.w_ts) * s.cc, 0)) AS cc_ns
  FROM wd AS x
  LEFT JOIN gpu_segments AS g
    ON g.trace_id = x.trace_id AND g.ts = x.prev_ts AND g.device IS x.device AND g.ts + g.dur > x.w_ts
  LEFT JOIN sets AS s ON s.name_ids = g.name_ids
  GROUP BY x.trace_id, x.device, x.step
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
