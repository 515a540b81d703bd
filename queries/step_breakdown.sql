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
WITH names AS (                       -- class of each distinct GPU op: view gpu_op_classes
  SELECT name, kind, class FROM gpu_op_classes
),
ops AS (
  SELECT o.trace_id, o.device, o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts,
         o.gpu_kind = 'kernel' AS is_kernel,
         n.class = 'communication' AS is_comm,
         n.class = 'compute' AS is_comp
  FROM op_kernels AS o
  CROSS JOIN names AS n
  WHERE n.name = o.gpu_name AND n.kind = o.gpu_kind
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
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
devs AS (SELECT DISTINCT trace_id, device FROM ops),
edges AS (                            -- +1/-1 per op for each of its flags; +/-(N+1) for window N
  SELECT trace_id, device, ts AS t, 1 AS d_all, is_kernel AS d_k, 1 - is_kernel AS d_m,
         is_comm AS d_comm, is_comp AS d_comp, 0 AS d_step
  FROM ops
  UNION ALL
  SELECT trace_id, device, end_ts, -1, -is_kernel, is_kernel - 1, -is_comm, -is_comp, 0
  FROM ops
  UNION ALL
  SELECT w.trace_id, d.device, w.w_ts, 0, 0, 0, 0, 0, w.step + 1
  FROM win AS w JOIN devs AS d ON d.trace_id = w.trace_id
  UNION ALL
  SELECT w.trace_id, d.device, w.w_end, 0, 0, 0, 0, 0, -(w.step + 1)
  FROM win AS w JOIN devs AS d ON d.trace_id = w.trace_id
),
state AS (                            -- what runs in [t, next t), and which window it is in
  SELECT trace_id, device, t,
         sum(d_all) OVER peers AS n_all,
         sum(d_k) OVER peers AS n_k,
         sum(d_m) OVER peers AS n_m,
         sum(d_comm) OVER peers AS n_comm,
         sum(d_comp) OVER peers AS n_comp,
         sum(d_step) OVER peers - 1 AS step,   -- -1: outside every window
         lead(t) OVER (PARTITION BY trace_id, device ORDER BY t ROWS UNBOUNDED PRECEDING) - t AS len
  FROM edges
  WINDOW peers AS (PARTITION BY trace_id, device ORDER BY t)  -- RANGE: all edges at t count
),
agg AS (
  SELECT trace_id, device, step,
         coalesce(sum(CASE WHEN n_all > 0 THEN len END), 0) AS busy_ns,
         coalesce(sum(CASE WHEN n_k > 0 THEN len END), 0) AS kernel_ns,
         coalesce(sum(CASE WHEN n_m > 0 THEN len END), 0) AS memcpy_ns,
         coalesce(sum(CASE WHEN n_comm > 0 THEN len END), 0) AS comm_ns,
         coalesce(sum(CASE WHEN n_comp > 0 THEN len END), 0) AS compute_ns,
         coalesce(sum(CASE WHEN n_comm > 0 AND n_comp = 0 THEN len END), 0) AS exposed_comm_ns
  FROM state
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
  coalesce(a.exposed_comm_ns, 0) AS exposed_comm_ns
FROM win AS w
LEFT JOIN devs AS d ON d.trace_id = w.trace_id
LEFT JOIN agg AS a ON a.trace_id = w.trace_id AND a.step = w.step AND a.device IS d.device
ORDER BY w.trace_id, w.cpu_ts, w.step, d.device;
