-- name: queue_length
-- description: Launched-but-not-started GPU ops per stream over time (HTA trace_counters queue length): per stream its maximum, time-weighted and per-change means and time with a full queue, or the step series itself.
-- param :mode summary {summary|series} — 'summary': one row per (trace, device, stream); 'series': one row per change of the queue length
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :max_queue 1024 (integer) — queue length counted as full (CUDA's per-stream launch queue; HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM)
--
-- Definition (HTA): +1 at the START of the launch call of each GPU op (kernel, memcpy, memset),
-- -1 at the GPU op's start, per (trace, device, stream); the queue length is the running sum, a
-- step function holding its value until the next change. GPU ops without a launch call are left
-- out (nothing says when they were queued). A CUDA/HIP graph launch adds one per GPU op it runs,
-- all at the graph launch call's start (HTA asserts launches and GPU ops are 1:1 and fails there).
-- At equal times the +1s are applied before the -1s.
--
-- The file has two statements, so two result sets: the summary (rows only in mode 'summary') and
-- the series (rows only in mode 'series'); the other one comes back empty.
--
-- Result set 1, mode 'summary':
--   ops            GPU ops counted on the stream
--   max_queue      largest queue length
--   avg_queue      time-weighted mean over [first launch, last GPU op start] of the stream
--   hta_mean_queue unweighted mean over the 2 x ops change points (HTA's describe(): a mean over
--                  rows, not over time)
--   span_ns        first launch .. last GPU op start on the stream
--   full_ns        time with queue_length >= :max_queue (HTA get_time_spent_blocked_on_full_queue;
--                  HTA reports only one stream per rank there, a bug)
--   full_pct       full_ns as a share of the trace's duration (traces.end_ts - start_ts), as HTA
-- Result set 2, mode 'series':
--   ts             time of a change (ns)
--   queue_length   after every change at ts
--   hold_ns        until the next change on the stream; NULL at the last one
WITH stats AS (
  -- Per stream, from op_kernel_links.queue (the queue length as each launch call starts, computed
  -- at import):
  --   the maximum is reached at a +1 (a -1 lowers q);
  --   sum of q over all N = 2n changes = 2 x (sum of q over the +1s) - n: with A(p) the +1s among
  --     the first p changes, q(p) = 2 A(p) - p; sum A(p) over all p counts each +1 once per change
  --     from it on, N - p + 1, and at a +1 p = 2 A(p) - q(p), so sum q = 2 x sum(q at +1s) - n;
  --   sum(wait) = sum of q x hold over the changes = time-weighted mean x span;
  --   span = first .. last change (NULL times left out): the ops' earliest and latest launch or
  --     start (lo, hi).
  SELECT trace_id, device, stream,
         count(*) AS ops,
         max(queue) AS max_queue,
         sum(queue) AS sum_q,
         sum(gpu_ts - launch_ts) AS wait_ns,
         min(CASE WHEN launch_ts IS NULL THEN gpu_ts WHEN gpu_ts IS NULL THEN launch_ts
                  ELSE min(launch_ts, gpu_ts) END) AS lo,
         max(CASE WHEN launch_ts IS NULL THEN gpu_ts WHEN gpu_ts IS NULL THEN launch_ts
                  ELSE max(launch_ts, gpu_ts) END) AS hi
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND coalesce(:mode, 'summary') = 'summary'
  GROUP BY trace_id, device, stream
),
parts AS MATERIALIZED (
  -- Time at or above :max_queue needs the changes themselves, in order: only for the streams whose
  -- queue reaches it (none with the default 1024 in the traces seen; every stream when
  -- :max_queue <= 0, as the queue can be negative where a GPU op starts before its launch call).
  -- They are numbered in output order (pidx). Each gets sort keys of its own, base ..
  -- base + stride - 1, stride being 2 x (its trace's duration + 2) (ok: all of them fit in 63 bits).
  SELECT trace_id, device, stream, t0, stride, ok,
         row_number() OVER o AS pidx,
         coalesce(sum(CASE WHEN ok THEN stride END)
                    OVER (o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS base
  FROM (SELECT s.trace_id, s.device, s.stream, t.start_ts AS t0,
               2 * (t.end_ts - t.start_ts + 2) AS stride,
               total(2.0 * (t.end_ts - t.start_ts + 2)) OVER () < 4e18 AS ok
        FROM stats AS s
        JOIN traces AS t ON t.id = s.trace_id
        WHERE s.max_queue >= coalesce(:max_queue, 1024) OR coalesce(:max_queue, 1024) <= 0)
  WINDOW o AS (ORDER BY trace_id, device, stream)
),
d AS (
  -- One +1 (launch call start) and one -1 (GPU op start) per GPU op with a launch. k puts them in
  -- order (stream, time with a NULL time first, +1 before -1 at equal times) as one integer, which
  -- sorts fast: base + 2 x (ts - trace start + 1, 0 for NULL) + (1 for a -1); as text in the same
  -- order where the keys do not fit. rel: the change's time relative to the trace start.
  SELECT p.pidx, e.delta,
         CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END - p.t0 AS rel,
         CASE WHEN p.ok
              THEN p.base + 2 * coalesce(CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END - p.t0 + 1, 0)
                   + (e.delta < 0)
              ELSE printf('%010d %020d %d', p.pidx,
                          coalesce(CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END - p.t0 + 1, 0),
                          e.delta < 0) END AS k
  FROM op_kernel_links AS l
  JOIN parts AS p ON p.trace_id = l.trace_id AND p.device IS l.device AND p.stream IS l.stream
  CROSS JOIN (SELECT 1 AS delta UNION ALL SELECT -1) AS e
  WHERE l.launch_event_id IS NOT NULL AND (:trace_id IS NULL OR l.trace_id = :trace_id)
),
running AS (
  -- Queue length q after each change, in k order. Every stream's changes add up to 0, so a running
  -- sum over all streams in turn is each stream's own.
  SELECT pidx, delta, rel, sum(delta) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) AS q
  FROM d
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
  SELECT s.*,
         coalesce(c.s, 0) - coalesce((s.lo - p.t0) * c.n_null, 0)
         + CASE WHEN 0 >= coalesce(:max_queue, 1024) THEN s.hi - s.lo ELSE 0 END AS full_ns
  FROM stats AS s
  LEFT JOIN parts AS p ON p.trace_id = s.trace_id AND p.device IS s.device AND p.stream IS s.stream
  LEFT JOIN crossings AS c ON c.pidx = p.pidx
)
SELECT
  f.trace_id,
  f.device,
  f.stream,
  f.ops,
  f.max_queue,
  round(1.0 * f.wait_ns / nullif(f.hi - f.lo, 0), 3) AS avg_queue,
  round(1.0 * (2 * f.sum_q - f.ops) / (2 * f.ops), 3) AS hta_mean_queue,
  f.hi - f.lo AS span_ns,
  f.full_ns,
  round(100.0 * f.full_ns / nullif(t.end_ts - t.start_ts, 0), 3) AS full_pct
FROM full AS f
JOIN traces AS t ON t.id = f.trace_id
ORDER BY f.trace_id, f.device, f.stream;

-- Result set 2: the step function. Only the last change at each ts is kept (the earlier ones at
-- the same ts hold for 0 ns).
WITH parts AS MATERIALIZED (
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
              WHERE launch_event_id IS NOT NULL
                AND (:trace_id IS NULL OR trace_id = :trace_id)
                AND coalesce(:mode, 'summary') = 'series') AS s
        JOIN traces AS t ON t.id = s.trace_id)
  WINDOW o AS (ORDER BY trace_id, device, stream)
),
d AS (
  -- One +1 (launch call start) and one -1 (GPU op start) per GPU op with a launch. k puts them in
  -- order (stream, time, +1 before -1 at equal times) as one integer, which sorts fast:
  -- base + 2 x (ts - trace start) + (1 for a -1); as text in the same order where keys do not fit.
  SELECT p.pidx, e.delta,
         CASE WHEN p.ok
              THEN p.base + 2 * coalesce(CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END - p.t0 + 1, 0)
                   + (e.delta < 0)
              ELSE printf('%010d %020d %d', p.pidx,
                          coalesce(CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END - p.t0 + 1, 0),
                          e.delta < 0) END AS k,
         CASE WHEN e.delta = 1 THEN l.launch_ts ELSE l.gpu_ts END AS ts, p.base + p.stride AS k_end
  FROM op_kernel_links AS l
  JOIN parts AS p ON p.trace_id = l.trace_id AND p.device IS l.device AND p.stream IS l.stream
  CROSS JOIN (SELECT 1 AS delta UNION ALL SELECT -1) AS e
  WHERE l.launch_event_id IS NOT NULL AND (:trace_id IS NULL OR l.trace_id = :trace_id)
),
running AS (
  -- Walked from the end (k descending): the rows already seen are the later changes. As every op
  -- adds +1 and -1, the queue length after a change is minus the sum of the later changes of its
  -- stream (of all streams after it: those add up to 0), and the next change is the smallest later
  -- k (nk), on the same stream if below the stream's last key (k_end).
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
SELECT p.trace_id, p.device, p.stream, s.ts, s.queue_length, s.hold_ns
FROM series AS s
JOIN parts AS p ON p.pidx = s.pidx
WHERE s.hold_ns IS NOT 0
ORDER BY CASE WHEN s.ts IS NULL        -- (a stream's NULL times, first, tie as in ORDER BY ts)
              THEN CASE WHEN typeof(s.k) = 'integer' THEN s.k - s.k % 2 ELSE substr(s.k, 1, 32) || '0' END
              ELSE s.k END;
