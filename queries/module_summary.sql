-- name: module_summary
-- description: CPU and GPU time per nn.Module (python_function frames "nn.Module: Name_N", recorded with with_stack/with_modules): calls, wall time of the module's forward, GPU time of the ops it launched, and its place in the module tree. Empty when the trace has no module frames.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :group module {module|class} — 'module': one row per module instance (Linear_3); 'class': one row per module class (Linear)
-- param :limit 100 (integer) — number of rows
--
-- A module frame is a python_function event named 'nn.Module: <Class>_<N>' (PyTorch numbers the
-- instances of each class from 0). Times are inclusive of everything inside the frame, nested
-- modules included, so a parent's time contains its children's:
--   cpu_time   summed duration of the module's frames (ns); cpu_avg per call
--   gpu_time   summed duration of the GPU ops whose launch call lies inside a frame of the module
--              on the same thread (ns); gpu_ops their number; gpu_pct its share of all GPU op time
--              of the trace
--   path       module names from the outermost module down ('Model_0/Encoder_0/Linear_3'), from
--              the first call of the module (a module called from several parents shows the first)
--   depth      0 for a top-level module
-- Only the forward pass is covered: the profiler records module frames around forward() only;
-- backward kernels are launched by the autograd engine outside them (see autograd_pairs).
-- 'class' rows add up every instance of a class; when instances nest (a Sequential inside a
-- Sequential) their times are counted once per level.
WITH frames AS (
  -- Module frames: substr(name, 12) drops the 'nn.Module: ' prefix.
  SELECT id, trace_id, thread_id, ts, dur, parent_id, substr(name, 12) AS module
  FROM python_frames
  WHERE name LIKE 'nn.Module: %'
    AND (:trace_id IS NULL OR trace_id = :trace_id)
),
per_frame AS (
  -- GPU ops launched inside each frame, on the frame's thread: two range scans of the
  -- (launch_thread_id, launch_ts) index per frame (the count reads the index alone), no sort.
  SELECT f.id, f.trace_id, f.module, f.dur,
         (SELECT coalesce(sum(k.gpu_dur), 0) FROM op_kernel_links AS k
          WHERE k.launch_thread_id = f.thread_id AND k.launch_ts >= f.ts
            AND k.launch_ts <= f.ts + f.dur) AS gpu_time,
         (SELECT count(*) FROM op_kernel_links AS k
          WHERE k.launch_thread_id = f.thread_id AND k.launch_ts >= f.ts
            AND k.launch_ts <= f.ts + f.dur) AS gpu_ops
  FROM frames AS f
),
per_module AS (
  SELECT trace_id, module, min(id) AS first_id, count(*) AS calls, sum(dur) AS cpu_time,
         sum(gpu_time) AS gpu_time, sum(gpu_ops) AS gpu_ops
  FROM per_frame
  GROUP BY trace_id, module
),
-- Walk up from the first frame of each module to the nearest enclosing module frame: parent is
-- that frame's module, on the walk's last row (each step reads one events row).
up(trace_id, module, cur, parent) AS (
  SELECT m.trace_id, m.module, e.parent_id, NULL
  FROM per_module AS m JOIN events AS e ON e.id = m.first_id
  UNION ALL
  SELECT u.trace_id, u.module,
         CASE WHEN p.name NOT LIKE 'nn.Module: %' OR p.cat IS NOT 'python_function' THEN p.parent_id END,
         CASE WHEN p.cat = 'python_function' AND p.name LIKE 'nn.Module: %' THEN substr(p.name, 12) END
  FROM up AS u JOIN events AS p ON p.id = u.cur
),
parents AS (                          -- (a module's walk finds one enclosing module frame, or none)
  SELECT trace_id, module, max(parent) AS parent FROM up GROUP BY trace_id, module
),
-- Module paths from the top-level modules down (depth capped against cycles).
paths(trace_id, module, path, depth) AS (
  SELECT trace_id, module, module, 0 FROM parents WHERE parent IS NULL
  UNION ALL
  SELECT c.trace_id, c.module, p.path || '/' || c.module, p.depth + 1
  FROM paths AS p
  JOIN parents AS c ON c.trace_id = p.trace_id AND c.parent = p.module
  WHERE p.depth < 64
),
labelled AS (
  SELECT
    m.trace_id,
    CASE WHEN coalesce(:group, 'module') = 'class'
         THEN rtrim(rtrim(m.module, '0123456789'), '_') ELSE m.module END AS label,
    CASE WHEN coalesce(:group, 'module') = 'class' THEN NULL ELSE p.path END AS path,
    p.depth, m.calls, m.cpu_time, m.gpu_time, m.gpu_ops
  FROM per_module AS m
  LEFT JOIN paths AS p ON p.trace_id = m.trace_id AND p.module = m.module
),
-- The rows, ordered and cut (the order is unique: a trace's labels are distinct).
grouped AS (
  SELECT
    l.trace_id,
    l.label AS module,
    l.path,
    min(l.depth) AS depth,
    sum(l.calls) AS calls,
    sum(l.cpu_time) AS cpu_time,
    sum(l.cpu_time) / sum(l.calls) AS cpu_avg,
    sum(l.gpu_time) AS gpu_time,
    sum(l.gpu_ops) AS gpu_ops
  FROM labelled AS l
  GROUP BY l.trace_id, l.label, l.path
  ORDER BY gpu_time DESC, cpu_time DESC, l.trace_id, module
  LIMIT coalesce(:limit, 100)
),
-- All GPU op time of each trace shown, once per trace (op_kernel_links_device: one range of the
-- index each).
totals AS MATERIALIZED (
  SELECT t.trace_id,
         (SELECT sum(k.gpu_dur) FROM op_kernel_links AS k WHERE k.trace_id = t.trace_id) AS gpu_total
  FROM (SELECT DISTINCT trace_id FROM grouped) AS t
)
SELECT
  g.trace_id, g.module, g.path, g.depth, g.calls, g.cpu_time, g.cpu_avg, g.gpu_time, g.gpu_ops,
  round(100.0 * g.gpu_time / nullif(t.gpu_total, 0), 2) AS gpu_pct
FROM grouped AS g
LEFT JOIN totals AS t ON t.trace_id = g.trace_id
ORDER BY g.gpu_time DESC, g.cpu_time DESC, g.trace_id, g.module;
