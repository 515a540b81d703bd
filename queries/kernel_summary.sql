-- name: kernel_summary
-- description: Per kernel name: instances, total / mean / median / min / max / stddev of the duration (ns), share of all kernel time and of GPU busy time, and its class (nsys cuda_gpu_kern_sum, HTA kernel breakdown).
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :device NULL — only this device; all devices when NULL
-- param :limit -1 — number of rows (-1: all)
--
-- Columns:
--   name            kernel name as written (kernels: cat kernel / legacy Kernel)
--   class           from kernel_class_rules (see kernel_classes for the rule that matched)
--   instances       number of launches executed
--   total_ns        sum of durations
--   pct_kernel_time total_ns / sum of total_ns over every kernel in scope x 100 (nsys "Time%")
--   pct_gpu_busy    total_ns / GPU busy time x 100, where busy time is, per (trace, device), the union
--                   of all GPU op intervals (kernels, memcpys, memsets on every stream), summed over
--                   the devices in scope. Kernels that overlap (several streams) make the column add
--                   up to more than 100.
--   avg_ns          mean (1 decimal); median_ns: middle value, the mean of the two middle values when
--                   the count is even; min_ns, max_ns
--   stddev_ns       SAMPLE standard deviation (n - 1 in the denominator, as pandas, hence HTA, does),
--                   1 decimal; NULL for a single instance
-- The square root is computed with Newton's method in SQL (sqrt() needs SQLite's optional math
-- functions): start from the range max - min, which is never below the sample standard deviation
-- (it is at most range / sqrt(2)), and iterate x <- (x + v/x) / 2 while x decreases.
-- How it is computed: two passes over the kernels: one grouped by (stack_id, trace, device) for the
-- counts, sums, extremes and span, one sorted by (name number, duration) with running frames only
-- for the median and the sum of squared deviations (added in duration order).
WITH kern AS NOT MATERIALIZED (       -- the kernels in scope: the kernel rows only (event_ranges);
  SELECT e.id, e.stack_id, e.dur,     -- device as in gpu_ops / op_kernels (args, else the pid);
         r.trace_id, e.ts,            -- read twice rather than copied
         coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END) AS device
  FROM event_ranges AS r
  JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE r.kind = 'kernel' AND e.cat IN ('kernel', 'Kernel') AND e.dur IS NOT NULL
    AND (:trace_id IS NULL OR r.trace_id = :trace_id)
    AND (:device IS NULL
         OR coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END) = :device)
),
per_stack AS MATERIALIZED (           -- kernels grouped by stack_id (an integer: the kernel's name
  SELECT coalesce(stack_id, -id) AS sk,  -- and cat, or its path under a GPU annotation; a kernel
         trace_id, device,               -- without one: a group of its own), trace and device:
         min(id) AS rep,                 -- count, sum, min and max of the durations, first start
         count(*) AS n,                  -- and last end (for the span below)
         sum(dur) AS t,
         min(dur) AS lo,
         max(dur) AS hi,
         min(ts) AS first_ts,
         max(ts + dur) AS last_end
  FROM kern
  GROUP BY 1, 2, 3
),
stack_names AS (                      -- named once per stack
  SELECT s.sk,
         CASE WHEN s.sk > 0 THEN st.name
              ELSE (SELECT name FROM events WHERE id = s.rep) END AS name
  FROM (SELECT sk, min(rep) AS rep FROM per_stack GROUP BY sk) AS s
  LEFT JOIN stacks AS st ON st.id = s.sk
),
names AS (                            -- each kernel name in scope, numbered: sorting by this small
  SELECT name, row_number() OVER (ORDER BY name) AS nid  -- integer is much cheaper than by kernel
  FROM (SELECT DISTINCT name FROM stack_names)           -- names, which can be kilobytes long
),
stack_nid AS MATERIALIZED (
  SELECT s.sk, n.nid FROM stack_names AS s JOIN names AS n ON n.name = s.name
),
per_name AS MATERIALIZED (            -- count, sum, mean, min, max per name (from the groups above)
  SELECT n.nid,
         sum(s.n) AS instances,
         sum(s.t) AS total_ns,
         1.0 * sum(s.t) / sum(s.n) AS mean,  -- as avg(dur): an exact sum of integers, divided
         min(s.lo) AS min_ns,
         max(s.hi) AS max_ns
  FROM per_stack AS s
  JOIN stack_nid AS n ON n.sk = s.sk
  GROUP BY n.nid
),
stack_stats AS MATERIALIZED (         -- per stack: its name's number, count and mean
  SELECT s.sk, p.nid, p.instances, p.mean
  FROM stack_nid AS s JOIN per_name AS p ON p.nid = s.nid
),
ranked AS (                           -- the kernels in scope in duration order within their name:
  SELECT x.nid, x.instances AS n, k.dur,  -- rank and running sum of squared deviations (one sort,
         row_number() OVER by_dur AS rn,  -- running frames only)
         sum((k.dur - x.mean) * (k.dur - x.mean)) OVER by_dur AS ss
  FROM kern AS k
  JOIN stack_stats AS x ON x.sk = coalesce(k.stack_id, -k.id)
  WINDOW by_dur AS (PARTITION BY x.nid ORDER BY k.dur ROWS UNBOUNDED PRECEDING)
),
spread AS (                           -- per name: the median (the middle element, n odd, or the mean
  SELECT nid,                         -- of the two middle ones, n even) and the sample variance (the
         avg(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN dur END) AS median,  -- sum of squares
         max(CASE WHEN rn = n AND n > 1 THEN ss / (n - 1) END) AS variance        -- at the last row)
  FROM ranked
  WHERE rn IN ((n + 1) / 2, (n + 2) / 2, n)
  GROUP BY nid
),
newton(nid, v, x, i) AS (            -- square root of the variance, see the header
  SELECT p.nid, v.variance, 1.0 * max(p.max_ns - p.min_ns, 1), 0
  FROM per_name AS p JOIN spread AS v ON v.nid = p.nid
  WHERE v.variance > 0
  UNION ALL
  SELECT nid, v, (x + v / x) / 2, i + 1 FROM newton WHERE i < 100 AND (x + v / x) / 2 < x
),
stddev AS (
  SELECT nid, min(x) AS sd FROM newton GROUP BY nid
),
span AS (                             -- per (trace, device) in scope: first GPU op start, last end;
  SELECT trace_id, device, max(last_end) - min(first_ts) AS span  -- kernels from the groups above,
  FROM (SELECT trace_id, device, first_ts, last_end FROM per_stack  -- memcpys and memsets here
        UNION ALL
        SELECT r.trace_id,
               coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END),
               e.ts, e.ts + e.dur
        FROM event_ranges AS r
        JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id
        WHERE r.kind IN ('memcpy', 'memset')
          AND e.cat IN ('gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset') AND e.dur IS NOT NULL
          AND (:trace_id IS NULL OR r.trace_id = :trace_id)
          AND (:device IS NULL
               OR coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END) = :device))
  GROUP BY trace_id, device
),
busy AS (                             -- busy = span - idle gaps (idle_gaps covers exactly that span)
  SELECT sum(s.span - coalesce((SELECT sum(g.dur) FROM idle_gaps AS g
                                WHERE g.trace_id = s.trace_id AND g.device IS s.device), 0)) AS busy_ns
  FROM span AS s
),
rule_of AS (                          -- class of each kernel name: the best matching rule
  SELECT n.nid,
         (SELECT r.class FROM kernel_class_rules AS r
           WHERE (r.kind IS NULL OR r.kind = 'kernel')
             AND CASE r.syntax WHEN 'like' THEN n.name LIKE r.pattern ELSE n.name GLOB r.pattern END
           ORDER BY r.priority DESC, r.id LIMIT 1) AS class
  FROM names AS n
)
SELECT
  n.name,
  coalesce(c.class, 'other') AS class,
  p.instances,
  p.total_ns,
  round(100.0 * p.total_ns / (SELECT sum(total_ns) FROM per_name), 2) AS pct_kernel_time,
  round(100.0 * p.total_ns / (SELECT nullif(busy_ns, 0) FROM busy), 2) AS pct_gpu_busy,
  round(p.mean, 1) AS avg_ns,
  v.median AS median_ns,
  p.min_ns,
  p.max_ns,
  CASE WHEN v.variance IS NULL THEN NULL
       WHEN v.variance = 0 THEN 0.0
       ELSE round(sd.sd, 1) END AS stddev_ns
FROM per_name AS p
JOIN names AS n ON n.nid = p.nid
JOIN spread AS v ON v.nid = p.nid
LEFT JOIN stddev AS sd ON sd.nid = p.nid
LEFT JOIN rule_of AS c ON c.nid = p.nid
ORDER BY p.total_ns DESC, n.name
LIMIT coalesce(:limit, -1);
