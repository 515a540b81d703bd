-- Case: q_crosscheck. A small trace from bench/gen_trace.py (2 training steps of a 1-layer
-- transformer, DDP all-reduce, memcpys, memsets). This file recomputes, by other means, numbers
-- the bundled queries (bundled.txt) must reproduce; expected.csv shows both, see README.md.
--
-- 1. Kernel count and time straight from the kernels view: kernel_summary's instances and total_ns
--    must add up to these.
SELECT count(*) AS kernels, sum(dur) AS kernel_ns, count(DISTINCT name) AS names FROM kernels;

-- 2. GPU op time per kind: kernel_classes' total_ns per class must add up to these (compute +
--    communication = kernel; memory = memcpy + memset).
SELECT kind, count(*) AS ops, sum(dur) AS total_ns FROM gpu_ops GROUP BY kind ORDER BY kind;

-- 3. The TraceLens breakdown from unions instead of a sweep line: for intervals sorted by start,
--    |union| = sum of max(0, end - max(start, running max of earlier ends)).
--    compute = |C|, exposed_comm = |C u M| - |C|, exposed_memcpy = |all| - |C u M|,
--    idle from idle_gaps, span = last end - first start. Their sum must be the span, and each must
--    equal temporal_breakdown's column.
WITH ops AS (
  SELECT ts, end_ts,
         CASE WHEN kind <> 'kernel' THEN 'memory' WHEN name LIKE '%nccl%' THEN 'comm' ELSE 'compute' END AS cls
  FROM gpu_ops
),
sets AS (
  SELECT 'c' AS s, ts, end_ts FROM ops WHERE cls = 'compute'
  UNION ALL SELECT 'cm', ts, end_ts FROM ops WHERE cls IN ('compute', 'comm')
  UNION ALL SELECT 'all', ts, end_ts FROM ops
),
run AS (
  SELECT s, ts, end_ts,
         max(end_ts) OVER (PARTITION BY s ORDER BY ts, end_ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM sets
),
u AS (
  SELECT s, sum(max(0, end_ts - max(ts, coalesce(prev, ts)))) AS len FROM run GROUP BY s
),
v AS (
  SELECT (SELECT max(end_ts) - min(ts) FROM ops) AS span_ns,
         (SELECT len FROM u WHERE s = 'c') AS c,
         (SELECT len FROM u WHERE s = 'cm') AS cm,
         (SELECT len FROM u WHERE s = 'all') AS a,
         (SELECT sum(dur) FROM idle_gaps) AS idle_ns
)
SELECT span_ns, c AS compute_ns, cm - c AS exposed_comm_ns, a - cm AS exposed_memcpy_ns, idle_ns,
       c + (cm - c) + (a - cm) + idle_ns AS parts_sum_ns
FROM v;
