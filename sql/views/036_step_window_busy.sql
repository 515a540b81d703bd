-- step_window_busy: how long each combination of GPU op names ran in each step window, per device:
-- the pieces of gpu_segments in the window (step_windows that hold time), clipped to it, summed per
-- name_ids. A piece counts when it starts inside the window (a range of gpu_segments' key), or when
-- it is the one piece of the device that starts before the window and runs into it. The time a set
-- of ops ran in a window is the sum of ns over the rows whose name_ids hold one of its names
-- (step_breakdown, comm_overlap). Each window is summed while its key range is read (a small
-- grouping per window, not a sort of every piece).
CREATE VIEW step_window_busy AS
WITH w AS (
  SELECT trace_id, step, w_ts, w_end FROM step_windows WHERE w_end > w_ts
),
devs AS (
  SELECT DISTINCT trace_id, device FROM gpu_segments
),
per AS (                              -- per window and device: {name_ids: ns, ...}
  SELECT w.trace_id, w.step, d.device,
         (SELECT json_group_object(name_ids, ns)
            FROM (SELECT name_ids, sum(ns) AS ns
                    FROM (SELECT g.name_ids, min(g.ts + g.dur, w.w_end) - g.ts AS ns
                            FROM gpu_segments AS g
                           WHERE g.trace_id = w.trace_id AND g.ts >= w.w_ts AND g.ts < w.w_end
                             AND g.device IS d.device
                          UNION ALL
                          SELECT g.name_ids, min(g.ts + g.dur, w.w_end) - w.w_ts
                            FROM gpu_segments AS g
                           WHERE g.trace_id = w.trace_id AND +g.device IS d.device AND g.ts + g.dur > w.w_ts
                             AND g.ts = (SELECT x.ts FROM gpu_segments AS x
                                          WHERE x.trace_id = w.trace_id AND x.ts < w.w_ts
                                            AND x.device IS d.device
                                          ORDER BY x.ts DESC LIMIT 1))
                   GROUP BY name_ids)) AS busy
  FROM w
  JOIN devs AS d ON d.trace_id = w.trace_id
)
SELECT p.trace_id,                    -- trace
       p.step,                        -- the window's step (step_windows)
       p.device,                      -- device
       j.key AS name_ids,             -- the names running (gpu_segments.name_ids)
       j.value AS ns                  -- how long they ran together in the window (ns)
FROM per AS p, json_each(p.busy) AS j;
