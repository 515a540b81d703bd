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
WITH kern AS (                        -- the kernels in scope: the kernel rows only (event_ranges);
  SELECT e.id, e.stack_id, e.dur      -- device as in gpu_ops / op_kernels (args, else the pid)
  FROM event_ranges AS r
  JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE r.kind = 'kernel' AND e.cat IN ('kernel', 'Kernel') AND e.dur IS NOT NULL
    AND (:trace_id IS NULL OR r.trace_id = :trace_id)
    AND (:device IS NULL
         OR coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END) = :device)
),
stack_names AS (                      -- kernels grouped by stack_id (an integer: the kernel's name
  SELECT s.sk,                        -- and cat, or its path under a GPU annotation), named once
         CASE WHEN s.sk > 0 THEN st.name  -- per stack (a kernel without one: a group of its own)
              ELSE (SELECT name FROM events WHERE id = s.rep) END AS name
  FROM (SELECT coalesce(stack_id, -id) AS sk, min(id) AS rep FROM kern GROUP BY 1) AS s
  LEFT JOIN stacks AS st ON st.id = s.sk
),
names AS (                            -- each kernel name in scope, numbered: sorting by this small
  SELECT name, row_number() OVER (ORDER BY name) AS nid  -- integer is much cheaper than by kernel
  FROM (SELECT DISTINCT name FROM stack_names)           -- names, which can be kilobytes long
),
stack_nid AS MATERIALIZED (
  SELECT s.sk, n.nid FROM stack_names AS s JOIN names AS n ON n.name = s.name
),
ranked AS (                           -- the kernels in scope, ranked by duration within their name
  SELECT n.nid, k.dur,
         row_number() OVER (by_dur ROWS UNBOUNDED PRECEDING) AS rn,
         count(*) OVER (by_dur ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n,
         avg(k.dur) OVER (by_dur ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS mean
  FROM kern AS k
  JOIN stack_nid AS n ON n.sk = coalesce(k.stack_id, -k.id)
  WINDOW by_dur AS (PARTITION BY n.nid ORDER BY k.dur)
),
per_name AS (
  SELECT nid,
         count(*) AS instances,
         sum(dur) AS total_ns,
         avg(dur) AS mean,
         -- the middle element (n odd) or the two middle elements (n even)
         avg(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN dur END) AS median,
         min(dur) AS min_ns,
         max(dur) AS max_ns,
         CASE WHEN count(*) > 1
              THEN sum((dur - mean) * (dur - mean)) / (count(*) - 1) END AS variance
  FROM ranked
  GROUP BY nid
),
newton(nid, v, x, i) AS (            -- square root of the variance, see the header
  SELECT nid, variance, 1.0 * max(max_ns - min_ns, 1), 0 FROM per_name WHERE variance > 0
  UNION ALL
  SELECT nid, v, (x + v / x) / 2, i + 1 FROM newton WHERE i < 100 AND (x + v / x) / 2 < x
),
stddev AS (
  SELECT nid, min(x) AS sd FROM newton GROUP BY nid
),
span AS (                             -- per (trace, device) in scope: first GPU op start, last end
  SELECT trace_id, device, max(gpu_ts + gpu_dur) - min(gpu_ts) AS span
  FROM op_kernel_links                -- (op_kernels without the names)
  WHERE gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND (:device IS NULL OR device = :device)
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
  p.median AS median_ns,
  p.min_ns,
  p.max_ns,
  CASE WHEN p.variance IS NULL THEN NULL
       WHEN p.variance = 0 THEN 0.0
       ELSE round(sd.sd, 1) END AS stddev_ns
FROM per_name AS p
JOIN names AS n ON n.nid = p.nid
LEFT JOIN stddev AS sd ON sd.nid = p.nid
LEFT JOIN rule_of AS c ON c.nid = p.nid
ORDER BY p.total_ns DESC, n.name
LIMIT coalesce(:limit, -1);
