-- name: launch_delay_histogram
-- description: Distribution of launch delays (GPU op start minus the end of its launch call, op_kernel_links.launch_delay) in power-of-ten buckets, per trace: ops and summed delay per bucket.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :include_memory 1 {0|1} — 1: kernels, memcpys and memsets; 0: kernels only
--
-- Buckets (lo_ns inclusive, hi_ns exclusive, NULL = unbounded): '< 0' (the op started before its
-- launch call returned), '0-1us', '1-10us', '10-100us', '100us-1ms', '1-10ms', '>= 10ms'. GPU ops
-- without a launch call are left out. Every bucket is listed for each trace with launches, empty
-- ones with ops 0. Columns: trace_id, rank, bucket, lo_ns, hi_ns, ops, delay_ns (sum of the
-- signed delays in the bucket), pct_ops (ops / the trace's ops x 100, rounded to 2 decimals).
WITH edges(k, bucket, lo_ns, hi_ns) AS (
  VALUES (0, '< 0', NULL, 0), (1, '0-1us', 0, 1000), (2, '1-10us', 1000, 10000),
         (3, '10-100us', 10000, 100000), (4, '100us-1ms', 100000, 1000000),
         (5, '1-10ms', 1000000, 10000000), (6, '>= 10ms', 10000000, NULL)
),
d AS MATERIALIZED (
  SELECT trace_id, launch_delay AS delay,
         CASE WHEN launch_delay < 0 THEN 0 WHEN launch_delay < 1000 THEN 1 WHEN launch_delay < 10000 THEN 2
              WHEN launch_delay < 100000 THEN 3 WHEN launch_delay < 1000000 THEN 4
              WHEN launch_delay < 10000000 THEN 5 ELSE 6 END AS k
  FROM op_kernel_links
  WHERE launch_delay IS NOT NULL AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND (coalesce(:include_memory, 1) = 1 OR gpu_kind = 'kernel')
),
per AS (
  SELECT trace_id, k, count(*) AS ops, sum(delay) AS delay_ns FROM d GROUP BY trace_id, k
),
totals AS (
  SELECT trace_id, sum(ops) AS n FROM per GROUP BY trace_id
)
SELECT
  tt.trace_id,
  t.rank,
  e.bucket,
  e.lo_ns,
  e.hi_ns,
  coalesce(p.ops, 0) AS ops,
  coalesce(p.delay_ns, 0) AS delay_ns,
  round(100.0 * coalesce(p.ops, 0) / tt.n, 2) AS pct_ops
FROM totals AS tt
JOIN traces AS t ON t.id = tt.trace_id
CROSS JOIN edges AS e
LEFT JOIN per AS p ON p.trace_id = tt.trace_id AND p.k = e.k
ORDER BY tt.trace_id, e.k;
