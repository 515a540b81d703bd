-- name: timeline_overlay
-- description: The tracks `tracesql export` adds to a trace's timeline, one row per slice, as Chrome-trace events (`--format trace` draws them): the step windows, the GPU idle gaps coloured by cause, and the critical path of each window written by `tracesql critical-path`.
-- param :trace_id NULL (integer) — only this trace (traces.id); the first trace when NULL
--
-- Columns (the ones `--format trace` reads): track (the track's name), ts, dur (ns), name, cat,
--   cname (a chrome://tracing colour name), args (a JSON object); ordered by track, then time.
-- Tracks, top to bottom:
--   'steps'                     step_windows (w_ts..w_end), named 'step N'
--   'critical path: steps'      critical_path rows of the 'step N' windows (they never overlap), named
--                               by bound_by; 'critical path: W' for any other window W ('trace', 'FROM..TO')
--   'GPU D idle'                idle_gaps of device D, named 'idle: host' / 'idle: device' /
--                               'idle: unknown' (cause); host_event_id and host_op name the CPU op blamed
-- Colours (cname): idle host 'terrible' (red), device 'bad' (amber), unknown 'grey'; critical path
--   cpu 'thread_state_running' (green), gpu_compute 'rail_response' (blue), gpu_communication
--   'rail_animation' (magenta), launch_overhead 'rail_idle' (orange), kernel_kernel_overhead 'yellow',
--   sync 'terrible' (red), data_loading 'olive'. ui.perfetto.dev colours a slice by its name, so each
--   cause and each bound_by gets one colour there too.
WITH tr AS (
  SELECT coalesce(:trace_id, (SELECT min(id) FROM traces)) AS trace_id
),
rows AS (
  SELECT 1 AS ord, 'steps' AS track, w.w_ts AS ts, w.w_end - w.w_ts AS dur, 'step ' || w.step AS name,
         'step' AS cat, NULL AS cname,
         json_object('step', w.step, 'cpu_ts', w.cpu_ts, 'cpu_dur', w.cpu_dur, 'gpu_ops', w.gpu_ops) AS args
  FROM step_windows AS w, tr
  WHERE w.trace_id = tr.trace_id AND w.w_end > w.w_ts
  UNION ALL
  SELECT CASE WHEN p.window LIKE 'step %' THEN 2 ELSE 3 END,
         'critical path: ' || CASE WHEN p.window LIKE 'step %' THEN 'steps' ELSE p.window END,
         p.ts, p.dur, p.bound_by, 'critical_path',
         CASE p.bound_by WHEN 'cpu' THEN 'thread_state_running' WHEN 'gpu_compute' THEN 'rail_response'
                         WHEN 'gpu_communication' THEN 'rail_animation' WHEN 'launch_overhead' THEN 'rail_idle'
                         WHEN 'kernel_kernel_overhead' THEN 'yellow' WHEN 'sync' THEN 'terrible'
                         WHEN 'data_loading' THEN 'olive' END,
         json_object('window', p.window, 'seq', p.seq, 'edge_kind', p.edge_kind, 'event_id', p.event_id,
                     'event', e.name)
  FROM critical_path AS p CROSS JOIN tr LEFT JOIN events AS e ON e.id = p.event_id
  WHERE p.trace_id = tr.trace_id
  UNION ALL
  SELECT 4, 'GPU ' || coalesce(g.device, '?') || ' idle', g.ts, g.dur, 'idle: ' || g.cause, 'idle_gap',
         CASE g.cause WHEN 'host' THEN 'terrible' WHEN 'device' THEN 'bad' ELSE 'grey' END,
         json_object('cause', g.cause, 'device', g.device, 'prev_event_id', g.prev_event_id,
                     'next_event_id', g.next_event_id, 'host_event_id', g.host_event_id, 'host_op', h.name)
  FROM idle_gaps AS g CROSS JOIN tr LEFT JOIN events AS h ON h.id = g.host_event_id
  WHERE g.trace_id = tr.trace_id AND g.dur > 0
)
SELECT track, ts, dur, name, cat, cname, args
FROM rows
ORDER BY ord, track, ts;
