-- step_window_segments: each step window's GPU busy time, per device: the pieces of gpu_segments
-- that lie in the window (step_windows that hold time), clipped to it. A piece starts inside the
-- window (a range of gpu_segments' key), or is the one piece of the device that starts before the
-- window and runs into it. Sum ov over the pieces whose names are in a set of ops to get the time
-- that set ran in the window (step_breakdown, comm_overlap).
CREATE VIEW step_window_segments AS
WITH w AS (
  SELECT trace_id, step, w_ts, w_end FROM step_windows WHERE w_end > w_ts
),
devs AS MATERIALIZED (
  SELECT DISTINCT trace_id, device FROM gpu_segments
)
SELECT w.trace_id,                    -- trace
       w.step,                        -- the window's step
       g.device,                      -- device
       g.ts,                          -- the piece (gpu_segments.ts, dur, name_ids)
       g.dur,
       g.name_ids,
       min(g.ts + g.dur, w.w_end) - g.ts AS ov  -- its time inside the window (ns)
FROM w
CROSS JOIN gpu_segments AS g ON g.trace_id = w.trace_id AND g.ts >= w.w_ts AND g.ts < w.w_end
UNION ALL
SELECT w.trace_id, w.step, d.device, g.ts, g.dur, g.name_ids,
       min(g.ts + g.dur, w.w_end) - w.w_ts
FROM w
JOIN devs AS d ON d.trace_id = w.trace_id
CROSS JOIN gpu_segments AS g
  ON g.trace_id = w.trace_id AND g.device IS d.device
 AND g.ts = (SELECT x.ts FROM gpu_segments AS x
              WHERE x.trace_id = w.trace_id AND x.ts < w.w_ts AND x.device IS d.device
              ORDER BY x.ts DESC LIMIT 1)
WHERE g.ts + g.dur > w.w_ts;
