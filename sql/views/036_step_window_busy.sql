-- step_window_busy: how long each combination of GPU op names ran in each step window, per device:
-- the pieces of gpu_segments in the window (step_windows that hold time), clipped to it, summed per
-- name_ids. A piece counts when it starts inside the window, or when it is the one piece of the
-- device that starts before the window and runs into it. The time a set of ops ran in a window is
-- the sum of ns over the rows whose name_ids hold one of its names (step_breakdown, comm_overlap).
-- Read without sorting any piece: per window, device and combination of names, the pieces that
-- start inside the window are a range of gpu_segments' (trace_id, device, name_ids, ts, dur) index,
-- summed whole; the piece running across the window's start adds its part inside, and the one
-- running across its end (the last that starts inside) gives back its part after (a device's
-- pieces are disjoint: each edge has at most one). Combinations that did not run in the window get
-- no row.
CREATE VIEW step_window_busy AS
WITH w AS (
  SELECT trace_id, step, w_ts, w_end FROM step_windows WHERE w_end > w_ts
),
combos AS (                           -- the combinations of names of each device
  SELECT DISTINCT trace_id, device, name_ids FROM gpu_segments
),
edges AS (                            -- per window and device: [name_ids, ns] of the piece running
  SELECT w.trace_id, w.step, w.w_ts, w.w_end, d.device,  -- across the window's start (its part
         (SELECT json_array(g.name_ids, min(g.ts + g.dur, w.w_end) - w.w_ts)  -- inside the window)
            FROM gpu_segments AS g
           WHERE g.trace_id = w.trace_id AND +g.device IS d.device AND g.ts + g.dur > w.w_ts
             AND g.ts = (SELECT x.ts FROM gpu_segments AS x
                          WHERE x.trace_id = w.trace_id AND x.ts < w.w_ts AND +x.device IS d.device
                          ORDER BY x.ts DESC LIMIT 1)) AS head,
         (SELECT CASE WHEN g.ts >= w.w_ts  -- and across its end, if it starts inside (its part after)
                      THEN json_array(g.name_ids, g.ts + g.dur - w.w_end) END
            FROM gpu_segments AS g
           WHERE g.trace_id = w.trace_id AND +g.device IS d.device AND g.ts + g.dur > w.w_end
             AND g.ts = (SELECT x.ts FROM gpu_segments AS x
                          WHERE x.trace_id = w.trace_id AND x.ts < w.w_end AND +x.device IS d.device
                          ORDER BY x.ts DESC LIMIT 1)) AS tail
  FROM w
  JOIN (SELECT DISTINCT trace_id, device FROM combos) AS d ON d.trace_id = w.trace_id
  GROUP BY w.trace_id, w.step, w.w_ts, w.w_end, d.device  -- (one row each: computed once, not
),                                                        -- once per combination of names)
per AS (                              -- per window and device: {name_ids: ns, ...}
  SELECT e.trace_id, e.step, e.device,
         (SELECT json_group_object(c.name_ids,
                   coalesce((SELECT sum(g.dur) FROM gpu_segments AS g
                              WHERE g.trace_id = e.trace_id AND g.device IS e.device
                                AND g.name_ids = c.name_ids AND g.ts >= e.w_ts AND g.ts < e.w_end), 0)
                   + CASE WHEN json_extract(e.head, '$[0]') = c.name_ids THEN json_extract(e.head, '$[1]') ELSE 0 END
                   - CASE WHEN json_extract(e.tail, '$[0]') = c.name_ids THEN json_extract(e.tail, '$[1]') ELSE 0 END)
            FROM combos AS c
           WHERE c.trace_id = e.trace_id AND c.device IS e.device) AS busy
  FROM edges AS e
)
SELECT p.trace_id,                    -- trace
       p.step,                        -- the window's step (step_windows)
       p.device,                      -- device
       j.key AS name_ids,             -- the names running (gpu_segments.name_ids)
       j.value AS ns                  -- how long they ran together in the window (ns), > 0
FROM per AS p, json_each(p.busy) AS j
WHERE j.value > 0;
