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
WITH nm AS MATERIALIZED (             -- a number per distinct GPU op name (gpu_op_names numbers
  SELECT id, min(id) OVER (PARTITION BY name) AS nid  -- (name, kind) pairs): grouping by it is
  FROM gpu_op_names                   -- grouping by the name, without reading or sorting names
),
graphs AS MATERIALIZED (              -- launch calls that ran more than one GPU op (CUDA/HIP graph
  SELECT launch_event_id AS id        -- launches; the op_kernel_links_launch index holds them in
  FROM op_kernel_links                -- order: no sort)
  WHERE launch_event_id IS NOT NULL
  GROUP BY launch_event_id
  HAVING count(*) > 1
),
l AS (                                -- one row per GPU op with a launch, with the launch call's name
  SELECT
    k.trace_id,
    lc.name AS launch_name,
    CASE WHEN coalesce(:group, 'kernel') = 'api' THEN 0 ELSE nm.nid END AS gpu_nid,
    -- call_dur: the launch call's duration on the first GPU op (lowest id) of the call in its row,
    -- NULL on the others, so that a call counts once. Only a graph launch has earlier ops
    -- (op_kernel_links_launch: one seek per op of a graph launch).
    CASE WHEN k.launch_event_id NOT IN (SELECT id FROM graphs) OR NOT EXISTS (
           SELECT 1 FROM op_kernel_links AS e
           WHERE e.launch_event_id = k.launch_event_id AND e.gpu_event_id < k.gpu_event_id
             AND (coalesce(:include_memory, 1) OR e.gpu_kind = 'kernel')
             AND (coalesce(:group, 'kernel') = 'api'
                  OR (SELECT g.name FROM gpu_op_names AS g WHERE g.id = e.name_id)
                     IS (SELECT g.name FROM gpu_op_names AS g WHERE g.id = k.name_id)))
         THEN k.launch_dur END AS call_dur,
    k.launch_dur AS cpu_dur,
    k.gpu_dur,
    k.launch_delay AS delay,
    k.gpu_ts - k.launch_ts AS s2s,
    max(k.launch_ts + k.launch_dur, k.gpu_ts + k.gpu_dur) - k.launch_ts AS total
  FROM op_kernel_links AS k
  CROSS JOIN nm ON nm.id = k.name_id  -- (the ops scanned once, their name number looked up)
  JOIN events AS lc ON lc.id = k.launch_event_id
  WHERE k.launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR k.trace_id = :trace_id)
    AND (coalesce(:include_memory, 1) OR k.gpu_kind = 'kernel')
  LIMIT -1                            -- (not flattened into agg: call_dur computed once per row)
),
agg AS (
  SELECT
    trace_id, launch_name, gpu_nid,
    count(*) AS launches,
    count(call_dur) AS calls,
    sum(call_dur) AS cpu_total,
    sum(call_dur) / count(call_dur) AS cpu_avg,
    min(cpu_dur) AS cpu_min,
    max(cpu_dur) AS cpu_max,
    sum(gpu_dur) / count(*) AS gpu_avg,
    sum(delay) / count(*) AS delay_avg,
    min(delay) AS delay_min,
    max(delay) AS delay_max,
    sum(delay >= 0) AS queued,
    sum(CASE WHEN delay >= 0 THEN delay END) / sum(delay >= 0) AS queue_avg,
    max(CASE WHEN delay >= 0 THEN delay END) AS queue_max,
    sum(max(delay, 0)) / count(*) AS hta_delay_avg,
    sum(s2s) / count(*) AS s2s_avg,
    min(s2s) AS s2s_min,
    max(s2s) AS s2s_max,
    sum(total) / count(*) AS total_avg,
    sum(gpu_dur < cpu_dur) AS short_kernels,
    sum(call_dur > coalesce(:runtime_cutoff, 50000)) AS runtime_outliers,
    sum(delay > coalesce(:delay_cutoff, 100000)) AS delay_outliers
  FROM l
  GROUP BY trace_id, launch_name, gpu_nid
)
SELECT a.trace_id, a.launch_name,
  CASE WHEN a.gpu_nid = 0 THEN '*' ELSE (SELECT name FROM gpu_op_names WHERE id = a.gpu_nid) END AS gpu_name,
  a.launches, a.calls, a.cpu_total, a.cpu_avg, a.cpu_min, a.cpu_max, a.gpu_avg, a.delay_avg, a.delay_min,
  a.delay_max, a.queued, a.queue_avg, a.queue_max, a.hta_delay_avg, 
  a.s2s_avg, a.s2s_min, a.s2s_max, a.total_avg, a.short_kernels, a.runtime_outliers, a.delay_outliers
FROM agg AS a
ORDER BY a.cpu_total DESC, a.trace_id, a.launch_name, gpu_name
LIMIT coalesce(:limit, 50);
