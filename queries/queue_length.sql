-- name: queue_length
-- description: Launched-but-not-started GPU ops per stream over time (HTA trace_counters queue length): per stream its maximum, time-weighted and per-change means and time with a full queue, or the step series itself.
-- param :mode summary — 'summary': one row per (trace, device, stream); 'series': one row per change of the queue length
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :max_queue 1024 — queue length counted as full (CUDA's per-stream launch queue; HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM)
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
WITH d AS (
  -- One +1 (launch call start) and one -1 (GPU op start) per GPU op with a launch; wait (on the -1)
  -- is the op's time in the queue.
  SELECT trace_id, device, stream, launch_ts AS ts, 1 AS delta, 0 AS wait
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND coalesce(:mode, 'summary') = 'summary'
  UNION ALL
  SELECT trace_id, device, stream, gpu_ts, -1, gpu_ts - launch_ts
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND coalesce(:mode, 'summary') = 'summary'
),
running AS (
  -- Queue length after each change, in time order (+1 before -1 at equal ts; the order among equal
  -- changes at equal ts changes nothing below), and the stream's first time t0.
  SELECT
    trace_id, device, stream, ts, delta, wait,
    sum(delta) OVER w AS queue_length,
    min(ts) OVER w AS t0
  FROM d
  WINDOW w AS (PARTITION BY trace_id, device, stream ORDER BY ts, delta DESC
               ROWS UNBOUNDED PRECEDING)
),
per_stream AS (
  -- Each change holds until the next one (hold), so, summing over changes:
  --   sum(queue_length * hold) = sum over ops of (GPU start - launch start) = sum(wait)
  --   sum(hold) = span; time at or above :max_queue = sum over the changes where the queue length
  --   crosses it of (ts - t0) when it goes below, minus (ts - t0) when it goes to or above, plus the
  --   span when the final length (0) is at or above it.
  SELECT
    trace_id, device, stream,
    count(*) / 2 AS ops,
    max(queue_length) AS max_queue,
    round(1.0 * sum(wait) / nullif(max(ts) - min(ts), 0), 3) AS avg_queue,
    round(avg(queue_length), 3) AS hta_mean_queue,
    max(ts) - min(ts) AS span_ns,
    coalesce(sum(CASE WHEN (queue_length - delta >= coalesce(:max_queue, 1024))
                        <> (queue_length >= coalesce(:max_queue, 1024))
                      THEN CASE WHEN queue_length >= coalesce(:max_queue, 1024) THEN t0 - ts
                                ELSE ts - t0 END END), 0)
      + CASE WHEN 0 >= coalesce(:max_queue, 1024) THEN max(ts) - min(ts) ELSE 0 END AS full_ns
  FROM running
  GROUP BY trace_id, device, stream
)
SELECT
  s.trace_id,
  s.device,
  s.stream,
  s.ops,
  s.max_queue,
  s.avg_queue,
  s.hta_mean_queue,
  s.span_ns,
  s.full_ns,
  round(100.0 * s.full_ns / nullif(t.end_ts - t.start_ts, 0), 3) AS full_pct
FROM per_stream AS s
JOIN traces AS t ON t.id = s.trace_id
ORDER BY s.trace_id, s.device, s.stream;

-- Result set 2: the step function. Only the last change at each ts is kept (the earlier ones at
-- the same ts hold for 0 ns).
WITH d AS (
  SELECT trace_id, device, stream, launch_ts AS ts, 1 AS delta
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND coalesce(:mode, 'summary') = 'series'
  UNION ALL
  SELECT trace_id, device, stream, gpu_ts, -1
  FROM op_kernel_links
  WHERE launch_event_id IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND coalesce(:mode, 'summary') = 'series'
),
running AS (
  -- Walked from the end (ts DESC): the rows already seen are the later changes. As every op adds
  -- +1 and -1, the queue length after a change is minus the sum of the later changes, and the next
  -- change's time is the smallest later ts (lead(ts) without a lookahead).
  SELECT
    trace_id, device, stream, ts,
    -coalesce(sum(delta) OVER w, 0) AS queue_length,
    min(ts) OVER w - ts AS hold_ns
  FROM d
  WINDOW w AS (PARTITION BY trace_id, device, stream ORDER BY ts DESC, delta
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT trace_id, device, stream, ts, queue_length, hold_ns
FROM running
WHERE hold_ns IS NOT 0
ORDER BY trace_id, device, stream, ts;
