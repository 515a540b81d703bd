-- combine: kernel_summary
-- The traces' per-name sums and per-(name, duration) kernel counts (kernel_summary.partial.sql) added
-- by name text; the mean, median, variance and standard deviation computed from them as the query
-- computes them (the same sums of integers; the counts and squared deviations summed in duration
-- order); GPU busy time: the traces' busy times summed.
-- partial: scans
WITH names AS MATERIALIZED (          -- per trace and name number: its name and sums
  SELECT trace_id, nid, name, class, n, total_ns, min_ns, max_ns FROM partial WHERE name IS NOT NULL
),
ids AS MATERIALIZED (                 -- the job's names, numbered
  SELECT name, min(class) AS class, row_number() OVER (ORDER BY name) AS nid
  FROM names
  GROUP BY name
),
nids AS MATERIALIZED (                -- (trace, the trace's name number) -> the job's
  SELECT m.trace_id, m.nid AS trace_nid, i.nid
  FROM names AS m JOIN ids AS i ON i.name = m.name
),
per_name AS MATERIALIZED (            -- count, sum, mean, min, max per name
  SELECT i.nid,
         sum(m.n) AS instances,
         sum(m.total_ns) AS total_ns,
         1.0 * sum(m.total_ns) / sum(m.n) AS mean,
         min(m.min_ns) AS min_ns,
         max(m.max_ns) AS max_ns
  FROM names AS m JOIN ids AS i ON i.name = m.name
  GROUP BY i.nid
),
counts AS (                           -- per name and distinct duration: its kernels (the
  SELECT x.nid, h.dur, sum(h.n) AS n  -- counts read once; the names looked up)
  FROM partial AS h
  CROSS JOIN nids AS x ON x.trace_id = h.trace_id AND x.trace_nid = h.nid
  WHERE h.dur IS NOT NULL
  GROUP BY x.nid, h.dur
),
running AS NOT MATERIALIZED (         -- ... in that order, with the kernels up to it and their
  SELECT c.nid, c.dur, p.instances, p.max_ns, c.n,  -- squared deviations
         sum(c.n) OVER w AS upto,
         sum(c.n * (c.dur - p.mean) * (c.dur - p.mean)) OVER w AS squares
  FROM counts AS c
  CROSS JOIN per_name AS p ON p.nid = c.nid
  WINDOW w AS (PARTITION BY c.nid ORDER BY c.dur ROWS UNBOUNDED PRECEDING)
),
spread AS (
  SELECT nid,
         (min(CASE WHEN upto >= (instances + 1) / 2 THEN dur END)
          + min(CASE WHEN upto >= (instances + 2) / 2 THEN dur END)) / 2.0 AS median,
         CASE WHEN max(instances) > 1
              THEN max(CASE WHEN dur = max_ns THEN squares END) / (max(instances) - 1) END AS variance
  FROM running
  WHERE (upto >= (instances + 1) / 2 AND upto - n < (instances + 2) / 2) OR dur = max_ns
  GROUP BY nid
),
newton(nid, v, x, i) AS (
  SELECT p.nid, v.variance, 1.0 * max(p.max_ns - p.min_ns, 1), 0
  FROM per_name AS p JOIN spread AS v ON v.nid = p.nid
  WHERE v.variance > 0
  UNION ALL
  SELECT nid, v, (x + v / x) / 2, i + 1 FROM newton WHERE i < 100 AND (x + v / x) / 2 < x
),
stddev AS (
  SELECT nid, min(x) AS sd FROM newton GROUP BY nid
),
busy AS (
  SELECT sum(busy_ns) AS busy_ns FROM partial WHERE busy_ns IS NOT NULL
)
SELECT
  n.name,
  n.class,
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
JOIN ids AS n ON n.nid = p.nid
JOIN spread AS v ON v.nid = p.nid
LEFT JOIN stddev AS sd ON sd.nid = p.nid
ORDER BY p.total_ns DESC, n.name
LIMIT coalesce(:limit, -1);
