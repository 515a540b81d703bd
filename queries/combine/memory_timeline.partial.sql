-- partial: memory_timeline
-- The partition's rows as memory_timeline gives them (the same SQL), with :points NULL taken as the
-- budget of :job_devices devices (the job's devices in scope: memory_timeline.job.sql summed over the
-- partitions in scope), or 2000 whatever the devices in scope when :job_devices is NULL, and four
-- more columns: nb (the device's buckets; 0: one row per event), j (the row's bucket, 0 .. nb - 1;
-- NULL per event), t0 and t1 (the device's first and last event ts). With the default :points the
-- combining query counts the devices of all partitions and cuts a device with more events than
-- their budget into that many buckets (a divisor of 2000: each is a union of 2000-bucket rows, or
-- of per-event rows; a device already cut into the budget's buckets keeps them); otherwise it
-- prints the rows as they are.
WITH RECURSIVE
-- The devices in scope, from memory_devices (their span and size without a pass over the events),
-- and k, a number for each in output order; dev adds how many buckets (0: one row per event).
scope AS MATERIALIZED (
  SELECT trace_id, device_type, device_id, first_ts AS t0, last_ts AS t1, without_total, events,
         row_number() OVER (ORDER BY trace_id, device_type, device_id) AS k
  FROM memory_devices
  WHERE (:trace_id IS NULL OR trace_id = :trace_id)
    AND (:device IS NULL OR device_id = :device)    -- whole devices: the running sums stay the same
),
-- The most rows per device: :points, else the default for the job's :job_devices devices (as
-- memory_timeline's), else 2000 (the combining query cuts them further).
budget(points) AS (
  SELECT coalesce(:points, CASE WHEN :job_devices IS NULL THEN 2000 ELSE (
    SELECT max(column1)
    FROM (VALUES (2000), (1000), (500), (400), (250), (200), (125), (100), (80), (50), (40), (25))
    WHERE column1 = 25 OR column1 * :job_devices <= 32000) END)
),
dev AS MATERIALIZED (
  SELECT s.trace_id, s.device_type, s.device_id, s.t0, s.t1, s.without_total,
         CASE WHEN coalesce(:buckets, 0) > 0 THEN :buckets
              WHEN b.points > 0 AND s.events > b.points THEN b.points
              ELSE 0 END AS nb,
         s.k
  FROM scope AS s CROSS JOIN budget AS b
),
n(j) AS (                             -- 0 .. the most buckets of a device - 1
  SELECT 0
  UNION ALL
  SELECT j + 1 FROM n WHERE j + 1 < (SELECT max(nb) FROM dev)
),
-- Bucket j of a bucketed device holds the events with (ts - t0) * nb / (t1 - t0) = j (the last
-- event in bucket nb - 1): the ts in [lo, hi).
buckets AS (
  SELECT d.k, d.trace_id, d.device_type, d.device_id, d.nb, d.without_total, n.j,
         d.t0 + (n.j * (d.t1 - d.t0) + d.nb - 1) / d.nb AS lo,
         CASE WHEN n.j = d.nb - 1 THEN d.t1 + 1
              ELSE d.t0 + ((n.j + 1) * (d.t1 - d.t0) + d.nb - 1) / d.nb END AS hi
  FROM dev AS d
  CROSS JOIN n
  WHERE d.nb > 0 AND n.j < d.nb
),
-- Each bucket's events read in memory_levels' index (trace, device, ts, id): a range scan per
-- aggregate, in time order, instead of a pass over every event and a sort by bucket; the other
-- aggregates only for a bucket with events.
counted AS MATERIALIZED (
  SELECT b.*,
    (SELECT count(*) FROM memory_levels AS m
     WHERE m.trace_id = b.trace_id AND m.device_type IS b.device_type AND m.device_id IS b.device_id
       AND m.ts >= b.lo AND m.ts < b.hi) AS events
  FROM buckets AS b
),
per_bucket AS MATERIALIZED (
  SELECT b.*,
    (SELECT sum(m.bytes) FROM memory_levels AS m
     WHERE m.trace_id = b.trace_id AND m.device_type IS b.device_type AND m.device_id IS b.device_id
       AND m.ts >= b.lo AND m.ts < b.hi) AS bytes,
    (SELECT max(m.allocated) FROM memory_levels AS m
     WHERE m.trace_id = b.trace_id AND m.device_type IS b.device_type AND m.device_id IS b.device_id
       AND m.ts >= b.lo AND m.ts < b.hi) AS allocated_max,
    (SELECT max(m.total_reserved) FROM memory_levels AS m
     WHERE m.trace_id = b.trace_id AND m.device_type IS b.device_type AND m.device_id IS b.device_id
       AND m.ts >= b.lo AND m.ts < b.hi) AS reserved_max
  FROM counted AS b
  WHERE b.events > 0
),
rows AS (
  -- One row per event; end_ts = the device's next event (NULL at the last).
  SELECT
    d.trace_id, d.device_type, d.device_id, m.ts, lead(m.ts) OVER w AS end_ts, 1 AS events, m.bytes,
    m.allocated, m.allocated AS allocated_max, m.total_reserved AS reserved,
    m.total_reserved AS reserved_max, m.cpu_op_id AS op_id,
    CASE WHEN m.cumulative THEN 'cumulative' ELSE 'trace' END AS source, m.id AS sort_id,
    0 AS nb, NULL AS j, d.t0, d.t1
  FROM dev AS d
  CROSS JOIN memory_levels AS m       -- (the devices' events by the index, none when every device
  WHERE d.nb = 0                      -- is bucketed)
    AND m.trace_id = d.trace_id AND m.device_type IS d.device_type AND m.device_id IS d.device_id
  WINDOW w AS (PARTITION BY d.k ORDER BY m.ts, m.id)
  UNION ALL
  -- One row per non-empty bucket: allocated / reserved after its last event (latest ts, then
  -- highest id), op_id at the first event (ts, then id) reaching allocated_max.
  SELECT
    p.trace_id, p.device_type, p.device_id,
    d.t0 + p.j * (d.t1 - d.t0) / d.nb,
    d.t0 + (p.j + 1) * (d.t1 - d.t0) / d.nb,
    p.events, p.bytes,
    (SELECT m.allocated FROM memory_levels AS m
     WHERE m.trace_id = p.trace_id AND m.device_type IS p.device_type AND m.device_id IS p.device_id
       AND m.ts >= p.lo AND m.ts < p.hi
     ORDER BY m.ts DESC, m.id DESC LIMIT 1),
    p.allocated_max,
    (SELECT m.total_reserved FROM memory_levels AS m
     WHERE m.trace_id = p.trace_id AND m.device_type IS p.device_type AND m.device_id IS p.device_id
       AND m.ts >= p.lo AND m.ts < p.hi
     ORDER BY m.ts DESC, m.id DESC LIMIT 1),
    p.reserved_max,
    (SELECT m.cpu_op_id FROM memory_levels AS m
     WHERE m.trace_id = p.trace_id AND m.device_type IS p.device_type AND m.device_id IS p.device_id
       AND m.ts >= p.lo AND m.ts < p.hi AND m.allocated = p.allocated_max
     ORDER BY m.ts, m.id LIMIT 1),
    CASE WHEN p.without_total > 0 AND EXISTS (
           SELECT 1 FROM memory_levels AS m
           WHERE m.trace_id = p.trace_id AND m.device_type IS p.device_type
             AND m.device_id IS p.device_id AND m.ts >= p.lo AND m.ts < p.hi AND m.cumulative)
         THEN 'cumulative' ELSE 'trace' END,
    p.k * p.nb + p.j,
    p.nb, p.j, d.t0, d.t1
  FROM per_bucket AS p
  JOIN dev AS d ON d.k = p.k
)
-- A device's rows are all per event or all per bucket.
SELECT r.trace_id, r.device_type, r.device_id, r.ts, r.end_ts,
       r.events, r.bytes, r.allocated, r.allocated_max, r.reserved, r.reserved_max,
       op.name AS op_name, r.source, r.nb, r.j, r.t0, r.t1
FROM rows AS r
LEFT JOIN events AS op ON op.id = r.op_id
ORDER BY r.trace_id, r.device_type, r.device_id, r.ts, r.sort_id;
