-- name: temporal_breakdown
-- description: GPU time split into compute, exposed communication, exposed memcpy/memset, exposed other and idle (ns and % of the span), adding up to the span exactly: TraceLens's GPU timeline per device, or HTA's temporal breakdown per trace (:variant hta).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :variant tracelens {tracelens|hta} — 'tracelens': per (trace, device), other-class ops count as compute; 'hta': per trace with its devices merged, cuda_sync rows with a stream (Stream Sync, Stream Wait Event) counted as busy, other-class ops and syncs reported as exposed_other
--
-- Span: first GPU op start to last GPU op end (per device; per trace for hta). Every instant of the
-- span goes to exactly one bucket, in this order of precedence:
--   compute         a compute-class op runs (class from kernel_class_rules)
--   exposed_comm    no compute, a communication op runs      (TraceLens: |comm - comp|)
--   exposed_memcpy  neither, a memory-class op runs (memcpy, memset, ROCm copy kernels)
--                   (TraceLens: |memcpy - comp - comm|)
--   exposed_other   none of those, an op of another class runs (hta only: syncs, unclassified ops;
--                   tracelens counts them as compute, as TraceLens does with every non-comm,
--                   non-memcpy kernel)
--   idle            nothing runs
-- so compute + exposed_comm + exposed_memcpy + exposed_other + idle = span, to the nanosecond.
-- HTA's own columns map as: compute_time = compute_ns, non_compute_time = exposed_comm_ns +
-- exposed_memcpy_ns + exposed_other_ns, idle_time = idle_ns, kernel_time = span_ns.
-- Differences from the tools (see docs/queries.md): TraceLens counts memsets as computation (the
-- default rules make them memory), and by default only GPU ops linked to a CPU op; HTA works on
-- integer-microsecond times and drops the last ProfilerStep.
-- Method: the buckets nest: compute, compute + comm, compute + comm + memory, all ops. Each such set
-- of ops covers a union of intervals, and the buckets are the differences of the four lengths.
-- tracelens (per device): the lengths are sums over gpu_segments, the device's busy time cut into
-- pieces during which the same op names run: a piece counts for a set when one of its names is in
-- it. hta (devices merged, plus cuda_sync rows): one pass over the ops in start order, each op
-- adding the part of it past the furthest end of the earlier ops of the set. An op with a negative
-- duration occupies no time.
WITH names AS MATERIALIZED (          -- bucket of each distinct GPU op, from its class (view gpu_op_classes)
  SELECT name_id,
         CASE class WHEN 'communication' THEN 2 WHEN 'memory' THEN 3
                    WHEN 'compute' THEN 1
                    ELSE CASE WHEN coalesce(:variant, 'tracelens') = 'hta' THEN 4 ELSE 1 END END AS bucket
  FROM gpu_op_classes
  WHERE name IS NOT NULL
),
tl_span AS (                          -- tracelens: per device, first start to last end of its ops
  SELECT o.trace_id, o.device,
         max(max(o.gpu_ts), max(o.gpu_ts + o.gpu_dur)) - min(min(o.gpu_ts), min(o.gpu_ts + o.gpu_dur)) AS span_ns
  FROM op_kernel_links AS o           -- GPU ops, by name id: no names read; their (trace_id, device,
  CROSS JOIN names AS n ON n.name_id = o.name_id  -- gpu_ts, gpu_dur, name_id) index read in order
  WHERE coalesce(:variant, 'tracelens') <> 'hta'  -- (no sort), names looked up
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  GROUP BY o.trace_id, o.device
),
tl_combos AS MATERIALIZED (           -- tracelens: time per device and combination of names that run
  SELECT trace_id, device, name_ids, sum(dur) AS dur  -- together (gpu_segments, read in the order of
  FROM gpu_segments                   -- its (trace_id, device, name_ids, ts, dur) index: no sort)
  WHERE coalesce(:variant, 'tracelens') <> 'hta' AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY trace_id, device, name_ids
),
tl_sets AS MATERIALIZED (             -- tracelens: the lowest bucket among each combination's names
  SELECT s.name_ids, min(n.bucket) AS bucket
  FROM (SELECT DISTINCT name_ids FROM tl_combos) AS s, json_each('[' || s.name_ids || ']') AS j
  JOIN names AS n ON n.name_id = CAST(j.value AS INTEGER)
  GROUP BY s.name_ids
),
tl_union AS (                         -- tracelens: length of each set's union, per device
  SELECT g.trace_id, g.device,
         sum(CASE WHEN s.bucket = 1 THEN g.dur ELSE 0 END) AS u1,
         sum(CASE WHEN s.bucket <= 2 THEN g.dur ELSE 0 END) AS u2,
         sum(CASE WHEN s.bucket <= 3 THEN g.dur ELSE 0 END) AS u3,
         sum(g.dur) AS u4
  FROM tl_combos AS g
  CROSS JOIN tl_sets AS s ON s.name_ids = g.name_ids
  GROUP BY g.trace_id, g.device
),
ops AS (                              -- hta: all GPU ops of the trace, devices merged, with the
  SELECT o.trace_id, NULL AS device,  -- cuda_sync rows; buckets 1 compute, 2 comm, 3 memory, 4 other
         o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts,
         n.bucket
  FROM op_kernel_links AS o
  CROSS JOIN names AS n ON n.name_id = o.name_id  -- (the ops scanned once, names looked up)
  WHERE coalesce(:variant, 'tracelens') = 'hta'
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  UNION ALL
  SELECT e.trace_id, NULL, e.ts, e.ts + e.dur, 4  -- HTA: rows with a stream arg other than -1 are
  FROM event_ranges AS r                           -- GPU time, which adds cuda_sync rows (Stream
  JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id   -- Sync, Stream Wait Event; Event Sync
  WHERE coalesce(:variant, 'tracelens') = 'hta'    -- has -1), of kind 'other' (a range scan)
    AND r.kind = 'other' AND (:trace_id IS NULL OR r.trace_id = :trace_id)
    AND e.cat = 'cuda_sync' AND e.dur IS NOT NULL AND e.ts IS NOT NULL AND e.stream <> -1
),
run AS (                              -- hta: per op, the furthest end of the earlier ops of each set
  SELECT trace_id, device, ts, end_ts, bucket,
         max(CASE WHEN bucket = 1 THEN end_ts END) OVER w AS m1,
         max(CASE WHEN bucket <= 2 THEN end_ts END) OVER w AS m2,
         max(CASE WHEN bucket <= 3 THEN end_ts END) OVER w AS m3,
         max(end_ts) OVER w AS m4
  FROM ops
  WINDOW w AS (PARTITION BY trace_id, device ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
sets AS (                             -- length of each set's union, and the span
  SELECT p.trace_id, p.device, p.span_ns,
         coalesce(u.u1, 0) AS u1, coalesce(u.u2, 0) AS u2, coalesce(u.u3, 0) AS u3, coalesce(u.u4, 0) AS u4
  FROM tl_span AS p
  LEFT JOIN tl_union AS u ON u.trace_id = p.trace_id AND u.device IS p.device
  UNION ALL
  SELECT trace_id, device,
         max(max(ts), max(end_ts)) - min(min(ts), min(end_ts)) AS span_ns,
         coalesce(sum(CASE WHEN bucket = 1 THEN max(end_ts - max(ts, coalesce(m1, ts)), 0) END), 0) AS u1,
         coalesce(sum(CASE WHEN bucket <= 2 THEN max(end_ts - max(ts, coalesce(m2, ts)), 0) END), 0) AS u2,
         coalesce(sum(CASE WHEN bucket <= 3 THEN max(end_ts - max(ts, coalesce(m3, ts)), 0) END), 0) AS u3,
         coalesce(sum(max(end_ts - max(ts, coalesce(m4, ts)), 0)), 0) AS u4
  FROM run
  GROUP BY trace_id, device
),
parts AS (
  SELECT trace_id, device, span_ns,
         u1 AS compute_ns,
         u2 - u1 AS exposed_comm_ns,
         u3 - u2 AS exposed_memcpy_ns,
         u4 - u3 AS exposed_other_ns,
         span_ns - u4 AS idle_ns
  FROM sets
)
SELECT
  p.trace_id,
  t.rank,
  p.device,                           -- NULL for the hta variant (all devices of the trace)
  CASE WHEN :variant = 'hta' THEN 'hta' ELSE 'tracelens' END AS variant,  -- anything else: tracelens
  p.span_ns,
  p.compute_ns,
  p.exposed_comm_ns,
  p.exposed_memcpy_ns,
  p.exposed_other_ns,
  p.idle_ns,
  p.span_ns - p.idle_ns AS busy_ns,
  round(100.0 * p.compute_ns / nullif(p.span_ns, 0), 2) AS compute_pct,
  round(100.0 * p.exposed_comm_ns / nullif(p.span_ns, 0), 2) AS exposed_comm_pct,
  round(100.0 * p.exposed_memcpy_ns / nullif(p.span_ns, 0), 2) AS exposed_memcpy_pct,
  round(100.0 * p.exposed_other_ns / nullif(p.span_ns, 0), 2) AS exposed_other_pct,
  round(100.0 * p.idle_ns / nullif(p.span_ns, 0), 2) AS idle_pct
FROM parts AS p
JOIN traces AS t ON t.id = p.trace_id
ORDER BY p.trace_id, p.device;
