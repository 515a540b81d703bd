-- name: gpu_utilization
-- description: GPU busy % over time per device: each device's span (first GPU op start to last GPU op end) cut into equal time buckets, with the busy time and the idle time by cause (idle_gaps: host / device / unknown) in each; for plotting.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :buckets 200 (integer) — at most this many buckets per device
-- param :min_bucket_ns 1000 (integer) — buckets are at least this wide (ns), so a short span gets fewer buckets
--
-- The bucket width is ceil(span / :buckets) ns (at least :min_bucket_ns); the last bucket ends at
-- the span's end, so it may be narrower. Per bucket:
--   ts, dur          bucket start (ns) and width (ns); offset_ns = ts - the device's span start
--   idle_host_ns     time of idle_gaps with cause 'host' inside the bucket (the CPU launched late)
--   idle_device_ns   ... cause 'device' (already launched: dependency or launch latency)
--   idle_unknown_ns  ... cause 'unknown' (no launch found)
--   busy_ns          dur minus the three: time at least one GPU op runs (idle_gaps are exactly the
--                    times no GPU op of the device runs inside its span)
--   busy_pct         busy_ns / dur x 100, rounded to 2 decimals
-- Every bucket of the span is listed, idle or not. A device whose span is empty gives no rows.
WITH RECURSIVE
spans AS MATERIALIZED (
  SELECT trace_id, device, min(gpu_ts) AS t0, max(gpu_ts + gpu_dur) AS t1
  FROM op_kernel_links
  WHERE gpu_ts IS NOT NULL AND gpu_dur >= 0 AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY trace_id, device
),
grid AS MATERIALIZED (
  SELECT trace_id, device, t0, t1, w, (t1 - t0 + w - 1) / w AS n
  FROM (SELECT trace_id, device, t0, t1,
               max(coalesce(:min_bucket_ns, 1000), 1,
                   (t1 - t0 + coalesce(:buckets, 200) - 1) / max(coalesce(:buckets, 200), 1)) AS w
        FROM spans WHERE t1 > t0)
),
buckets(trace_id, device, k, n, t0, t1, w) AS (
  SELECT trace_id, device, 0, n, t0, t1, w FROM grid
  UNION ALL
  SELECT trace_id, device, k + 1, n, t0, t1, w FROM buckets WHERE k + 1 < n
),
gaps AS (                             -- each gap with the first and last bucket it touches
  SELECT g.trace_id, g.device, g.cause, g.ts, g.ts + g.dur AS end_ts, s.t0, s.w,
         (g.ts - s.t0) / s.w AS k0, (g.ts + g.dur - 1 - s.t0) / s.w AS k1
  FROM idle_gaps AS g
  JOIN grid AS s ON s.trace_id = g.trace_id AND s.device IS g.device
  WHERE g.dur > 0
),
pieces(trace_id, device, cause, k, k1, ts, end_ts, t0, w) AS (  -- a gap cut at bucket edges
  SELECT trace_id, device, cause, k0, k1, ts, end_ts, t0, w FROM gaps WHERE k1 > k0
  UNION ALL
  SELECT trace_id, device, cause, k + 1, k1, ts, end_ts, t0, w FROM pieces WHERE k < k1
),
idle AS (                             -- (a gap within one bucket, most of them, is not cut)
  SELECT trace_id, device, k,
         sum(CASE WHEN cause = 'host' THEN len ELSE 0 END) AS host_ns,
         sum(CASE WHEN cause = 'device' THEN len ELSE 0 END) AS device_ns,
         sum(CASE WHEN cause = 'unknown' THEN len ELSE 0 END) AS unknown_ns
  FROM (SELECT trace_id, device, cause, k0 AS k,
               min(end_ts, t0 + (k0 + 1) * w) - max(ts, t0 + k0 * w) AS len
        FROM gaps WHERE k1 <= k0
        UNION ALL
        SELECT trace_id, device, cause, k,
               min(end_ts, t0 + (k + 1) * w) - max(ts, t0 + k * w) AS len
        FROM pieces)
  GROUP BY trace_id, device, k
)
SELECT
  b.trace_id,
  t.rank,
  b.device,
  b.k AS bucket,
  b.t0 + b.k * b.w AS ts,
  b.k * b.w AS offset_ns,
  min(b.w, b.t1 - (b.t0 + b.k * b.w)) AS dur,
  min(b.w, b.t1 - (b.t0 + b.k * b.w)) - coalesce(i.host_ns + i.device_ns + i.unknown_ns, 0) AS busy_ns,
  coalesce(i.host_ns, 0) AS idle_host_ns,
  coalesce(i.device_ns, 0) AS idle_device_ns,
  coalesce(i.unknown_ns, 0) AS idle_unknown_ns,
  round(100.0 * (min(b.w, b.t1 - (b.t0 + b.k * b.w)) - coalesce(i.host_ns + i.device_ns + i.unknown_ns, 0))
        / min(b.w, b.t1 - (b.t0 + b.k * b.w)), 2) AS busy_pct
FROM buckets AS b
JOIN traces AS t ON t.id = b.trace_id
LEFT JOIN idle AS i ON i.trace_id = b.trace_id AND i.device IS b.device AND i.k = b.k
ORDER BY b.trace_id, b.device, b.k;
