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
-- Method: a sweep line over op starts/ends (+1/-1 per class) and window opens/closes (+/-(N+1) for
-- step N), with running sums at each distinct time.
WITH names AS (                       -- class of each distinct GPU op: view gpu_op_classes
  SELECT name, kind, class FROM gpu_op_classes
),
ops AS (                              -- compute (comp = 1) and communication (comp = 0) intervals
  SELECT o.trace_id, o.device, o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts,
         n.class = 'compute' AS comp
  FROM op_kernels AS o
  CROSS JOIN names AS n
  WHERE n.name = o.gpu_name AND n.kind = o.gpu_kind AND n.class IN ('compute', 'communication')
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
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
win AS (
  SELECT trace_id, step, w_ts, max(end_w, w_ts) AS w_end FROM win1
),
edges AS (
  SELECT trace_id, device, ts AS t, comp AS d_comp, 1 - comp AS d_comm, 1 - comp AS comm_start, 0 AS d_step
  FROM ops
  UNION ALL
  SELECT trace_id, device, end_ts, -comp, comp - 1, 0, 0
  FROM ops
  UNION ALL                           -- window edges, on every device of the trace
  SELECT w.trace_id, d.device, w.w_ts, 0, 0, 0, w.step + 1
  FROM win AS w JOIN (SELECT DISTINCT trace_id, device FROM ops) AS d ON d.trace_id = w.trace_id
  UNION ALL
  SELECT w.trace_id, d.device, w.w_end, 0, 0, 0, -(w.step + 1)
  FROM win AS w JOIN (SELECT DISTINCT trace_id, device FROM ops) AS d ON d.trace_id = w.trace_id
),
state AS (                            -- what runs in [t, next t), and which step window it is in
  SELECT trace_id, device, t, comm_start,
         sum(d_comp) OVER peers AS n_comp,
         sum(d_comm) OVER peers AS n_comm,
         sum(d_step) OVER peers - 1 AS step,   -- -1: outside every window
         lead(t) OVER (PARTITION BY trace_id, device ORDER BY t ROWS UNBOUNDED PRECEDING) - t AS len
  FROM edges
  WINDOW peers AS (PARTITION BY trace_id, device ORDER BY t)  -- RANGE: all edges at t count
),
agg AS (
  SELECT trace_id, device,
         CASE WHEN coalesce(:per_step, 1) AND step >= 0 THEN step END AS step,
         coalesce(sum(CASE WHEN n_comm > 0 THEN len END), 0) AS comm_ns,
         coalesce(sum(CASE WHEN n_comm > 0 AND n_comp > 0 THEN len END), 0) AS overlapped_ns,
         coalesce(sum(CASE WHEN n_comp > 0 THEN len END), 0) AS compute_ns,
         sum(comm_start) AS comm_ops
  FROM state
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
