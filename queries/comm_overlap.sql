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
-- interleaved as marker rows. For each class the union of the op intervals grows, op by op, by the
-- part of the op past the furthest end of the earlier ops of that class; those pieces are disjoint,
-- so a window's share is the sum of the pieces of the ops that start in it, corrected at both of its
-- edges by the part of the union that an op started before the edge covers after it.
WITH names AS MATERIALIZED (          -- compute (comp = 1) and communication (comp = 0) op names, from
  SELECT name, kind, class = 'compute' AS comp   -- their class (view gpu_op_classes)
  FROM gpu_op_classes WHERE class IN ('compute', 'communication')
),
ops AS MATERIALIZED (                 -- compute and communication intervals
  SELECT o.trace_id, o.device, o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts, n.comp
  FROM names AS n
  JOIN op_kernels AS o ON o.gpu_name = n.name AND o.gpu_kind = n.kind
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
rows_ AS (                            -- ops (k = 2) and, on every device of the trace, window closes
  SELECT trace_id, device, ts AS t, 2 AS k, end_ts, comp, 0 AS d_step FROM ops   -- (k = 0) and
  UNION ALL                                                                       -- opens (k = 1)
  SELECT w.trace_id, d.device, e.k * w.w_ts + (1 - e.k) * w.w_end, e.k, NULL, NULL,
         (2 * e.k - 1) * (w.step + 1)
  FROM win AS w
  JOIN (SELECT DISTINCT trace_id, device FROM ops) AS d ON d.trace_id = w.trace_id
  CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) AS e
),
run AS (                              -- per row, from the rows before it in (t, k) order: the segment
  SELECT trace_id, device, t, k, end_ts, comp,   -- (0 before the first marker, +1 at each marker),
         coalesce(sum(k < 2) OVER w, 0) + (k < 2) AS seg,
         coalesce(sum(d_step) OVER w, 0) + d_step - 1 AS step,   -- -1: outside every window
         max(end_ts) OVER w AS m_all,                            -- furthest end of an earlier op
         max(CASE WHEN comp THEN end_ts END) OVER w AS m_comp,   -- ... of an earlier compute op
         max(CASE WHEN NOT comp THEN end_ts END) OVER w AS m_comm  -- ... communication op
  FROM rows_
  WINDOW w AS (PARTITION BY trace_id, device ORDER BY t, k
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
segs AS (                             -- per segment: the new union pieces of its ops (p_*), and at its
  SELECT trace_id, device, seg, max(step) AS step,   -- opening marker the union already covering
         sum(max(end_ts - max(t, coalesce(m_all, t)), 0)) AS p_all,   -- time after it (o_*)
         sum(CASE WHEN comp THEN max(end_ts - max(t, coalesce(m_comp, t)), 0) END) AS p_comp,
         sum(CASE WHEN NOT comp THEN max(end_ts - max(t, coalesce(m_comm, t)), 0) END) AS p_comm,
         max(CASE WHEN k < 2 THEN max(m_all - t, 0) END) AS o_all,
         max(CASE WHEN k < 2 THEN max(m_comp - t, 0) END) AS o_comp,
         max(CASE WHEN k < 2 THEN max(m_comm - t, 0) END) AS o_comm,
         sum(NOT comp) AS comm_ops
  FROM run
  GROUP BY trace_id, device, seg
),
seg_time AS (                         -- union time inside each segment
  SELECT trace_id, device, step, comm_ops,
         coalesce(p_all, 0) + coalesce(o_all, 0) - coalesce(lead(o_all) OVER s, 0) AS u_all,
         coalesce(p_comp, 0) + coalesce(o_comp, 0) - coalesce(lead(o_comp) OVER s, 0) AS u_comp,
         coalesce(p_comm, 0) + coalesce(o_comm, 0) - coalesce(lead(o_comm) OVER s, 0) AS u_comm
  FROM segs
  WINDOW s AS (PARTITION BY trace_id, device ORDER BY seg)
),
agg AS (
  SELECT trace_id, device,
         CASE WHEN coalesce(:per_step, 1) AND step >= 0 THEN step END AS step,
         sum(u_comm) AS comm_ns,
         sum(u_comm + u_comp - u_all) AS overlapped_ns,
         sum(u_comp) AS compute_ns,
         coalesce(sum(comm_ops), 0) AS comm_ops
  FROM seg_time
  GROUP BY trace_id, device, CASE WHEN coalesce(:per_step, 1) AND step >= 0 THEN step END
)
SELECT
  a.trace_id,
  t.rank,
  a.device,
  a.step,
  a.comm_ops,
  a.comm_ns,
  a.overlapped_ns,
  a.comm_ns - a.overlapped_ns AS exposed_ns,
  round(100.0 * a.overlapped_ns / nullif(a.comm_ns, 0), 2) AS overlap_pct,
  a.compute_ns
FROM agg AS a
JOIN traces AS t ON t.id = a.trace_id
WHERE a.step IS NOT NULL OR a.comm_ns > 0 OR NOT coalesce(:per_step, 1)
ORDER BY a.trace_id, a.device, a.step IS NULL, a.step;
