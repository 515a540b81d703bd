-- name: memory_timeline
-- description: Allocated and reserved memory over time per device, from the allocator's [memory] events (profile_memory): one row per event, or per time bucket with the maximum reached in it and the op that reached it.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :device NULL (integer) — only this device_id (-1 = CPU, 0.. = GPUs); every device when NULL
-- param :buckets 0 (integer) — 0: one row per allocator event (but see :points); N > 0: each device's span cut into N equal time buckets (empty buckets left out)
-- param :points 2000 (integer) — with :buckets 0, a device with more than this many events is cut into :points buckets instead (at most :points rows per device, for plotting; the maxima are kept); 0: one row per event whatever the size
--
-- A device is (device_type, device_id) of memory_events: device_type 0 CPU, 1 CUDA (6 seen on
-- ROCm); device_id -1 for the CPU.
--   allocated  'Total Allocated' after the event (bytes). Traces before ~PyTorch 1.10 have no
--              totals: then the running sum of 'Bytes' from the first event of the trace
--              (source = 'cumulative'), which leaves out whatever was allocated before profiling
--              started, so it is relative and may go negative.
--   reserved   'Total Reserved' after the event (the caching allocator's segments); NULL when the
--              trace lacks it
-- Per event (:buckets 0 and at most :points events on the device, or :points 0): ts = the event,
-- end_ts = the next event on the device (the values hold until then; NULL at the last), events = 1,
-- bytes = the event's Bytes (negative: a free). Events at the same ts come in id order.
-- Per bucket (:buckets N, or a device with more than :points events: N = :points): [ts, end_ts) the
-- bucket, events in it, bytes = their sum, allocated / reserved = after the bucket's last event,
-- *_max = the largest value in the bucket.
-- op_name: the innermost CPU op running when the event (per bucket: the one reaching
-- allocated_max first) happened (memory_events.cpu_op_id); NULL outside any op.
WITH
-- The devices in scope, from memory_devices (their span and size without a pass over the events):
-- how many buckets (0: one row per event) and k, a number for each in output order.
dev AS MATERIALIZED (
  SELECT trace_id, device_type, device_id, first_ts AS t0, last_ts AS t1,
         without_total,
         CASE WHEN coalesce(:buckets, 0) > 0 THEN :buckets
              WHEN coalesce(:points, 2000) > 0 AND events > coalesce(:points, 2000)
              THEN coalesce(:points, 2000)
              ELSE 0 END AS nb,
         row_number() OVER (ORDER BY trace_id, device_type, device_id) AS k
  FROM memory_devices
  WHERE (:trace_id IS NULL OR trace_id = :trace_id)
    AND (:device IS NULL OR device_id = :device)    -- whole devices: the running sums stay the same
),
-- allocated: Total Allocated, or (events without it) the running sum of the Bytes of the device's
-- events without it (a window's pass, about a microsecond per row, only over those: most traces
-- have none).
-- The events of the bucketed devices with key = the device's k * nb + bucket index 0..nb-1 (the
-- last event falls in bucket nb-1).
keyed AS MATERIALIZED (
  SELECT m.id, m.ts, m.cpu_op_id, m.bytes, m.total_allocated AS allocated, m.total_reserved,
         'trace' AS source, d.k,
         d.k * d.nb + min(d.nb - 1, CASE WHEN d.t1 > d.t0 THEN (m.ts - d.t0) * d.nb / (d.t1 - d.t0)
                                              ELSE 0 END) AS key
  FROM memory_events AS m             -- the events scanned once (not at all when no device is
  CROSS JOIN dev AS d                 -- bucketed: the constant test first), the device looked up
  WHERE (SELECT max(nb) FROM dev) > 0
    AND d.nb > 0 AND m.total_allocated IS NOT NULL
    AND d.trace_id = m.trace_id AND d.device_type IS m.device_type AND d.device_id IS m.device_id
  UNION ALL
  SELECT a.id, a.ts, a.cpu_op_id, a.bytes, a.allocated, a.total_reserved, 'cumulative', d.k,
         d.k * d.nb + min(d.nb - 1, CASE WHEN d.t1 > d.t0 THEN (a.ts - d.t0) * d.nb / (d.t1 - d.t0)
                                              ELSE 0 END)
  FROM (SELECT m.id, m.ts, m.cpu_op_id, m.bytes, m.total_reserved, d.k,
               sum(m.bytes) OVER (PARTITION BY d.k ORDER BY m.ts, m.id ROWS UNBOUNDED PRECEDING)
                 AS allocated
        FROM memory_events AS m         -- (the same for the events without a total, when a
        CROSS JOIN dev AS d             -- bucketed device has some)
        WHERE (SELECT max(nb) FROM dev WHERE without_total > 0) > 0
          AND d.nb > 0 AND d.without_total > 0 AND m.total_allocated IS NULL
          AND d.trace_id = m.trace_id AND d.device_type IS m.device_type
          AND d.device_id IS m.device_id) AS a
  JOIN dev AS d ON d.k = a.k
),
per_bucket AS MATERIALIZED (
  SELECT key, k, count(*) AS events, sum(bytes) AS bytes,
         max(allocated) AS allocated_max, max(total_reserved) AS reserved_max,
         max(ts) AS last_ts, min(source) AS source
  FROM keyed
  GROUP BY key, k                     -- (k: the device, one per key)
),
cand AS (                             -- the events that may be a bucket's last or its first maximum
  SELECT b.key, b.id, b.ts, b.allocated, b.total_reserved, b.cpu_op_id,
         b.ts = p.last_ts AS is_last, b.allocated = p.allocated_max AS is_max
  FROM keyed AS b
  CROSS JOIN per_bucket AS p          -- CROSS JOIN: scan the events once, look their bucket up
  WHERE p.key = b.key AND (b.ts = p.last_ts OR b.allocated = p.allocated_max)
),
last AS (                             -- the bucket's last event (latest ts, then highest id): max(id)
  SELECT key, max(id) AS id,          -- picks the row's other columns
         allocated, total_reserved
  FROM cand WHERE is_last
  GROUP BY key
),
first_max AS (                        -- the earliest event at the bucket's maximum (ts, then id;
  SELECT key,                         -- zero-padded 'ts-id': min() picks its row)
         min(printf('%020d-%020d', ts, id)) AS tsid, cpu_op_id
  FROM cand WHERE is_max
  GROUP BY key
),
rows AS (
  -- One row per event; end_ts = the device's next event (NULL at the last).
  SELECT
    d.trace_id, d.device_type, d.device_id, e.ts, e.next_ts AS end_ts, 1 AS events, e.bytes,
    e.allocated, e.allocated AS allocated_max, e.total_reserved AS reserved,
    e.total_reserved AS reserved_max, e.cpu_op_id AS op_id, e.source, e.id AS sort_id
  FROM (SELECT id, ts, cpu_op_id, bytes, total_reserved, k,
               CASE WHEN total_allocated IS NOT NULL THEN total_allocated
                    ELSE sum(bytes) FILTER (WHERE total_allocated IS NULL) OVER w END AS allocated,
               CASE WHEN total_allocated IS NOT NULL THEN 'trace' ELSE 'cumulative' END AS source,
               lead(ts) OVER w AS next_ts
        FROM (SELECT m.id, m.ts, m.cpu_op_id, m.bytes, m.total_allocated, m.total_reserved, d.k
              FROM memory_events AS m   -- the events scanned once (not at all when every device
              CROSS JOIN dev AS d       -- is bucketed: the constant test first)
              WHERE (SELECT min(nb) FROM dev) = 0
                AND d.nb = 0
                AND d.trace_id = m.trace_id AND d.device_type IS m.device_type
                AND d.device_id IS m.device_id)
        WINDOW w AS (PARTITION BY k ORDER BY ts, id ROWS UNBOUNDED PRECEDING)) AS e
  JOIN dev AS d ON d.k = e.k
  UNION ALL
  -- One row per non-empty bucket.
  SELECT
    d.trace_id, d.device_type, d.device_id,
    d.t0 + (m.key - d.k * d.nb) * (d.t1 - d.t0) / d.nb,
    d.t0 + (m.key - d.k * d.nb + 1) * (d.t1 - d.t0) / d.nb,
    m.events, m.bytes, l.allocated, m.allocated_max, l.total_reserved, m.reserved_max,
    f.cpu_op_id, m.source, m.key
  FROM per_bucket AS m
  JOIN dev AS d ON d.k = m.k          -- (by the device number: a lookup, not a loop over devices)
  JOIN last AS l ON l.key = m.key
  LEFT JOIN first_max AS f ON f.key = m.key
)
-- A device's rows are all per event or all per bucket.
SELECT r.trace_id, r.device_type, r.device_id, r.ts, r.end_ts,
       r.events, r.bytes, r.allocated, r.allocated_max, r.reserved, r.reserved_max,
       op.name AS op_name, r.source
FROM rows AS r
LEFT JOIN events AS op ON op.id = r.op_id
ORDER BY r.trace_id, r.device_type, r.device_id, r.ts, r.sort_id;
