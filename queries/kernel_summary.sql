-- name: kernel_summary
-- description: Per kernel name: instances, total / mean / median / min / max / stddev of the duration (ns), share of all kernel time and of GPU busy time, and its class (nsys cuda_gpu_kern_sum, HTA kernel breakdown).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :device NULL (integer) — only this device; all devices when NULL
-- param :limit -1 (integer) — number of rows (-1: all)
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
-- How it is computed: from op_kernel_links (one compact row per GPU op, with its device and the
-- number of its name, gpu_op_names.id), never from the wide events rows, in the order of its index
-- op_kernel_links_kernel_dur (name number, duration): one pass grouped by name number for the counts,
-- sums and extremes, one grouped by (name number, duration) that counts each name's kernels per
-- distinct duration and sums the counts and the squared deviations (count x squared deviation of
-- each distinct duration) in duration order, for the median and the variance; none sorts. Per
-- distinct duration, so that the same counts added over the traces of a partition directory give
-- the same numbers (queries/combine/kernel_summary.sql). The GPU busy time reads the ops trace by
-- trace (their id ranges in event_ranges), grouped by device only in traces with several.
WITH kern AS NOT MATERIALIZED (       -- the timed kernels in scope (device as in gpu_ops: args, else
  SELECT l.name_id AS nid, l.gpu_dur AS dur   -- the pid)
  FROM op_kernel_links AS l
  WHERE l.gpu_kind = 'kernel' AND l.gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR l.trace_id = :trace_id)
    AND (:device IS NULL OR l.device = :device)
),
per_name AS MATERIALIZED (            -- count, sum, mean, min, max per name
  SELECT nid,
         count(*) AS instances,
         sum(dur) AS total_ns,
         1.0 * sum(dur) / count(*) AS mean,  -- as avg(dur): an exact sum of integers, divided
         min(dur) AS min_ns,
         max(dur) AS max_ns
  FROM kern
  GROUP BY nid
),
running AS NOT MATERIALIZED (         -- per name and distinct duration, in that order (the index's:
  SELECT k.nid, k.dur, p.instances, p.max_ns,  -- no sort): its kernels, the kernels up to it and their
         count(*) AS n,                        -- squared deviations (count x squared deviation of
         sum(count(*)) OVER w AS upto,         -- each duration, summed in duration order)
         sum(count(*) * (k.dur - p.mean) * (k.dur - p.mean)) OVER w AS squares
  FROM kern AS k
  JOIN per_name AS p ON p.nid = k.nid
  GROUP BY k.nid, k.dur
  WINDOW w AS (PARTITION BY k.nid ORDER BY k.dur ROWS UNBOUNDED PRECEDING)
),
spread AS (                           -- per name: the median (the middle element, n odd, or the mean
  SELECT nid,                         -- of the two middle ones, n even) and the sample variance, from
         (min(CASE WHEN upto >= (instances + 1) / 2 THEN dur END)  -- the durations that hold the
          + min(CASE WHEN upto >= (instances + 2) / 2 THEN dur END)) / 2.0 AS median,  -- middle
         CASE WHEN max(instances) > 1                                 -- kernels and the longest
              THEN max(CASE WHEN dur = max_ns THEN squares END) / (max(instances) - 1) END AS variance
  FROM running
  WHERE (upto >= (instances + 1) / 2 AND upto - n < (instances + 2) / 2) OR dur = max_ns
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
per_trace AS MATERIALIZED (            -- per trace in scope: first GPU op start, last end (kernels,
  SELECT t.id AS trace_id, min(o.device) AS dmin, max(o.device) AS dmax,  -- memcpys, memsets)
         count(o.device) AS with_device, count(*) AS ops, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts) AS span
  FROM traces AS t                    -- (traces outermost, each one's ops read by their id ranges in
  CROSS JOIN event_ranges AS r ON r.trace_id = t.id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id  -- event_ranges:
  WHERE o.gpu_dur IS NOT NULL                                                          -- no sort)
    AND (:trace_id IS NULL OR t.id = :trace_id)
    AND (:device IS NULL OR o.device = :device)
  GROUP BY t.id
),
span AS (                             -- ... per (trace, device): grouped by device only in the traces
  SELECT trace_id, dmin AS device, span  -- with several
  FROM per_trace
  WHERE with_device = 0 OR (with_device = ops AND dmin = dmax)
  UNION ALL
  SELECT p.trace_id, o.device, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts)
  FROM per_trace AS p
  CROSS JOIN event_ranges AS r ON r.trace_id = p.trace_id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE NOT (p.with_device = 0 OR (p.with_device = p.ops AND p.dmin = p.dmax))
    AND o.gpu_dur IS NOT NULL AND (:device IS NULL OR o.device = :device)
  GROUP BY p.trace_id, o.device
),
busy AS (                             -- busy = span - idle gaps (idle_gaps covers exactly that span)
  SELECT sum(s.span - coalesce((SELECT sum(g.dur) FROM idle_gaps AS g
                                WHERE g.trace_id = s.trace_id AND g.device IS s.device), 0)) AS busy_ns
  FROM span AS s
)
SELECT
  n.name,
  c.class,
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
JOIN gpu_op_names AS n ON n.id = p.nid
JOIN gpu_op_classes AS c ON c.name_id = p.nid
JOIN spread AS v ON v.nid = p.nid
LEFT JOIN stddev AS sd ON sd.nid = p.nid
ORDER BY p.total_ns DESC, n.name
LIMIT coalesce(:limit, -1);
