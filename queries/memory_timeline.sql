-- name: memory_timeline
-- description: Allocated and reserved memory over time per device, from the allocator's [memory] events (profile_memory): one row per event, or per time bucket with the maximum reached in it and the op that reached it.
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :device NULL — only this device_id (-1 = CPU, 0.. = GPUs); every device when NULL
-- param :buckets 0 — 0: one row per allocator event; N > 0: each device's span cut into N equal time buckets (empty buckets left out)
--
-- A device is (device_type, device_id) of memory_events: device_type 0 CPU, 1 CUDA (6 seen on
-- ROCm); device_id -1 for the CPU.
--   allocated  'Total Allocated' after the event (bytes). Traces before ~PyTorch 1.10 have no
--              totals: then the running sum of 'Bytes' from the first event of the trace
--              (source = 'cumulative'), which leaves out whatever was allocated before profiling
--              started, so it is relative and may go negative.
--   reserved   'Total Reserved' after the event (the caching allocator's segments); NULL when the
--              trace lacks it
-- Per event (:buckets 0): ts = the event, end_ts = the next event on the device (the values hold
-- until then; NULL at the last), events = 1, bytes = the event's Bytes (negative: a free).
-- Per bucket: [ts, end_ts) the bucket, events in it, bytes = their sum, allocated / reserved =
-- after the bucket's last event, *_max = the largest value in the bucket.
-- op_name: the innermost CPU op running when the event (per bucket: the one reaching
-- allocated_max first) happened (memory_events.cpu_op_id); NULL outside any op.
WITH
mem AS MATERIALIZED (                  -- the allocator events (view memory_events)
  SELECT id, trace_id, ts, cpu_op_id, step, bytes, total_allocated, total_reserved, device_type, device_id
  FROM memory_events
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
-- allocated: Total Allocated, or (traces without totals) the running sum of Bytes per device.
alloc AS MATERIALIZED (
  SELECT m.*, m.total_allocated AS allocated, 'trace' AS source
  FROM mem AS m WHERE m.total_allocated IS NOT NULL
  UNION ALL
  SELECT m.*,
         sum(m.bytes) OVER (PARTITION BY m.trace_id, m.device_type, m.device_id
                            ORDER BY m.ts, m.id ROWS UNBOUNDED PRECEDING),
         'cumulative'
  FROM mem AS m WHERE m.total_allocated IS NULL
),
span AS (
  SELECT trace_id, device_type, device_id, min(ts) AS t0, max(ts) AS t1
  FROM alloc
  WHERE coalesce(:buckets, 0) > 0 AND (:device IS NULL OR device_id = :device)
  GROUP BY trace_id, device_type, device_id
),
bucketed AS (
  -- Bucket index 0..N-1 (the last event falls in bucket N-1).
  SELECT
    a.*, s.t0, s.t1,
    min(coalesce(:buckets, 0) - 1,
        CASE WHEN s.t1 > s.t0 THEN (a.ts - s.t0) * coalesce(:buckets, 0) / (s.t1 - s.t0) ELSE 0 END)
      AS bucket
  FROM alloc AS a
  JOIN span AS s
    ON s.trace_id = a.trace_id AND s.device_type IS a.device_type AND s.device_id IS a.device_id
),
ranked AS (
  -- One sort per bucket: the last values and the bucket's maximum.
  SELECT
    b.*,
    last_value(allocated) OVER w AS alloc_end,
    last_value(total_reserved) OVER w AS reserved_end,
    max(allocated) OVER w AS bucket_max
  FROM bucketed AS b
  WINDOW w AS (PARTITION BY trace_id, device_type, device_id, bucket ORDER BY ts, id
               ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
),
per_bucket AS (
  SELECT
    trace_id, device_type, device_id, bucket, t0, t1,
    count(*) AS events,
    sum(bytes) AS bytes,
    max(alloc_end) AS allocated,
    max(allocated) AS allocated_max,
    max(reserved_end) AS reserved,
    max(total_reserved) AS reserved_max,
    -- the earliest event at the bucket's maximum: zero-padded 'ts-id', the id cut out again
    CAST(substr(min(CASE WHEN allocated = bucket_max THEN printf('%020d-%020d', ts, id) END), 22)
         AS INTEGER) AS max_event_id,
    min(source) AS source
  FROM ranked
  GROUP BY trace_id, device_type, device_id, bucket
)
-- One row per event.
SELECT
  e.trace_id, e.device_type, e.device_id, e.ts,
  lead(e.ts) OVER (PARTITION BY e.trace_id, e.device_type, e.device_id ORDER BY e.ts, e.id)
    AS end_ts,
  1 AS events, e.bytes,
  e.allocated, e.allocated AS allocated_max, e.total_reserved AS reserved,
  e.total_reserved AS reserved_max,
  op.name AS op_name, e.source
FROM alloc AS e
LEFT JOIN events AS op ON op.id = e.cpu_op_id
WHERE coalesce(:buckets, 0) <= 0 AND (:device IS NULL OR e.device_id = :device)
UNION ALL
-- One row per non-empty bucket.
SELECT
  b.trace_id, b.device_type, b.device_id,
  b.t0 + b.bucket * (b.t1 - b.t0) / coalesce(:buckets, 0) AS ts,
  b.t0 + (b.bucket + 1) * (b.t1 - b.t0) / coalesce(:buckets, 0) AS end_ts,
  b.events, b.bytes, b.allocated, b.allocated_max, b.reserved, b.reserved_max,
  op.name AS op_name, b.source
FROM per_bucket AS b
LEFT JOIN events AS me ON me.id = b.max_event_id
LEFT JOIN events AS op ON op.id = me.cpu_op_id
ORDER BY 1, 2, 3, 4;
