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
edges AS MATERIALIZED (               -- per bucket edge t: the idle gap that runs across it, if any
  SELECT b.trace_id, b.device, b.k, b.n, b.t0, b.t1, b.w,  -- (gaps are disjoint: the last one that
         (SELECT json_array(g.cause, g.ts + g.dur - (b.t0 + b.k * b.w))  -- starts before t), as
            FROM (SELECT g.cause, g.ts, g.dur FROM idle_gaps AS g      -- [cause, ns past t]
                   WHERE g.trace_id = b.trace_id AND g.device IS b.device
                     AND g.ts < b.t0 + b.k * b.w AND g.dur > 0
                   ORDER BY g.ts DESC LIMIT 1) AS g
           WHERE g.ts + g.dur > b.t0 + b.k * b.w) AS cross_
  FROM buckets AS b
),
idle AS MATERIALIZED (                -- per bucket and cause: the gaps that start in it (a range of
  SELECT e.trace_id, e.device, e.k, e.n, e.t0, e.t1, e.w,  -- the (trace_id, device, cause, ts)
         c.cause,                     -- index), plus the part past its start of the gap running
         coalesce((SELECT sum(g.dur) FROM idle_gaps AS g  -- across it, less the part past its end
                    WHERE g.trace_id = e.trace_id AND g.device IS e.device AND g.cause = c.cause
                      AND g.ts >= e.t0 + e.k * e.w AND g.ts < e.t0 + (e.k + 1) * e.w AND g.dur > 0), 0)
         + CASE WHEN json_extract(e.cross_, '$[0]') = c.cause THEN json_extract(e.cross_, '$[1]') ELSE 0 END
         - coalesce((SELECT CASE WHEN json_extract(x.cross_, '$[0]') = c.cause THEN json_extract(x.cross_, '$[1]') END
                       FROM edges AS x
                      WHERE x.trace_id = e.trace_id AND x.device IS e.device AND x.k = e.k + 1), 0)
         AS ns
  FROM edges AS e
  CROSS JOIN (SELECT 'host' AS cause UNION ALL SELECT 'device' UNION ALL SELECT 'unknown') AS c
)
SELECT
  b.trace_id,
  t.rank,
  b.device,
  b.k AS bucket,
  b.t0 + b.k * b.w AS ts,
  b.k * b.w AS offset_ns,
  min(b.w, b.t1 - (b.t0 + b.k * b.w)) AS dur,
  min(b.w, b.t1 - (b.t0 + b.k * b.w)) - sum(b.ns) AS busy_ns,
  sum(CASE WHEN b.cause = 'host' THEN b.ns ELSE 0 END) AS idle_host_ns,
  sum(CASE WHEN b.cause = 'device' THEN b.ns ELSE 0 END) AS idle_device_ns,
  sum(CASE WHEN b.cause = 'unknown' THEN b.ns ELSE 0 END) AS idle_unknown_ns,
  round(100.0 * (min(b.w, b.t1 - (b.t0 + b.k * b.w)) - sum(b.ns)) / min(b.w, b.t1 - (b.t0 + b.k * b.w)), 2)
    AS busy_pct
FROM idle AS b
JOIN traces AS t ON t.id = b.trace_id
GROUP BY b.trace_id, b.device, b.k
ORDER BY b.trace_id, b.device, b.k;
