-- name: queue_length
-- description: Launched-but-not-started GPU work per stream (HTA trace_counters queue length), a CUDA/HIP graph launch counting once: per stream its maximum, time-weighted and per-change means and time with a full queue (the series itself: queue_series).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :max_queue 1024 (integer) — queue length counted as full (CUDA's per-stream launch queue; HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM)
-- param :graph_nodes 0 {0|1} — 0: a CUDA/HIP graph launch is one queue entry per stream it runs on; 1: one entry per GPU op it runs (every graph node, HTA's counting)
--
-- Definition (HTA): per (trace, device, stream), +1 at the START of the launch call of each queue
-- entry, -1 when the entry starts on the GPU; the queue length is the running sum, a step function
-- holding its value until the next change. An entry is a GPU op (kernel, memcpy, memset) with its
-- own launch call, or a CUDA/HIP graph launch (one launch call that ran several GPU ops: the call's
-- correlation id is on all of them): the device queue holds the graph launch as one entry, which
-- leaves it when the graph's first GPU op on the stream starts. With :graph_nodes 1 every GPU op of
-- the graph is an entry of its own, all added at the graph launch call's start (more than the
-- queue can hold: HTA asserts launches and GPU ops are 1:1 and leaves graph ops out). GPU ops
-- without a launch call are left out (nothing says when they were queued). At equal times the +1s
-- are applied before the -1s. The step function itself: queue_series (same definition).
--
--   ops            GPU ops counted on the stream
--   entries        queue entries: ops, a graph launch counting once (ops with :graph_nodes 1)
--   max_queue      largest queue length
--   avg_queue      time-weighted mean over [first launch, last entry start] of the stream
--   hta_mean_queue unweighted mean over the 2 x entries change points (HTA's describe(): a mean over
--                  rows, not over time)
--   span_ns        first launch .. last entry start on the stream
--   full_ns        time with queue_length >= :max_queue (HTA get_time_spent_blocked_on_full_queue;
--                  HTA reports only one stream per rank there, a bug)
--   full_pct       full_ns as a share of the trace's duration (traces.end_ts - start_ts), as HTA
WITH
-- Launch calls that ran more than one GPU op (graph launches), unless :graph_nodes 1. The
-- op_kernel_links_launch index holds them in order: no sort.
shared AS MATERIALIZED (
  SELECT launch_event_id AS id
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL AND NOT coalesce(:graph_nodes, 0)
  GROUP BY launch_event_id
  HAVING count(*) > 1
),
-- The streams they run on: their entries are not the GPU ops, so op_kernel_links.queue (counted per
-- GPU op) does not apply there and their changes are walked below.
gstreams AS MATERIALIZED (
  SELECT DISTINCT l.trace_id, l.device, l.stream
  FROM shared AS s
  JOIN op_kernel_links AS l ON l.launch_event_id = s.id
  WHERE :trace_id IS NULL OR l.trace_id = :trace_id
),
stats AS (
  -- Per stream, from op_kernel_links.queue (the queue length as each launch call starts, computed
  -- at import, one entry per GPU op):
  --   the maximum is reached at a +1 (a -1 lowers q);
  --   sum of q over all N = 2n changes = 2 x (sum of q over the +1s) - n: with A(p) the +1s among
  --     the first p changes, q(p) = 2 A(p) - p; sum A(p) over all p counts each +1 once per change
  --     from it on, N - p + 1, and at a +1 p = 2 A(p) - q(p), so sum q = 2 x sum(q at +1s) - n;
  --   sum(wait) = sum of q x hold over the changes = time-weighted mean x span;
  --   span = first .. last change (NULL times left out): the ops' earliest and latest launch or
  --     start (lo, hi).
  -- On the streams of gstreams these are replaced by the walk's (wstats).
  SELECT trace_id, device, stream, ops, entries, max_queue, sum_q, wait_ns,
         CASE WHEN lo_l IS NULL THEN lo_g WHEN lo_g IS NULL THEN lo_l ELSE min(lo_l, lo_g) END AS lo,
         CASE WHEN hi_l IS NULL THEN hi_g WHEN hi_g IS NULL THEN hi_l ELSE max(hi_l, hi_g) END AS hi
  FROM (SELECT trace_id, device, stream,
               count(*) AS ops,
               count(*) AS entries,
               max(queue) AS max_queue,
               sum(queue) AS sum_q,
               sum(gpu_ts - launch_ts) AS wait_ns,
               min(launch_ts) AS lo_l, min(gpu_ts) AS lo_g, max(launch_ts) AS hi_l, max(gpu_ts) AS hi_g
        FROM op_kernel_links
        WHERE launch_event_id IS NOT NULL
          AND (:trace_id IS NULL OR trace_id = :trace_id)
        GROUP BY trace_id, device, stream)
),
parts AS MATERIALIZED (
  -- The streams whose changes are walked, in order: those of gstreams, and those whose queue
  -- reaches :max_queue (time at or above it needs the changes themselves; none with the default
  -- 1024 in the traces seen; every stream when :max_queue <= 0, as the queue can be negative where
  -- a GPU op starts before its launch call). They are numbered in output order (pidx). Each gets
  -- sort keys of its own, base .. base + stride - 1, stride being 2 x (its trace's duration + 2)
  -- (ok: all of them fit in 63 bits).
  SELECT trace_id, device, stream, t0, stride, ok,
         row_number() OVER o AS pidx,
         coalesce(sum(CASE WHEN ok THEN stride END)
                    OVER (o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base
  FROM (SELECT s.trace_id, s.device, s.stream, t.start_ts AS t0,
               2 * (t.end_ts - t.start_ts + 2) AS stride,
               total(2.0 * (t.end_ts - t.start_ts + 2)) OVER () < 4e18 AS ok
        FROM stats AS s
        JOIN traces AS t ON t.id = s.trace_id
        WHERE s.max_queue >= coalesce(:max_queue, 1024) OR coalesce(:max_queue, 1024) <= 0
           OR EXISTS (SELECT 1 FROM gstreams AS g
                      WHERE g.trace_id = s.trace_id AND g.device IS s.device AND g.stream IS s.stream))
  WINDOW o AS (ORDER BY trace_id, device, stream)
),
entries AS (
  -- The queue entries of the walked streams: a GPU op, or a graph launch's GPU ops on the stream
  -- (one launch call, so one launch time; the entry starts with the first of them).
  SELECT p.pidx, 1 AS ops, l.launch_ts, l.gpu_ts
  FROM op_kernel_links AS l
  JOIN parts AS p ON p.trace_id = l.trace_id AND p.device IS l.device AND p.stream IS l.stream
  WHERE EXISTS (SELECT 1 FROM parts)  -- (checked once: no stream walked, no op read)
    AND l.launch_event_id IS NOT NULL AND (:trace_id IS NULL OR l.trace_id = :trace_id)
    AND l.launch_event_id NOT IN (SELECT id FROM shared)
  UNION ALL
  SELECT p.pidx, count(*), l.launch_ts, min(l.gpu_ts)
  FROM shared AS s
  JOIN op_kernel_links AS l ON l.launch_event_id = s.id
  JOIN parts AS p ON p.trace_id = l.trace_id AND p.device IS l.device AND p.stream IS l.stream
  WHERE :trace_id IS NULL OR l.trace_id = :trace_id
  GROUP BY p.pidx, s.id
),
d AS (
  -- One +1 (launch call start) and one -1 (entry start) per entry. k puts them in order (stream,
  -- time with a NULL time first, +1 before -1 at equal times) as one integer, which sorts fast:
  -- base + 2 x (ts - trace start + 1, 0 for NULL) + (1 for a -1); as text in the same order where
  -- the keys do not fit. rel: the change's time relative to the trace start.
  SELECT x.pidx, e.delta,
         CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END - p.t0 AS rel,
         CASE WHEN p.ok
              THEN p.base + 2 * coalesce(CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END - p.t0 + 1, 0)
                   + (e.delta < 0)
              ELSE printf('%010d %020d %d', p.pidx,
                          coalesce(CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END - p.t0 + 1, 0),
                          e.delta < 0) END AS k
  FROM entries AS x
  JOIN parts AS p ON p.pidx = x.pidx
  CROSS JOIN (SELECT 1 AS delta UNION ALL SELECT -1) AS e
),
running AS MATERIALIZED (
  -- Queue length q after each change, in k order. Every stream's changes add up to 0, so a running
  -- sum over all streams in turn is each stream's own.
  SELECT pidx, delta, rel, sum(delta) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) AS q
  FROM d
),
wstats AS (
  -- The walked streams' own figures (as stats, over entries).
  SELECT x.pidx, x.ops, x.entries, x.wait_ns, x.lo, x.hi, r.max_queue, r.sum_q
  FROM (SELECT pidx, sum(ops) AS ops, count(*) AS entries, sum(gpu_ts - launch_ts) AS wait_ns,
               min(CASE WHEN launch_ts IS NULL THEN gpu_ts WHEN gpu_ts IS NULL THEN launch_ts
                        ELSE min(launch_ts, gpu_ts) END) AS lo,
               max(CASE WHEN launch_ts IS NULL THEN gpu_ts WHEN gpu_ts IS NULL THEN launch_ts
                        ELSE max(launch_ts, gpu_ts) END) AS hi
        FROM entries GROUP BY pidx) AS x
  JOIN (SELECT pidx, max(q) AS max_queue, sum(CASE WHEN delta = 1 THEN q END) AS sum_q
        FROM running GROUP BY pidx) AS r ON r.pidx = x.pidx
),
crossings AS (
  -- Time at or above :max_queue = sum over the crossings of (ts - t0) going below, minus (ts - t0)
  -- going to or above, t0 the stream's first time (lo), crossings at a NULL time left out; t0
  -- cancels out as as many go up as down (q starts and ends at 0), except for those left out
  -- (n_null). Plus the span when 0 is already at or above :max_queue.
  SELECT pidx,
         coalesce(sum(CASE WHEN q >= coalesce(:max_queue, 1024) THEN -rel ELSE rel END), 0) AS s,
         sum(CASE WHEN rel IS NULL THEN CASE WHEN q >= coalesce(:max_queue, 1024) THEN 1 ELSE -1 END
             END) AS n_null
  FROM running
  WHERE (q - delta >= coalesce(:max_queue, 1024)) <> (q >= coalesce(:max_queue, 1024))
  GROUP BY pidx
),
full AS (
  SELECT s.trace_id, s.device, s.stream,
         coalesce(w.ops, s.ops) AS ops,
         coalesce(w.entries, s.entries) AS entries,
         coalesce(w.max_queue, s.max_queue) AS max_queue,
         coalesce(w.sum_q, s.sum_q) AS sum_q,
         coalesce(w.wait_ns, s.wait_ns) AS wait_ns,
         coalesce(w.lo, s.lo) AS lo,
         coalesce(w.hi, s.hi) AS hi,
         coalesce(c.s, 0) - coalesce((coalesce(w.lo, s.lo) - p.t0) * c.n_null, 0)
         + CASE WHEN 0 >= coalesce(:max_queue, 1024) THEN coalesce(w.hi, s.hi) - coalesce(w.lo, s.lo)
                ELSE 0 END AS full_ns
  FROM stats AS s
  LEFT JOIN parts AS p ON p.trace_id = s.trace_id AND p.device IS s.device AND p.stream IS s.stream
  LEFT JOIN wstats AS w ON w.pidx = p.pidx
  LEFT JOIN crossings AS c ON c.pidx = p.pidx
)
SELECT
  f.trace_id,
  f.device,
  f.stream,
  f.ops,
  f.entries,
  f.max_queue,
  round(1.0 * f.wait_ns / nullif(f.hi - f.lo, 0), 3) AS avg_queue,
  round(1.0 * (2 * f.sum_q - f.entries) / (2 * f.entries), 3) AS hta_mean_queue,
  f.hi - f.lo AS span_ns,
  f.full_ns,
  round(100.0 * f.full_ns / nullif(t.end_ts - t.start_ts, 0), 3) AS full_pct
FROM full AS f
JOIN traces AS t ON t.id = f.trace_id
ORDER BY f.trace_id, f.device, f.stream;
