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
-- Method: one pass over each device's ops in start order, with the window opens and closes
-- interleaved as marker rows. Each set of ops (all, kernels, memcpys/memsets, communication,
-- compute, communication or compute) covers a union of intervals, which grows, op by op, by the part
-- of the op past the furthest end of the earlier ops of the set. Those pieces are disjoint, so a
-- window's share is the sum of the pieces of the ops that start in it, plus at its open and minus
-- at its close the part of the union that ops started before that edge cover after it.
-- An op with a negative duration occupies no time.
WITH names AS MATERIALIZED (          -- class bits of each distinct GPU op (view gpu_op_classes):
  SELECT name_id,                     -- 1 kernel, 2 communication, 4 compute
         (kind = 'kernel') + 2 * (class = 'communication') + 4 * (class = 'compute') AS bits
  FROM gpu_op_classes
  WHERE name IS NOT NULL
),
ops AS (
  SELECT o.trace_id, o.device, o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts, n.bits
  FROM op_kernel_links AS o           -- GPU ops, by name id: no names read
  JOIN names AS n ON n.name_id = o.name_id
  WHERE o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
),
win0 AS (                             -- step windows (see the header)
  SELECT trace_id, step, ts AS cpu_ts, dur AS cpu_dur, gpu_ops,
         max(end_ts, coalesce(gpu_end_ts, end_ts)) AS end_w
  FROM steps
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
win1 AS (
  SELECT w.*,
         max(cpu_ts, coalesce(max(end_w) OVER (PARTITION BY trace_id ORDER BY cpu_ts, step
                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                              cpu_ts)) AS w_ts
  FROM win0 AS w
),
win AS (
  SELECT trace_id, step, cpu_ts, cpu_dur, gpu_ops, w_ts, max(end_w, w_ts) AS w_end FROM win1
),
devs AS (                             -- the devices of ops (names holds every op's name)
  SELECT DISTINCT trace_id, device FROM ops
),
rows_ AS (                            -- ops (k = 2) and, on every device of the trace, the closes (k = 0)
  SELECT trace_id, device, ts AS t, 2 AS k, end_ts, bits, 0 AS d_step
  FROM ops                            -- and opens (k = 1) of the windows that hold time
  UNION ALL
  SELECT w.trace_id, d.device, e.k * w.w_ts + (1 - e.k) * w.w_end, e.k, NULL, NULL,
         (2 * e.k - 1) * (w.step + 1)
  FROM win AS w
  JOIN devs AS d ON d.trace_id = w.trace_id
  CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1) AS e
  WHERE w.w_end > w.w_ts
),
run0 AS (                             -- per row, over the rows before it in (t, k) order: the furthest
  SELECT trace_id, device, t, k, end_ts, bits,   -- end of an op of each set
         -- the window the row counts for: a close counts for the window it closes; -1: none
         coalesce(sum(d_step) OVER w, 0) + max(d_step, 0) - 1 AS step,
         max(CASE WHEN bits & 1 THEN end_ts END) OVER w AS m_k,
         max(CASE WHEN NOT bits & 1 THEN end_ts END) OVER w AS m_m,
         max(CASE WHEN bits & 2 THEN end_ts END) OVER w AS m_comm,
         max(CASE WHEN bits & 4 THEN end_ts END) OVER w AS m_comp
  FROM rows_
  WINDOW w AS (PARTITION BY trace_id, device ORDER BY t, k
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
run AS (                              -- all ops = kernels + the rest; comm or compute: the two of them
  SELECT *, max(coalesce(m_k, m_m), coalesce(m_m, m_k)) AS m_all,
         max(coalesce(m_comm, m_comp), coalesce(m_comp, m_comm)) AS m_cc
  FROM run0
),
agg AS (                              -- per window: pieces of its ops, edge corrections at its markers
  SELECT trace_id, device, step,
         sum(CASE WHEN k = 2 THEN max(end_ts - max(t, coalesce(m_all, t)), 0)
                  ELSE (2 * k - 1) * max(m_all - t, 0) END) AS busy_ns,
         sum(CASE WHEN k = 2 THEN CASE WHEN bits & 1 THEN max(end_ts - max(t, coalesce(m_k, t)), 0) END
                  ELSE (2 * k - 1) * max(m_k - t, 0) END) AS kernel_ns,
         sum(CASE WHEN k = 2 THEN CASE WHEN NOT bits & 1 THEN max(end_ts - max(t, coalesce(m_m, t)), 0) END
                  ELSE (2 * k - 1) * max(m_m - t, 0) END) AS memcpy_ns,
         sum(CASE WHEN k = 2 THEN CASE WHEN bits & 2 THEN max(end_ts - max(t, coalesce(m_comm, t)), 0) END
                  ELSE (2 * k - 1) * max(m_comm - t, 0) END) AS comm_ns,
         sum(CASE WHEN k = 2 THEN CASE WHEN bits & 4 THEN max(end_ts - max(t, coalesce(m_comp, t)), 0) END
                  ELSE (2 * k - 1) * max(m_comp - t, 0) END) AS compute_ns,
         sum(CASE WHEN k = 2 THEN CASE WHEN bits & 6 THEN max(end_ts - max(t, coalesce(m_cc, t)), 0) END
                  ELSE (2 * k - 1) * max(m_cc - t, 0) END) AS cc_ns
  FROM run
  WHERE step >= 0
  GROUP BY trace_id, device, step
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
