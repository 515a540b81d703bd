-- name: queue_series
-- description: The queue length of each stream as a step function (one row per change): launched-but-not-started GPU work, a CUDA/HIP graph launch counting once (HTA trace_counters queue length; per-stream figures: queue_length).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :graph_nodes 0 {0|1} — 0: a CUDA/HIP graph launch is one queue entry per stream it runs on; 1: one entry per GPU op it runs (every graph node, HTA's counting)
--
-- Definition: as queue_length's. Per (trace, device, stream), +1 at the start of each queue entry's
-- launch call, -1 when the entry starts on the GPU; an entry is a GPU op with its own launch call,
-- or a CUDA/HIP graph launch's GPU ops on the stream (leaving the queue when the first of them
-- starts; every GPU op its own entry with :graph_nodes 1). GPU ops without a launch call are left
-- out; at equal times the +1s are applied before the -1s. Only the last change at each ts is kept
-- (the earlier ones at the same ts hold for 0 ns). One row per change, so about 2 rows per GPU op:
-- the output's size sets the time. With :graph_nodes 0 these are the rows of stream_queue (computed
-- at import), read in its key order; with :graph_nodes 1 the changes are walked here.
--   ts             time of a change (ns); NULL where the launch call or the GPU op has no time
--   queue_length   after every change at ts
--   hold_ns        until the next change on the stream; NULL at the last one
WITH
parts AS MATERIALIZED (
  -- The streams, numbered in output order (pidx). Each gets sort keys of its own, base ..
  -- base + stride - 1, stride being 2 x (its trace's duration + 2) (ok: all of them fit in 63 bits).
  SELECT trace_id, device, stream, t0, stride, ok,
         row_number() OVER o AS pidx,
         coalesce(sum(CASE WHEN ok THEN stride END)
                    OVER (o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base
  FROM (SELECT s.trace_id, s.device, s.stream, t.start_ts AS t0,
               2 * (t.end_ts - t.start_ts + 2) AS stride,
               total(2.0 * (t.end_ts - t.start_ts + 2)) OVER () < 4e18 AS ok
        FROM (SELECT DISTINCT trace_id, device, stream FROM op_kernel_links
              WHERE launch_event_id IS NOT NULL AND coalesce(:graph_nodes, 0)
                AND (:trace_id IS NULL OR trace_id = :trace_id)) AS s
        JOIN traces AS t ON t.id = s.trace_id)
  WINDOW o AS (ORDER BY trace_id, device, stream)
),
entries AS (
  -- The queue entries with :graph_nodes 1: every GPU op with a launch call.
  SELECT p.pidx, l.launch_ts, l.gpu_ts
  FROM op_kernel_links AS l           -- (CROSS JOIN: the ops scanned once, each one's stream
  CROSS JOIN parts AS p ON p.trace_id = l.trace_id AND p.device IS l.device AND p.stream IS l.stream
  WHERE coalesce(:graph_nodes, 0) AND l.launch_event_id IS NOT NULL  -- looked up)
    AND (:trace_id IS NULL OR l.trace_id = :trace_id)
),
d AS (
  -- One +1 (launch call start) and one -1 (entry start) per entry. k puts them in order (stream,
  -- time, +1 before -1 at equal times) as one integer, which sorts fast:
  -- base + 2 x (ts - trace start) + (1 for a -1); as text in the same order where keys do not fit.
  SELECT x.pidx, e.delta,
         CASE WHEN p.ok
              THEN p.base + 2 * coalesce(CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END - p.t0 + 1, 0)
                   + (e.delta < 0)
              ELSE printf('%010d %020d %d', p.pidx,
                          coalesce(CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END - p.t0 + 1, 0),
                          e.delta < 0) END AS k,
         CASE WHEN e.delta = 1 THEN x.launch_ts ELSE x.gpu_ts END AS ts, p.base + p.stride AS k_end
  FROM entries AS x
  JOIN parts AS p ON p.pidx = x.pidx
  CROSS JOIN (SELECT 1 AS delta UNION ALL SELECT -1) AS e
),
running AS (
  -- Walked from the end (k descending): the rows already seen are the later changes. As every
  -- entry adds +1 and -1, the queue length after a change is minus the sum of the later changes of
  -- its stream (of all streams after it: those add up to 0), and the next change is the smallest
  -- later k (nk), on the same stream if below the stream's last key (k_end).
  SELECT pidx, k, ts, k_end,
         -coalesce(sum(delta) OVER w, 0) AS queue_length,
         min(k) OVER w AS nk
  FROM d
  WINDOW w AS (ORDER BY k DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
series AS (                           -- a NULL time holds for NULL
  SELECT pidx, k, ts, queue_length,
         CASE WHEN ts IS NULL THEN NULL
              WHEN typeof(k) = 'integer' THEN CASE WHEN nk < k_end THEN nk / 2 - k / 2 END
              WHEN substr(nk, 1, 10) = substr(k, 1, 10)
              THEN CAST(substr(nk, 12, 20) AS INTEGER) - CAST(substr(k, 12, 20) AS INTEGER) END AS hold_ns
  FROM running
)
SELECT trace_id, device, stream, ts, queue_length, hold_ns
FROM (
  SELECT trace_id, seq AS o, device, stream, ts, queue_length, hold_ns
  FROM stream_queue                   -- (its key order: no sort)
  WHERE NOT coalesce(:graph_nodes, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  UNION ALL
  SELECT p.trace_id,
         CASE WHEN s.ts IS NULL        -- (a stream's NULL times, first, tie as in ORDER BY ts)
              THEN CASE WHEN typeof(s.k) = 'integer' THEN s.k - s.k % 2 ELSE substr(s.k, 1, 32) || '0' END
              ELSE s.k END,
         p.device, p.stream, s.ts, s.queue_length, s.hold_ns
  FROM series AS s
  JOIN parts AS p ON p.pidx = s.pidx
  WHERE s.hold_ns IS NOT 0
  ORDER BY 1, 2
);
