-- gpu_segments: each device's busy time, cut into pieces during which the same GPU op names run.
-- Each (trace, device) timeline is cut at every start and every end of a GPU op that takes time
-- (op_kernel_links rows with gpu_dur > 0; zero and negative durations occupy no time); one row per
-- piece in which at least one op runs, with the distinct names (gpu_op_names.id) of the ops running
-- throughout it. The pieces of a device are disjoint and cover exactly the union of its ops'
-- intervals, so the time a set of ops covers (by class, by name, inside a step window) is a plain
-- sum of clipped piece lengths instead of a sweep over the ops: temporal_breakdown, step_breakdown
-- and comm_overlap read it. Sum of dur per device = last end - first start - sum of idle_gaps.dur.
-- Stored WITHOUT ROWID in (trace_id, ts) order: a time range of a trace is an index range.
-- The importer computes its rows (src/import/analysis.cc); this SELECT is their definition, and the
-- tests compare the two (it is quadratic in the ops that overlap a piece: fine as a definition, and
-- it only runs for traces with times beyond +-2^61 ns).
-- @materialize always
-- @computed
-- @table CREATE TABLE gpu_segments (trace_id INTEGER NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL, device, dur INTEGER NOT NULL, name_ids TEXT NOT NULL, PRIMARY KEY (trace_id, ts, seq)) WITHOUT ROWID;
CREATE VIEW gpu_segments AS
-- ops and cut are read more than once, so SQLite (3.35+) computes each of them once.
WITH ops AS (                         -- dk: the device as a key that is never NULL (= rather than IS,
  SELECT trace_id, device, coalesce(device, 'none') AS dk,  -- which SQLite can index)
         gpu_ts AS ts, gpu_ts + gpu_dur AS end_ts, name_id
  FROM op_kernel_links
  WHERE gpu_ts IS NOT NULL AND gpu_dur > 0
),
cut AS (                              -- every start and end of a device, numbered in time order (k)
  SELECT trace_id, dk, device, t, row_number() OVER (PARTITION BY trace_id, dk ORDER BY t) AS k
  FROM (SELECT trace_id, dk, device, ts AS t FROM ops
        UNION
        SELECT trace_id, dk, device, end_ts FROM ops)
),
change AS (                           -- per device and name: how many of its ops start minus end at
  SELECT c.trace_id, c.dk, x.name_id, c.k, x.d  -- cut k
  FROM (SELECT trace_id, dk, name_id, t, sum(d) AS d
          FROM (SELECT trace_id, dk, name_id, ts AS t, 1 AS d FROM ops
                UNION ALL
                SELECT trace_id, dk, name_id, end_ts, -1 FROM ops)
         GROUP BY trace_id, dk, name_id, t) AS x
  CROSS JOIN cut AS c ON c.trace_id = x.trace_id AND c.dk = x.dk AND c.t = x.t
),
walk(trace_id, dk, name_id, k, k_end) AS (  -- each (piece k, name running throughout it): where
  SELECT trace_id, dk, name_id, k, k_end    -- the name's running count is above 0, the pieces from
  FROM (SELECT trace_id, dk, name_id, k,    -- its change at cut k to its next change (cut k_end)
               sum(d) OVER w AS running,
               lead(k) OVER w AS k_end
          FROM change
        WINDOW w AS (PARTITION BY trace_id, dk, name_id ORDER BY k ROWS UNBOUNDED PRECEDING))
  WHERE running > 0
  UNION ALL
  SELECT trace_id, dk, name_id, k + 1, k_end FROM walk WHERE k + 1 < k_end
),
named AS (                            -- piece k: from cut k to cut k + 1; its names in ascending order
  SELECT c.trace_id, c.device, c.t AS ts, n.t - c.t AS dur, group_concat(w.name_id, ',') AS name_ids
  FROM (SELECT * FROM walk ORDER BY trace_id, dk, k, name_id) AS w
  CROSS JOIN cut AS c ON c.trace_id = w.trace_id AND c.dk = w.dk AND c.k = w.k
  CROSS JOIN cut AS n ON n.trace_id = w.trace_id AND n.dk = w.dk AND n.k = w.k + 1
  GROUP BY w.trace_id, w.dk, w.k
)
SELECT
  trace_id,                           -- trace
  ts,                                 -- piece start (ns)
  row_number() OVER (PARTITION BY trace_id ORDER BY device, ts) AS seq,
                                      -- piece number in its trace, in (device, ts) order (NULL
                                      -- device first), from 1
  device,                             -- device (op_kernel_links.device)
  dur,                                -- piece length (ns), > 0
  name_ids                            -- ids (gpu_op_names.id) of the names of the ops running
                                      -- throughout the piece: distinct, ascending, comma-separated
                                      -- ('12' or '12,40'); json_each('[' || name_ids || ']') lists them
FROM named
WHERE name_ids IS NOT NULL
ORDER BY trace_id, ts, seq;
-- Each device's pieces grouped by the names running, in time order: the time per (device,
-- name_ids), overall or in a time range, is read in order without sorting every piece
-- (temporal_breakdown, comm_overlap, kernel_overlap, step_window_busy).
-- @index CREATE INDEX gpu_segments_device ON gpu_segments(trace_id, device, name_ids, ts, dur);
