-- name: temporal_breakdown
-- description: GPU time split into compute, exposed communication, exposed memcpy/memset, exposed other and idle (ns and % of the span), adding up to the span exactly: TraceLens's GPU timeline per device, or HTA's temporal breakdown per trace (:variant hta).
-- param :trace_id NULL — only this trace (traces.id); all traces when NULL
-- param :variant tracelens — 'tracelens': per (trace, device), other-class ops count as compute; 'hta': per trace with its devices merged, cuda_sync rows with a stream (Stream Sync, Stream Wait Event) counted as busy, other-class ops and syncs reported as exposed_other
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
-- Method: a sweep line. Each op adds +1 to its bucket's counter at its start and -1 at its end; the
-- running sums at each distinct time give the state until the next time.
WITH names AS (                       -- class of each distinct GPU op: view gpu_op_classes
  SELECT name, kind, class FROM gpu_op_classes
),
ops AS (                              -- intervals with their bucket: 1 compute, 2 comm, 3 memory, 4 other
  SELECT o.trace_id,
         CASE WHEN coalesce(:variant, 'tracelens') = 'hta' THEN NULL ELSE o.device END AS device,
         o.gpu_ts AS ts, o.gpu_ts + o.gpu_dur AS end_ts,
         CASE n.class WHEN 'communication' THEN 2 WHEN 'memory' THEN 3
                      WHEN 'compute' THEN 1
                      ELSE CASE WHEN coalesce(:variant, 'tracelens') = 'hta' THEN 4 ELSE 1 END END AS bucket
  FROM op_kernels AS o
  CROSS JOIN names AS n
  WHERE n.name = o.gpu_name AND n.kind = o.gpu_kind
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
  UNION ALL
  SELECT e.trace_id, NULL, e.ts, e.ts + e.dur, 4  -- HTA: rows with a stream arg other than -1 are
  FROM events AS e                                 -- GPU time, which adds cuda_sync rows (Stream
  WHERE coalesce(:variant, 'tracelens') = 'hta'    -- Sync, Stream Wait Event; Event Sync has -1)
    AND e.cat = 'cuda_sync' AND e.dur IS NOT NULL AND e.ts IS NOT NULL AND e.stream <> -1
    AND (:trace_id IS NULL OR e.trace_id = :trace_id)
),
edges AS (                            -- +1 at each start, -1 at each end, in the op's bucket
  SELECT trace_id, device, ts AS t, bucket = 1 AS d1, bucket = 2 AS d2, bucket = 3 AS d3, bucket = 4 AS d4
  FROM ops
  UNION ALL
  SELECT trace_id, device, end_ts, -(bucket = 1), -(bucket = 2), -(bucket = 3), -(bucket = 4)
  FROM ops
),
state AS (                            -- ops of each bucket running in [t, next t): the running sums
  SELECT trace_id, device, t,         -- over all edges up to t, including every edge AT t (peers)
         sum(d1) OVER peers AS n1, sum(d2) OVER peers AS n2,
         sum(d3) OVER peers AS n3, sum(d4) OVER peers AS n4,
         -- next edge's time minus this one's: 0 between edges at the same time, NULL after the last
         lead(t) OVER (PARTITION BY trace_id, device ORDER BY t ROWS UNBOUNDED PRECEDING) - t AS len
  FROM edges
  WINDOW peers AS (PARTITION BY trace_id, device ORDER BY t)  -- RANGE frame: ties count together
),
parts AS (
  SELECT trace_id, device,
         max(t) - min(t) AS span_ns,
         coalesce(sum(CASE WHEN n1 > 0 THEN len END), 0) AS compute_ns,
         coalesce(sum(CASE WHEN n1 = 0 AND n2 > 0 THEN len END), 0) AS exposed_comm_ns,
         coalesce(sum(CASE WHEN n1 = 0 AND n2 = 0 AND n3 > 0 THEN len END), 0) AS exposed_memcpy_ns,
         coalesce(sum(CASE WHEN n1 = 0 AND n2 = 0 AND n3 = 0 AND n4 > 0 THEN len END), 0) AS exposed_other_ns,
         coalesce(sum(CASE WHEN n1 = 0 AND n2 = 0 AND n3 = 0 AND n4 = 0 THEN len END), 0) AS idle_ns
  FROM state
  GROUP BY trace_id, device
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
