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
buckets(trace_id, device, k, n, t0, t1, w) AS (  -- in (trace, device, bucket) order, so that the
  SELECT trace_id, device, 0, n, t0, t1, w FROM grid  -- range scans below walk the gaps index forward
  UNION ALL
  SELECT trace_id, device, k + 1, n, t0, t1, w FROM buckets WHERE k + 1 < n
  ORDER BY 1, 2, 3
),
gaps AS (                             -- the idle gaps across a bucket edge (+g.dur: read from the
  SELECT * FROM (                     -- covering idle_gaps_cause_ts index)
    SELECT g.trace_id, g.device, g.cause, g.ts, g.ts + g.dur AS end_ts, d.t0, d.w,
           (g.ts - d.t0) / d.w AS k0, (g.ts + g.dur - 1 - d.t0) / d.w AS k1
    FROM grid AS d
    JOIN idle_gaps AS g ON g.trace_id = d.trace_id AND g.device IS d.device AND +g.dur > 0)
  WHERE k0 < k1
),
parts(trace_id, device, cause, k, k1, ts, end_ts, t0, w) AS (  -- their part in each bucket
  SELECT trace_id, device, cause, k0, k1, ts, end_ts, t0, w FROM gaps
  UNION ALL
  SELECT trace_id, device, cause, k + 1, k1, t0 + (k + 1) * w, end_ts, t0, w FROM parts WHERE k < k1
),
spill AS MATERIALIZED (               -- per bucket and cause: what those parts add, less their whole
                                      -- length where they start (counted in full there below)
  SELECT trace_id, device, k,
         sum(CASE WHEN cause = 'host' THEN ns ELSE 0 END) AS host,
         sum(CASE WHEN cause = 'device' THEN ns ELSE 0 END) AS device_,
         sum(CASE WHEN cause = 'unknown' THEN ns ELSE 0 END) AS unknown
  FROM (SELECT trace_id, device, cause, k, min(end_ts, t0 + (k + 1) * w) - ts AS ns FROM parts
        UNION ALL
        SELECT trace_id, device, cause, k0, ts - end_ts FROM gaps)
  GROUP BY trace_id, device, k
),
b AS (                                -- per bucket: the gaps that start in it (a range scan of the
  SELECT b.trace_id, b.device, b.k,   -- (trace_id, device, cause, ts) index) plus the spill
         b.t0 + b.k * b.w AS ts, b.k * b.w AS offset_ns, min(b.w, b.t1 - (b.t0 + b.k * b.w)) AS dur,
         (SELECT coalesce(sum(g.dur), 0) FROM idle_gaps AS g
           WHERE g.trace_id = b.trace_id AND g.device IS b.device AND g.cause = 'host'
             AND g.ts >= b.t0 + b.k * b.w AND g.ts < b.t0 + (b.k + 1) * b.w AND +g.dur > 0)
           + coalesce(s.host, 0) AS host,
         (SELECT coalesce(sum(g.dur), 0) FROM idle_gaps AS g
           WHERE g.trace_id = b.trace_id AND g.device IS b.device AND g.cause = 'device'
             AND g.ts >= b.t0 + b.k * b.w AND g.ts < b.t0 + (b.k + 1) * b.w AND +g.dur > 0)
           + coalesce(s.device_, 0) AS device_,
         (SELECT coalesce(sum(g.dur), 0) FROM idle_gaps AS g
           WHERE g.trace_id = b.trace_id AND g.device IS b.device AND g.cause = 'unknown'
             AND g.ts >= b.t0 + b.k * b.w AND g.ts < b.t0 + (b.k + 1) * b.w AND +g.dur > 0)
           + coalesce(s.unknown, 0) AS unknown
  FROM buckets AS b
  LEFT JOIN spill AS s ON s.trace_id = b.trace_id AND s.device IS b.device AND s.k = b.k
  LIMIT -1                            -- (not flattened: each sum read once, not once per use)
)
SELECT
  b.trace_id,
  t.rank,
  b.device,
  b.k AS bucket,
  b.ts,
  b.offset_ns,
  b.dur,
  b.dur - (b.host + b.device_ + b.unknown) AS busy_ns,
  b.host AS idle_host_ns,
  b.device_ AS idle_device_ns,
  b.unknown AS idle_unknown_ns,
  round(100.0 * (b.dur - (b.host + b.device_ + b.unknown)) / b.dur, 2) AS busy_pct
FROM b
JOIN traces AS t ON t.id = b.trace_id
ORDER BY b.trace_id, b.device, b.k;
