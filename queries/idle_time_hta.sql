-- name: idle_time_hta
-- description: HTA's idle-time breakdown per GPU stream: the time between consecutive GPU ops on a stream, split into host_wait / kernel_wait / other, with HTA's idle_time_ratio and the interval statistics.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :kernel_wait_ns 30000 (number) — an interval shorter than this (ns) that is not a host wait is a kernel wait
--
-- From stream_idle_gaps: one interval per pair of consecutive GPU ops (kernel, memcpy, memset) on a
-- stream, dur = next start - previous end, signed (overlapping ops give dur <= 0, summed as they
-- are, as HTA does). Category, re-derived here with the threshold parameter:
--   host_wait    the next op's launch call started after the previous op ended
--   kernel_wait  else, dur < :kernel_wait_ns
--   other        else (also when the next op has no known launch and dur >= the threshold)
-- Columns: intervals, idle_ns (sum of dur), idle_ratio = idle_ns / the stream's idle_ns over all
-- categories (HTA's idle_time_ratio, 4 decimals), and HTA's show_idle_interval_stats: mean (integer
-- ns), min, max of dur.
-- HTA's threshold is 30 in integer-microsecond times ("30 ns" in its docs); here it is exact ns, so
-- the default 30000 reproduces HTA's intent. Unlike idle_breakdown, these intervals are per stream:
-- a stream is idle while another keeps the device busy, so they do not add up to device idle time.
WITH g AS (
  SELECT trace_id, device, stream, dur,
         CASE WHEN next_launch_ts > ts THEN 'host_wait'
              WHEN dur < coalesce(:kernel_wait_ns, 30000) THEN 'kernel_wait'
              ELSE 'other' END AS category
  FROM stream_idle_gaps
  WHERE :trace_id IS NULL OR trace_id = :trace_id
)
SELECT
  trace_id,
  device,
  stream,
  category,
  count(*) AS intervals,
  sum(dur) AS idle_ns,
  round(1.0 * sum(dur) / nullif(sum(sum(dur)) OVER (PARTITION BY trace_id, device, stream), 0), 4) AS idle_ratio,
  sum(dur) / count(*) AS mean_ns,
  min(dur) AS min_ns,
  max(dur) AS max_ns
FROM g
GROUP BY trace_id, device, stream, category
ORDER BY trace_id, device, stream,
         CASE category WHEN 'host_wait' THEN 1 WHEN 'kernel_wait' THEN 2 ELSE 3 END;
