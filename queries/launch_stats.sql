-- name: launch_stats
-- description: Kernel launch statistics per launch API and GPU op: CPU time of the launch call, launch delay (signed, nsys queue time, HTA clipped), start-to-start, short kernels and outliers (HTA get_cuda_kernel_launch_stats, nsys cuda_kern_exec_sum).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :group kernel {kernel|api} — 'kernel': one row per (launch API, GPU op name); 'api': one row per launch API
-- param :include_memory 1 {0|1} — 1: also memcpy/memset launches (HTA's include_memory_events default); 0: kernels only
-- param :runtime_cutoff 50000 (number) — ns; a launch call longer than this is a runtime outlier (HTA: 50 us)
-- param :delay_cutoff 100000 (number) — ns; a launch delay longer than this is a delay outlier (HTA: 100 us)
-- param :limit 50 (integer) — number of rows
--
-- One input row per GPU op with a launch (op_kernels). A launch call counts once per row it appears
-- in: a CUDA/HIP graph launch runs many GPU ops from one call, so `launches` (GPU ops) exceeds
-- `calls` (distinct launch calls) and the cpu_* columns are over the calls, each counted once. With
-- group 'kernel' a graph launch call appears in the row of each GPU op name it ran. All times
-- integer ns; averages are truncated to integer ns.
--   launches       GPU ops launched; calls: distinct launch calls
--   cpu_*          duration of the launch call (cudaLaunchKernel, cuLaunchKernelEx, hipLaunchKernel, ...),
--                  over the distinct calls (cpu_avg = cpu_total / calls)
--   delay_*        launch_delay = GPU start - end of the launch call, signed (negative when the GPU op
--                  started before the call returned)
--   queued, queue_avg, queue_max
--                  nsys "queue time": the delay where it is >= 0 (QCount and its statistics)
--   hta_delay_avg  HTA's launch delay: max(0, delay) averaged over every launch
--   s2s_*          start to start: GPU start - start of the launch call
--   total_avg      nsys "total": max(call end, GPU end) - call start
--   short_kernels  GPU op shorter than its launch call (HTA "short GPU kernels", without HTA's extra
--                  condition cpu duration <= runtime_cutoff)
--   runtime_outliers  launch calls (distinct) longer than :runtime_cutoff
--   delay_outliers    delays longer than :delay_cutoff
WITH ops AS (                         -- sums over the GPU ops with a launch per (trace, launch call
                                      -- name, gpu_op_names id), every op counting its call (the
                                      -- repeats of a graph launch's call are taken off below); read in
                                      -- the order of the covering index op_kernel_links_launch_name:
                                      -- no sort, no read of the table or of the calls' events rows
  SELECT
    k.trace_id,
    k.launch_name_id,
    k.name_id,
    count(*) AS launches,
    count(k.launch_dur) AS timed,
    sum(k.launch_dur) AS cpu_sum,
    min(k.launch_dur) AS cpu_min,
    max(k.launch_dur) AS cpu_max,
    sum(k.launch_dur > coalesce(:runtime_cutoff, 50000)) AS cpu_outliers,
    sum(k.gpu_dur) AS gpu_sum,
    sum(k.launch_delay) AS delay_sum,
    min(k.launch_delay) AS delay_min,
    max(k.launch_delay) AS delay_max,
    sum(k.launch_delay >= 0) AS queued,
    sum(CASE WHEN k.launch_delay >= 0 THEN k.launch_delay END) AS queue_sum,
    max(CASE WHEN k.launch_delay >= 0 THEN k.launch_delay END) AS queue_max,
    sum(max(k.launch_delay, 0)) AS hta_delay_sum,
    sum(k.gpu_ts - k.launch_ts) AS s2s_sum,
    min(k.gpu_ts - k.launch_ts) AS s2s_min,
    max(k.gpu_ts - k.launch_ts) AS s2s_max,
    sum(max(k.launch_ts + k.launch_dur, k.gpu_ts + k.gpu_dur) - k.launch_ts) AS total_sum,
    sum(k.gpu_dur < k.launch_dur) AS short_kernels,
    sum(k.launch_delay > coalesce(:delay_cutoff, 100000)) AS delay_outliers
  FROM op_kernel_links AS k
  WHERE k.launch_name_id IS NOT NULL
    AND (:trace_id IS NULL OR k.trace_id = :trace_id)
  GROUP BY k.trace_id, k.launch_name_id, k.name_id
),
nm AS MATERIALIZED (                  -- per gpu_op_names id, the row it goes to: a number per
  SELECT id, CASE WHEN coalesce(:group, 'kernel') = 'api' THEN 0 ELSE nid END AS nid  -- distinct
  FROM (SELECT id, kind, min(id) OVER (PARTITION BY name) AS nid FROM gpu_op_names)  -- GPU op name
  WHERE coalesce(:include_memory, 1) OR kind = 'kernel'  -- (ids number (name, kind) pairs), 0 for
),                                    -- group 'api'; memcpy and memset ids only with :include_memory
                                      -- (an id's kind is the gpu_kind of its ops)
repeats AS (                          -- a launch call that ran more than one GPU op of a row (CUDA/HIP
  SELECT g.trace_id, g.launch_name_id, g.nid, count(*) - 1 AS n, g.launch_dur  -- graph launch):
  FROM (SELECT k.trace_id, k.launch_event_id, k.launch_name_id, k.launch_dur,  -- its ops past the
               (SELECT nm.nid FROM nm WHERE nm.id = k.name_id) AS nid  -- first, whose call the cpu_*
          FROM (SELECT launch_event_id AS id FROM op_kernel_links  -- (op_kernel_links_launch holds
                 WHERE launch_event_id IS NOT NULL               -- the calls in order: no sort)
                 GROUP BY launch_event_id HAVING count(*) > 1) AS c
          JOIN op_kernel_links AS k ON k.launch_event_id = c.id
         WHERE (:trace_id IS NULL OR k.trace_id = :trace_id)  -- columns leave out
           AND (coalesce(:include_memory, 1) OR k.gpu_kind = 'kernel')) AS g
  GROUP BY g.launch_event_id, g.nid
  HAVING count(*) > 1
),
repeated AS (                         -- per row: the repeats' count, call time, runtime outliers
  SELECT r.trace_id, r.launch_name_id, r.nid,
         sum(CASE WHEN r.launch_dur IS NOT NULL THEN r.n ELSE 0 END) AS n,
         coalesce(sum(r.n * r.launch_dur), 0) AS cpu_sum,
         coalesce(sum(r.n * (r.launch_dur > coalesce(:runtime_cutoff, 50000))), 0) AS cpu_outliers
  FROM repeats AS r
  GROUP BY r.trace_id, r.launch_name_id, r.nid
),
agg AS (                              -- per row: its gpu_op_names ids together (nm)
  SELECT o.trace_id, o.launch_name_id, nm.nid AS gpu_nid,
    sum(o.launches) AS launches,
    sum(o.timed) AS timed,
    sum(o.cpu_sum) AS cpu_sum,
    min(o.cpu_min) AS cpu_min,
    max(o.cpu_max) AS cpu_max,
    sum(o.cpu_outliers) AS cpu_outliers,
    sum(o.gpu_sum) AS gpu_sum,
    sum(o.delay_sum) AS delay_sum,
    min(o.delay_min) AS delay_min,
    max(o.delay_max) AS delay_max,
    sum(o.queued) AS queued,
    sum(o.queue_sum) AS queue_sum,
    max(o.queue_max) AS queue_max,
    sum(o.hta_delay_sum) AS hta_delay_sum,
    sum(o.s2s_sum) AS s2s_sum,
    min(o.s2s_min) AS s2s_min,
    max(o.s2s_max) AS s2s_max,
    sum(o.total_sum) AS total_sum,
    sum(o.short_kernels) AS short_kernels,
    sum(o.delay_outliers) AS delay_outliers
  FROM ops AS o JOIN nm ON nm.id = o.name_id
  GROUP BY o.trace_id, o.launch_name_id, nm.nid
),
a AS (
  SELECT g.*, g.timed - coalesce(r.n, 0) AS calls, r.cpu_sum AS r_cpu_sum, r.cpu_outliers AS r_cpu_outliers
  FROM agg AS g
  LEFT JOIN repeated AS r ON r.trace_id = g.trace_id AND r.launch_name_id = g.launch_name_id AND r.nid = g.gpu_nid
)
SELECT a.trace_id, (SELECT name FROM events WHERE id = a.launch_name_id) AS launch_name,
  CASE WHEN a.gpu_nid = 0 THEN '*' ELSE (SELECT name FROM gpu_op_names WHERE id = a.gpu_nid) END AS gpu_name,
  a.launches, a.calls,
  CASE WHEN a.calls > 0 THEN a.cpu_sum - coalesce(a.r_cpu_sum, 0) END AS cpu_total,
  CASE WHEN a.calls > 0 THEN a.cpu_sum - coalesce(a.r_cpu_sum, 0) END / a.calls AS cpu_avg,
  a.cpu_min, a.cpu_max,
  a.gpu_sum / a.launches AS gpu_avg,
  a.delay_sum / a.launches AS delay_avg, a.delay_min, a.delay_max,
  a.queued, a.queue_sum / a.queued AS queue_avg, a.queue_max,
  a.hta_delay_sum / a.launches AS hta_delay_avg,
  a.s2s_sum / a.launches AS s2s_avg, a.s2s_min, a.s2s_max,
  a.total_sum / a.launches AS total_avg,
  a.short_kernels,
  CASE WHEN a.calls > 0 THEN a.cpu_outliers - coalesce(a.r_cpu_outliers, 0) END AS runtime_outliers,
  a.delay_outliers
FROM a
ORDER BY cpu_total DESC, a.trace_id, launch_name, gpu_name
LIMIT coalesce(:limit, 50);
