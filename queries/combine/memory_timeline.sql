-- combine: memory_timeline
-- Per trace: each partition's rows (its one trace's), in trace order, as the query orders them. With
-- :buckets 0 and the default :points, the partitions' rows hold at most 2000 per device (per event,
-- or 2000 buckets: memory_timeline.partial.sql); the job's budget comes from its devices in scope
-- (all partitions' devices), as in the query, and a device with more events than that is cut into
-- budget buckets, each the union of its 2000-bucket rows j / (2000 / budget) (the budget divides
-- 2000, so the buckets' bounds are the same ts), or of its per-event rows by (ts - t0) * budget /
-- (t1 - t0): counts and bytes added, maxima of the maxima, the values of the last row, the op of
-- the first row reaching the maximum.
WITH devs AS MATERIALIZED (
  SELECT trace_id, device_type, device_id, sum(events) AS events, min(t0) AS t0, min(t1) AS t1
  FROM partial
  GROUP BY trace_id, device_type, device_id
),
budget(points) AS (                   -- as memory_timeline's
  SELECT coalesce(:points, (
    SELECT max(column1)
    FROM (VALUES (2000), (1000), (500), (400), (250), (200), (125), (100), (80), (50), (40), (25))
    WHERE column1 = 25 OR column1 * (SELECT count(*) FROM devs) <= 32000))
),
cut AS MATERIALIZED (                 -- the devices cut further, into nb buckets
  SELECT d.trace_id, d.device_type, d.device_id, d.t0, d.t1, b.points AS nb
  FROM devs AS d CROSS JOIN budget AS b
  WHERE coalesce(:buckets, 0) <= 0 AND :points IS NULL AND b.points < 2000 AND d.events > b.points
),
rows_ AS (                            -- their rows, each with its bucket cj
  SELECT p.rowid AS r, p.trace_id, p.device_type, p.device_id, p.events, p.bytes, p.allocated_max,
         p.reserved_max, p.source, c.nb, c.t0, c.t1,
         CASE WHEN p.nb > 0 THEN p.j / (p.nb / c.nb)
              WHEN c.t1 = c.t0 THEN c.nb - 1
              ELSE min(c.nb - 1, (p.ts - c.t0) * c.nb / (c.t1 - c.t0)) END AS cj
  FROM cut AS c
  JOIN partial AS p
    ON p.trace_id = c.trace_id AND p.device_type IS c.device_type AND p.device_id IS c.device_id
),
maxed AS (
  SELECT *, max(allocated_max) OVER (PARTITION BY trace_id, device_type, device_id, cj) AS top
  FROM rows_
),
buckets AS (
  SELECT trace_id, device_type, device_id, cj, min(nb) AS nb, min(t0) AS t0, min(t1) AS t1,
         sum(events) AS events, sum(bytes) AS bytes, max(allocated_max) AS allocated_max,
         max(reserved_max) AS reserved_max, max(r) AS last_r,
         min(CASE WHEN allocated_max = top THEN r END) AS top_r,
         max(source = 'cumulative') AS cumulative
  FROM maxed
  GROUP BY trace_id, device_type, device_id, cj
)
SELECT trace_id, device_type, device_id, ts, end_ts, events, bytes, allocated, allocated_max, reserved,
       reserved_max, op_name, source
FROM (
  SELECT p.trace_id, p.device_type, p.device_id, p.ts, p.end_ts, p.events, p.bytes, p.allocated,
         p.allocated_max, p.reserved, p.reserved_max, p.op_name, p.source, p.rowid AS ord
  FROM partial AS p
  WHERE NOT EXISTS (
    SELECT 1 FROM cut AS c
    WHERE c.trace_id = p.trace_id AND c.device_type IS p.device_type AND c.device_id IS p.device_id)
  UNION ALL
  SELECT b.trace_id, b.device_type, b.device_id,
         b.t0 + b.cj * (b.t1 - b.t0) / b.nb, b.t0 + (b.cj + 1) * (b.t1 - b.t0) / b.nb,
         b.events, b.bytes,
         (SELECT allocated FROM partial WHERE rowid = b.last_r), b.allocated_max,
         (SELECT reserved FROM partial WHERE rowid = b.last_r), b.reserved_max,
         (SELECT op_name FROM partial WHERE rowid = b.top_r),
         CASE WHEN b.cumulative THEN 'cumulative' ELSE 'trace' END, b.cj
  FROM buckets AS b
)
ORDER BY trace_id, device_type, device_id, ts, ord;
