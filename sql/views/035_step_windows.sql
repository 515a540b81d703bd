-- step_windows: the GPU window of each ProfilerStep, as the TensorBoard plugin builds it: from the
-- step's CPU start, moved later to the end of the previous step's window if that is later, to the
-- later of its CPU end and the end of the last GPU op launched inside the step. Windows never
-- overlap, so per-step GPU time adds up; time between them belongs to no step. A window with
-- w_end <= w_ts holds no time. The step_breakdown and comm_overlap queries cut GPU time by these.
CREATE VIEW step_windows AS
WITH w0 AS (
  SELECT trace_id, step, ts AS cpu_ts, dur AS cpu_dur, gpu_ops,
         max(end_ts, coalesce(gpu_end_ts, end_ts)) AS end_w
  FROM steps
),
w1 AS (
  SELECT w0.*,
         max(cpu_ts, coalesce(max(end_w) OVER (PARTITION BY trace_id ORDER BY cpu_ts, step
                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                              cpu_ts)) AS w_ts
  FROM w0
)
SELECT
  trace_id,                           -- trace
  step,                               -- N of ProfilerStep#N
  cpu_ts,                             -- the annotation's start (ns)
  cpu_dur,                            -- the annotation's duration (ns)
  gpu_ops,                            -- GPU ops launched inside the step (steps.gpu_ops)
  w_ts,                               -- window start (ns)
  max(end_w, w_ts) AS w_end           -- window end (ns); NULL when the annotation has no duration
FROM w1;
