-- idle_gaps: when a GPU did nothing, and why. One row per maximal interval on a device, inside
-- [first GPU op start, last GPU op end], in which no GPU op (kernel, memcpy, memset; all streams of the
-- device) runs: between the latest end of the ops started so far and the next start, when that is
-- later (nsys's gpu_gaps rule). Zero-length ops (2020-21 traces write sub-us kernels as dur 0) occupy
-- no time, so they never split a gap; they only widen the window when they come first or last on the
-- device.
--   cause = 'host'    the next op's launch call started after the gap began: the CPU was late
--           'device'  it was already issued: queued behind a dependency, or launch latency
--           'unknown' the next op has no linked launch
--   host_event_id = innermost CPU op running on the launching thread when the gap began.
-- Computed by the importer when materialised (src/import/analysis.cc): the same rows as this SELECT,
-- which --no-materialize keeps as the view and the tests compare with the table.
-- @materialize
-- @computed
CREATE VIEW idle_gaps AS
WITH all_ops AS (
  -- op_kernel_links has exactly one row per GPU op (and is a table after import: cheaper than gpu_ops).
  SELECT trace_id, device, gpu_event_id AS id, gpu_ts AS ts, gpu_ts + gpu_dur AS end_ts, gpu_dur AS dur
  FROM op_kernel_links WHERE gpu_ts IS NOT NULL AND gpu_dur >= 0
),
ops AS (
  SELECT * FROM all_ops WHERE dur > 0
),
-- In start order, an op starts a gap when it starts after every earlier op has ended: the gap runs
-- from the latest earlier end to its start. (The same as the k-th end (in end order) before the
-- (k+1)-th start, nsys's gpu_gaps rule, in one sorted pass.) The op that opens it is the last one
-- ending at the gap start.
ordered AS (
  SELECT trace_id, device, id, ts,
         max(end_ts) OVER (PARTITION BY trace_id, device ORDER BY ts, id
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM ops
),
inner_gaps AS (
  SELECT o.trace_id, o.device, o.prev_end AS ts, o.ts AS end_ts,
         (SELECT max(p.id) FROM ops AS p
           WHERE p.trace_id = o.trace_id AND p.device IS o.device AND p.end_ts = o.prev_end) AS prev_event_id,
         o.id AS next_event_id
  FROM ordered AS o
  WHERE o.prev_end < o.ts
),
-- Per device: the window over all ops, and over the ops that take time.
win AS (
  SELECT a.trace_id, a.device, min(a.ts) AS first_ts, max(a.end_ts) AS last_end,
         (SELECT min(o.ts) FROM ops AS o WHERE o.trace_id = a.trace_id AND o.device IS a.device) AS busy_first,
         (SELECT max(o.end_ts) FROM ops AS o WHERE o.trace_id = a.trace_id AND o.device IS a.device) AS busy_last
  FROM all_ops AS a GROUP BY a.trace_id, a.device
),
-- Zero-length ops before the first / after the last op that takes time: idle from the window edge.
edge_gaps AS (
  SELECT w.trace_id, w.device, w.first_ts AS ts, coalesce(w.busy_first, w.last_end) AS end_ts,
         (SELECT a.id FROM all_ops AS a WHERE a.trace_id = w.trace_id AND a.device IS w.device
            AND a.ts = w.first_ts ORDER BY a.id LIMIT 1) AS prev_event_id,
         (SELECT a.id FROM all_ops AS a WHERE a.trace_id = w.trace_id AND a.device IS w.device
            AND a.ts = coalesce(w.busy_first, w.last_end) ORDER BY a.dur DESC, a.id LIMIT 1) AS next_event_id
  FROM win AS w WHERE w.first_ts < coalesce(w.busy_first, w.last_end)
  UNION ALL
  SELECT w.trace_id, w.device, w.busy_last, w.last_end,
         (SELECT a.id FROM all_ops AS a WHERE a.trace_id = w.trace_id AND a.device IS w.device
            AND a.end_ts = w.busy_last AND a.dur > 0 ORDER BY a.id DESC LIMIT 1),
         (SELECT a.id FROM all_ops AS a WHERE a.trace_id = w.trace_id AND a.device IS w.device
            AND a.ts = w.last_end ORDER BY a.id LIMIT 1)
  FROM win AS w WHERE w.busy_last IS NOT NULL AND w.busy_last < w.last_end
),
gaps AS (
  SELECT * FROM inner_gaps UNION ALL SELECT * FROM edge_gaps
)
SELECT
  gp.trace_id,
  gp.device,
  gp.ts,                              -- gap start: end of the op before (ns)
  gp.end_ts - gp.ts AS dur,           -- gap length (ns)
  gp.end_ts,                          -- gap end: start of the op after (ns)
  gp.prev_event_id,                   -- GPU op whose end opens the gap
  gp.next_event_id,                   -- GPU op whose start closes the gap
  ok.launch_event_id AS next_launch_event_id,
  ok.launch_ts AS next_launch_ts,
  CASE WHEN ok.launch_event_id IS NULL THEN 'unknown'
       WHEN ok.launch_ts > gp.ts THEN 'host'
       ELSE 'device' END AS cause,
  -- The last event the launching thread started at or before the gap start (x): the innermost CPU
  -- op containing the gap start is on x's chain of enclosing ops. Usually it is x's own innermost op;
  -- when that one has already ended but the outermost has not, walk up the parents.
  (SELECT CASE
            WHEN o.ts + o.dur > gp.ts THEN o.id
            WHEN t.ts + t.dur > gp.ts THEN (
              WITH RECURSIVE up(id) AS (
                SELECT o.parent_id
                UNION ALL
                SELECT p.parent_id FROM events AS p JOIN up ON p.id = up.id WHERE p.parent_id IS NOT NULL
              )
              SELECT c.id FROM up JOIN events AS c ON c.id = up.id
              WHERE c.cat IN ('cpu_op', 'Operator') AND c.name NOT LIKE 'ProfilerStep#%'
                AND c.ts + c.dur > gp.ts LIMIT 1)
          END
   FROM events AS x
   JOIN events AS o ON o.id = x.cpu_op_id
   JOIN events AS t ON t.id = x.top_cpu_op_id
   WHERE x.id = (SELECT h.id FROM events AS h
                 WHERE h.thread_id = ok.launch_thread_id AND h.ts <= gp.ts
                 ORDER BY h.ts DESC, h.depth DESC, h.id DESC LIMIT 1)) AS host_event_id
FROM gaps AS gp
LEFT JOIN op_kernel_links AS ok ON ok.gpu_event_id = gp.next_event_id;
-- @index CREATE INDEX idle_gaps_device_ts ON idle_gaps(trace_id, device, ts);
-- Covering indexes, so that per-device sums read gaps in order instead of sorting them: by cause and
-- time (gpu_utilization's buckets, idle_summary), by the host op blamed and by length
-- (idle_breakdown).
-- @index CREATE INDEX idle_gaps_cause_ts ON idle_gaps(trace_id, device, cause, ts, dur);
-- @index CREATE INDEX idle_gaps_host ON idle_gaps(trace_id, device, host_event_id, cause, dur);
-- @index CREATE INDEX idle_gaps_dur ON idle_gaps(trace_id, device, dur);
