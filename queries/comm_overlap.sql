-- name: comm_overlap
-- description: Communication GPU time hidden under compute vs exposed, per rank and device, per ProfilerStep (HTA get_comm_comp_overlap; TraceLens exposed_comm).
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :per_step 1 — 1: one row per step of each (trace, device); 0: one row per (trace, device) over the whole trace
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
-- Method: one pass over each device's ops in start order, with the step windows' opens and closes
-- interleaved as marker rows. For each set of ops (communication, compute, both) the union of their
-- intervals grows, op by op, by the part of the op past the furthest end of the earlier ops of the
-- set; those pieces are disjoint, so a window's share is the sum of the pieces of the ops that start
-- in it, plus at its open and minus at its close the part of the union that ops started before
-- that edge cover after it. Time outside every window is the whole minus the windows. Overlap =
-- comm + compute - (comm or compute). An op with a negative duration occupies no time.
WITH names AS MATERIALIZED (          -- compute (comp = 1) and communication (comp = 0) op names, from
  SELECT name_id, class = 'compute' AS comp   -- their class (view gpu_op_classes)
  FROM gpu_op_classes WHERE class IN ('compute', 'communication') AND name IS NOT NULL
),
ops AS MATERIALIZED (                 -- compute and communication intervals (GPU ops by name id:
  SELECT o.trace_id, o.device, o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts, n.comp  -- no names read)
  FROM op_kernel_links AS o
  JOIN names AS n ON n.name_id = o.name_id
  WHERE o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
),
win0 AS (                             -- step windows (see the header)
  SELECT trace_id, step, ts AS cpu_ts, max(end_ts, coalesce(gpu_end_ts, end_ts)) AS end_w
  FROM steps
  WHERE coalesce(:per_step, 1) AND (:trace_id IS NULL OR trace_id = :trace_id)
),
win1 AS (
  SELECT trace_id, step, end_w,
         max(cpu_ts, coalesce(max(end_w) OVER (PARTITION BY trace_id ORDER BY cpu_ts, step
                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                              cpu_ts)) AS w_ts
  FROM win0
),
win AS (                              -- windows that hold time (an empty one gets none, and no row)
  SELECT trace_id, step, w_ts, end_w AS w_end FROM win1 WHERE end_w > w_ts
),
devs AS MATERIALIZED (SELECT DISTINCT trace_id, device FROM ops),
rows_ AS (                            -- ops (k = 2) and, on every device of the trace, window closes
  SELECT trace_id, device, ts AS t, 2 AS k, end_ts, comp, 0 AS d_step FROM ops   -- (k = 0) and
  UNION ALL                                                                       -- opens (k = 1)
  SELECT w.trace_id, d.device, e.k * w.w_ts + (1 - e.k) * w.w_end, e.k, NULL, NULL,
         (2 * e.k - 1) * (w.step + 1)
  FROM win AS w
  JOIN devs AS d ON d.trace_id = w.trace_id
  CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) AS e
  UNION ALL                           -- and one empty row per device outside every window (k = 3), so
  SELECT trace_id, device, NULL, 3, NULL, NULL, 0 FROM devs   -- that the outside group exists
),
run0 AS (                             -- per row, over the rows before it in (t, k) order: the furthest
  SELECT trace_id, device, t, k, end_ts, comp,   -- end of an earlier op of each set, and the window
         -- the row counts for: a close counts for the window it closes; -1: none
         coalesce(sum(d_step) OVER w, 0) + max(d_step, 0) - 1 AS step,
         max(CASE WHEN comp THEN end_ts END) OVER w AS m_comp,
         max(CASE WHEN NOT comp THEN end_ts END) OVER w AS m_comm
  FROM rows_
  WINDOW w AS (PARTITION BY trace_id, device ORDER BY t, k
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
run AS (                              -- both sets: the later of the two
  SELECT *, max(coalesce(m_comp, m_comm), coalesce(m_comm, m_comp)) AS m_all FROM run0
),
parts AS (                            -- per window (-1: outside): the new union pieces of its ops (p_*)
  SELECT trace_id, device, step,      -- and, at its open (+) and close (-), what the union already
         coalesce(sum(CASE WHEN k = 2 THEN max(end_ts - max(t, coalesce(m_all, t)), 0) END), 0) AS p_all,
         coalesce(sum(CASE WHEN k = 2 AND comp THEN max(end_ts - max(t, coalesce(m_comp, t)), 0) END), 0) AS p_comp,
         coalesce(sum(CASE WHEN k = 2 AND NOT comp THEN max(end_ts - max(t, coalesce(m_comm, t)), 0) END), 0) AS p_comm,
         coalesce(sum(CASE WHEN k < 2 THEN (2 * k - 1) * max(m_all - t, 0) END), 0) AS c_all,   -- covers
         coalesce(sum(CASE WHEN k < 2 THEN (2 * k - 1) * max(m_comp - t, 0) END), 0) AS c_comp, -- past it
         coalesce(sum(CASE WHEN k < 2 THEN (2 * k - 1) * max(m_comm - t, 0) END), 0) AS c_comm,
         coalesce(sum(NOT comp), 0) AS comm_ops
  FROM run
  GROUP BY trace_id, device, step
),
agg AS (                              -- windows: pieces + corrections; outside: the rest of the whole
  SELECT trace_id, device, CASE WHEN step >= 0 THEN step END AS step,
         CASE WHEN step >= 0 THEN p_comm + c_comm
              ELSE sum(p_comm) OVER d - sum(p_comm + c_comm) OVER d + p_comm + c_comm END AS comm_ns,
         CASE WHEN step >= 0 THEN p_comp + c_comp
              ELSE sum(p_comp) OVER d - sum(p_comp + c_comp) OVER d + p_comp + c_comp END AS compute_ns,
         CASE WHEN step >= 0 THEN p_all + c_all
              ELSE sum(p_all) OVER d - sum(p_all + c_all) OVER d + p_all + c_all END AS all_ns,
         comm_ops
  FROM parts
  WINDOW d AS (PARTITION BY trace_id, device)
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
