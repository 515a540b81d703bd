-- title: GPU idle waiting for the host
-- detects: GPU idle gaps whose cause is the host: the launch call of the op after the gap started
--   only after the gap began, so the CPU was late (view idle_gaps, cause = 'host'), with the CPU
--   ops the launching thread was running when each gap began (idle_gaps.host_event_id).
-- evidence: the idle_gaps rows (trace_id, device, cause = 'host'); the GPU ops that close the three
--   longest gaps (events.id) and the time range from the first to the last gap.
-- advice: The CPU does not keep the GPU fed. Look at the CPU ops named: remove host work from the
--   step (Python overhead, .item()/.cpu() calls, logging), launch less (fuse ops, torch.compile,
--   CUDA graphs) or overlap the host work with the GPU (a separate thread or process for it).
-- time lost: the sum of the host-caused gaps: had the host launched in time, the GPU would not
--   have waited (an upper bound: the next op may also have had to wait for a dependency).
-- anchor: HTA idle time breakdown (host wait), nsys gpu_gaps, TensorBoard plugin "GPU utilization".
-- param :min_share 0.05 — report a device when its host-caused idle is at least this share of its step time (of the trace's GPU span without steps)
WITH gaps AS (
  SELECT trace_id, device, ts, dur, end_ts, next_event_id, host_event_id
  FROM idle_gaps
  WHERE cause = 'host' AND dur > 0
),
per_device AS (
  SELECT trace_id, device, count(*) AS gaps, sum(dur) AS idle_ns, min(ts) AS first_ts, max(end_ts) AS last_ts
  FROM gaps GROUP BY trace_id, device
),
step_time AS (                        -- the trace's step windows; NULL without steps
  SELECT trace_id, sum(w_end - w_ts) AS ns FROM step_windows WHERE w_end > w_ts GROUP BY trace_id
),
blamed AS (                           -- the CPU ops blamed, per device, most idle first
  SELECT trace_id, device, name, idle_ns,
         row_number() OVER (PARTITION BY trace_id, device ORDER BY idle_ns DESC, name) AS rn
  FROM (SELECT g.trace_id, g.device, coalesce(h.name, '(no CPU op)') AS name, sum(g.dur) AS idle_ns
        FROM gaps AS g LEFT JOIN events AS h ON h.id = g.host_event_id
        GROUP BY g.trace_id, g.device, 3)
),
longest AS (
  SELECT trace_id, device, next_event_id,
         row_number() OVER (PARTITION BY trace_id, device ORDER BY dur DESC, ts) AS rn
  FROM gaps
),
found AS (
  SELECT p.*, coalesce(s.ns, a.span_ns) AS base_ns, s.ns IS NOT NULL AS has_steps,
         a.high_ns, a.medium_ns
  FROM per_device AS p
  JOIN advise_traces AS a ON a.trace_id = p.trace_id
  LEFT JOIN step_time AS s ON s.trace_id = p.trace_id
  WHERE p.idle_ns >= :min_share * coalesce(s.ns, a.span_ns)
)
SELECT
  f.trace_id,
  'host_bound_idle' AS rule,
  CASE WHEN f.idle_ns >= f.high_ns THEN 'high' WHEN f.idle_ns >= f.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  f.idle_ns AS time_lost_ns,
  printf('GPU %s idle %.1f %% of %s waiting for the host (%d gap%s, %.3f ms); mostly under %s',
         coalesce(f.device, '?'), 100.0 * f.idle_ns / f.base_ns,
         CASE WHEN f.has_steps THEN 'step time' ELSE 'its span' END, f.gaps,
         CASE WHEN f.gaps = 1 THEN '' ELSE 's' END, f.idle_ns / 1e6,
         (SELECT group_concat(printf('%s (%.1f %%)', b.name, 100.0 * b.idle_ns / f.idle_ns), ', ')
          FROM (SELECT * FROM blamed AS b WHERE b.trace_id = f.trace_id AND b.device IS f.device AND b.rn <= 3
                ORDER BY b.rn) AS b)) AS title,
  printf('idle_gaps WHERE trace_id = %d AND device = %s AND cause = ''host''; longest gaps end at GPU ops %s; ts %d..%d',
         f.trace_id, coalesce(f.device, 'NULL'),
         (SELECT group_concat(l.next_event_id, ', ')
          FROM (SELECT * FROM longest AS l WHERE l.trace_id = f.trace_id AND l.device IS f.device AND l.rn <= 3
                ORDER BY l.rn) AS l),
         f.first_ts, f.last_ts) AS evidence,
  'The CPU does not keep the GPU fed: cut host work in the ops named (Python overhead, .item()/.cpu() '
  || 'calls, logging), launch less (fuse ops, torch.compile, CUDA graphs) or move host work off the '
  || 'launching thread.' AS advice
FROM found AS f
