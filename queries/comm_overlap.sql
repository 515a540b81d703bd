-- name: comm_overlap
-- description: Communication GPU time hidden under compute vs exposed, per rank and device, per ProfilerStep (HTA get_comm_comp_overlap; TraceLens exposed_comm).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :per_step 1 {0|1} — 1: one row per step of each (trace, device); 0: one row per (trace, device) over the whole trace
--
-- Classes come from kernel_class_rules: communication ops vs compute ops (memory-class and other ops
-- neither hide nor are communication). Per (trace, device):
--   comm_ns        time at least one communication op runs (union, HTA's merged comm time)
--   overlapped_ns  time a communication op and a compute op run together
--   exposed_ns     comm_ns - overlapped_ns: communication nothing hides (TraceLens exposed_comm)
--   overlap_pct    overlapped_ns / comm_ns x 100 (HTA comp_comm_overlap_pctg)
--   compute_ns     time at least one compute op runs
--   comm_ops       communication ops that start in the row's time range
-- Steps: time is cut into one window per ProfilerStep, as the TensorBoard plugin does: a step's
-- window starts at its CPU start, moved later to the end of the previous window if that is later,
-- and ends at its CPU end or at the end of the last GPU op launched inside it, whichever is later.
-- Windows never overlap, so each nanosecond is counted once. Time outside every window (before the
-- first step, after the last, or a trace without steps) has step NULL; such a row is listed only
-- when it holds communication.
-- Method: gpu_segments cuts each device's busy time into disjoint pieces during which the same op
-- names run; a piece counts as communication (compute) when one of its names is of that class. A
-- window's share is the sum of its pieces clipped to it: those that start inside it plus the one
-- piece per device that starts before it and runs into it (view step_window_busy: the time per
-- combination of names in each window). The whole of a device is the time per combination of names
-- (read in the order of gpu_segments' (trace_id, device, name_ids, ...) index). Time outside every
-- window is the whole minus the windows. Overlap = comm + compute - (comm or compute).
-- comm_ops: per window, the communication ops that start in it (a range of op_kernel_links'
-- (trace_id, device, gpu_ts, ...) index); outside: the device's communication ops minus those.
-- An op with a negative duration occupies no time.
WITH names AS MATERIALIZED (          -- compute (comp = 1) and communication (comp = 0) op names, from
  SELECT name_id, class = 'compute' AS comp   -- their class (view gpu_op_classes)
  FROM gpu_op_classes WHERE class IN ('compute', 'communication') AND name IS NOT NULL
),
devs AS MATERIALIZED (                -- the devices with compute or communication ops (with a
  SELECT d.trace_id, d.device,        -- duration): per device of the (trace_id, device, gpu_ts,
         (SELECT count(*) FROM op_kernel_links AS o  -- gpu_dur, name_id) index, read in order; and
           WHERE o.trace_id = d.trace_id AND o.device IS d.device  -- its communication ops
             AND o.gpu_dur IS NOT NULL AND o.name_id IN (SELECT name_id FROM names WHERE NOT comp))
           AS comm_ops
  FROM (SELECT DISTINCT trace_id, device FROM op_kernel_links
        WHERE :trace_id IS NULL OR trace_id = :trace_id) AS d
  WHERE EXISTS (SELECT 1 FROM op_kernel_links AS o
                 WHERE o.trace_id = d.trace_id AND o.device IS d.device AND o.gpu_dur IS NOT NULL
                   AND o.name_id IN (SELECT name_id FROM names))
),
combos AS MATERIALIZED (              -- time per device and combination of names that run together
  SELECT trace_id, device, name_ids, sum(dur) AS dur  -- (gpu_segments, read in the order of its
  FROM gpu_segments                   -- (trace_id, device, name_ids, ts, dur) index: no sort)
  WHERE :trace_id IS NULL OR trace_id = :trace_id
  GROUP BY trace_id, device, name_ids
),
sets AS MATERIALIZED (                -- per combination of names that run together (a piece of
  SELECT s.name_ids,                  -- gpu_segments): communication, compute, either
         max(NOT n.comp) AS comm, max(n.comp) AS comp
  FROM (SELECT DISTINCT name_ids FROM combos) AS s, json_each('[' || s.name_ids || ']') AS j
  JOIN names AS n ON n.name_id = CAST(j.value AS INTEGER)
  GROUP BY s.name_ids
),
win AS MATERIALIZED (                 -- the step windows that hold time (view step_windows, see the
  SELECT trace_id, step, w_ts, w_end  -- header; an empty one gets no row)
  FROM step_windows
  WHERE w_end > w_ts AND coalesce(:per_step, 1) AND (:trace_id IS NULL OR trace_id = :trace_id)
),
sums AS MATERIALIZED (                -- per window and device: communication, compute, either, from
  SELECT b.trace_id, b.device, b.step,  -- the time each combination of names ran in the window (view
         sum(b.ns * s.comm) AS comm_ns,  -- step_window_busy)
         sum(b.ns * s.comp) AS compute_ns,
         sum(b.ns) AS all_ns
  FROM step_window_busy AS b
  CROSS JOIN sets AS s ON s.name_ids = b.name_ids
  WHERE coalesce(:per_step, 1) AND (:trace_id IS NULL OR b.trace_id = :trace_id)
  GROUP BY b.trace_id, b.device, b.step
),
cops AS MATERIALIZED (                -- per window and device: communication ops that start in it
  SELECT w.trace_id, d.device, w.step,  -- (a range of the (trace_id, device, gpu_ts, ...) index)
         (SELECT count(*) FROM op_kernel_links AS o
           WHERE o.trace_id = w.trace_id AND o.device IS d.device
             AND o.gpu_ts >= w.w_ts AND o.gpu_ts < w.w_end AND o.gpu_dur IS NOT NULL
             AND o.name_id IN (SELECT name_id FROM names WHERE NOT comp)) AS comm_ops
  FROM win AS w
  JOIN devs AS d ON d.trace_id = w.trace_id
),
wholes AS MATERIALIZED (              -- the whole of each device, from its combinations of names
  SELECT c.trace_id, c.device,
         sum(c.dur * s.comm) AS comm_ns, sum(c.dur * s.comp) AS compute_ns, sum(c.dur) AS all_ns
  FROM combos AS c
  CROSS JOIN sets AS s ON s.name_ids = c.name_ids
  GROUP BY c.trace_id, c.device
),
agg AS (                              -- windows; outside: the whole minus the windows
  SELECT w.trace_id, d.device, w.step,
         coalesce(s.comm_ns, 0) AS comm_ns, coalesce(s.compute_ns, 0) AS compute_ns,
         coalesce(s.all_ns, 0) AS all_ns, coalesce(c.comm_ops, 0) AS comm_ops
  FROM (SELECT DISTINCT trace_id, step FROM win) AS w   -- (a step number twice: one row)
  JOIN devs AS d ON d.trace_id = w.trace_id
  LEFT JOIN sums AS s ON s.trace_id = w.trace_id AND s.device IS d.device AND s.step = w.step
  LEFT JOIN (SELECT trace_id, device, step, sum(comm_ops) AS comm_ops  -- (a step number twice: one
             FROM cops GROUP BY trace_id, device, step) AS c     -- row)
    ON c.trace_id = w.trace_id AND c.device IS d.device AND c.step = w.step
  UNION ALL
  SELECT o.trace_id, o.device, NULL,
         coalesce(h.comm_ns, 0) - coalesce((SELECT sum(comm_ns) FROM sums AS x
                                            WHERE x.trace_id = o.trace_id AND x.device IS o.device), 0),
         coalesce(h.compute_ns, 0) - coalesce((SELECT sum(compute_ns) FROM sums AS x
                                               WHERE x.trace_id = o.trace_id AND x.device IS o.device), 0),
         coalesce(h.all_ns, 0) - coalesce((SELECT sum(all_ns) FROM sums AS x
                                           WHERE x.trace_id = o.trace_id AND x.device IS o.device), 0),
         o.comm_ops - coalesce((SELECT sum(c.comm_ops) FROM cops AS c
                                 WHERE c.trace_id = o.trace_id AND c.device IS o.device), 0)
  FROM devs AS o
  LEFT JOIN wholes AS h ON h.trace_id = o.trace_id AND h.device IS o.device
)
SELECT
  a.trace_id,
  t.rank,
  a.device,
  a.step,
  a.comm_ops,
  a.comm_ns,
  a.comm_ns + a.compute_ns - a.all_ns AS overlapped_ns,
  a.all_ns - a.compute_ns AS exposed_ns,
  round(100.0 * (a.comm_ns + a.compute_ns - a.all_ns) / nullif(a.comm_ns, 0), 2) AS overlap_pct,
  a.compute_ns
FROM agg AS a
JOIN traces AS t ON t.id = a.trace_id
WHERE a.step IS NOT NULL OR a.comm_ns > 0 OR NOT coalesce(:per_step, 1)
ORDER BY a.trace_id, a.device, a.step IS NULL, a.step;
