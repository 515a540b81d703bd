-- name: idle_breakdown
-- description: GPU idle time (idle_gaps) per device broken down three ways: by cause (host / device / unknown), by the host CPU op blamed (what the launching thread was running when the gap began), and as a histogram of gap lengths.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :min_dur 0 (number) — ignore gaps shorter than this many ns
-- param :thresholds 1000,10000,100000,1000000 — histogram bucket edges in ns, comma-separated: buckets [0, e1), [e1, e2), ..., [last, inf)
-- param :by NULL {cause|host_op|length} — only this breakdown: 'cause', 'host_op' or 'length'; all three when NULL
-- param :top_ops 20 (integer) — host_op rows per device: the ops with the most idle; the rest are folded into '(other ops)'
--
-- One row per (trace, device, dimension, bucket):
--   dimension 'cause'    bucket = idle_gaps.cause: 'host' (the next op's launch started after the gap
--                        began: the CPU was late), 'device' (already launched: dependency or launch
--                        latency), 'unknown' (no launch found)
--             'host_op'  bucket = name of idle_gaps.host_event_id, the innermost CPU op running on
--                        the launching thread when the gap began; '(none)' when it ran no op (or
--                        the launch is unknown); beyond the :top_ops largest, '(other ops)'
--             'length'   bucket = '[lo, hi)' in ns; every bucket is listed, empty ones with 0 gaps
--   gaps, idle_ns, avg_gap_ns (integer), max_gap_ns
--   pct_of_idle   idle_ns / all idle of the device (gaps >= :min_dur) x 100
--   pct_of_span   idle_ns / (last GPU op end - first GPU op start on the device) x 100
-- Idle is what idle_gaps says: no kernel, memcpy or memset on any stream of the device, inside
-- [first op start, last op end]; see docs/schema.md.
WITH gaps AS NOT MATERIALIZED (       -- the gaps in scope (idle_gaps is a small indexed table: read it
  SELECT g.trace_id, g.device, g.dur, g.cause, g.host_event_id  -- where needed, not copied)
  FROM idle_gaps AS g
  WHERE (:trace_id IS NULL OR g.trace_id = :trace_id)
    AND g.dur >= coalesce(:min_dur, 0)
),
base AS MATERIALIZED (                -- per host op: one pass over the gaps in the order of the
  SELECT trace_id, device, host_event_id,  -- (trace_id, device, host_event_id, cause, dur) index (no
         count(*) AS gaps, sum(dur) AS idle_ns, max(dur) AS max_gap_ns  -- sort; host op events are
  FROM gaps                           -- integers: their names are looked up after)
  GROUP BY trace_id, device, host_event_id
),
span AS MATERIALIZED (                -- the device's span, and its idle total (for the shares)
  SELECT s.trace_id, s.device, s.span,
         (SELECT sum(b.idle_ns) FROM base AS b WHERE b.trace_id = s.trace_id AND b.device IS s.device) AS idle
  FROM (SELECT trace_id, device, max(gpu_ts + gpu_dur) - min(gpu_ts) AS span
        FROM op_kernel_links           -- one row per GPU op: its (trace_id, device, gpu_ts, gpu_dur,
        WHERE gpu_dur IS NOT NULL AND (:trace_id IS NULL OR trace_id = :trace_id)  -- ...) index,
        GROUP BY trace_id, device) AS s  -- read in order (no sort, no names)
),
edges AS MATERIALIZED (               -- the histogram edges, positive and distinct (parsed once)
  SELECT DISTINCT CAST(value AS INTEGER) AS edge
  FROM json_each('[' || coalesce(:thresholds, '1000,10000,100000,1000000') || ']')
  WHERE CAST(value AS INTEGER) > 0
),
buckets AS MATERIALIZED (             -- [lo, hi), hi NULL for the last (open) bucket
  SELECT coalesce((SELECT max(e2.edge) FROM edges AS e2 WHERE e2.edge < e.edge), 0) AS lo, e.edge AS hi
  FROM edges AS e
  UNION ALL
  SELECT coalesce(max(edge), 0), NULL FROM edges
),
by_length AS MATERIALIZED (           -- per device and length bucket: a range of the (trace_id,
  SELECT s.trace_id, s.device, b.lo, b.hi,  -- device, dur) index; [gaps, idle_ns, max_gap_ns]
         (SELECT json_array(count(*), sum(g.dur), max(g.dur)) FROM idle_gaps AS g
           WHERE g.trace_id = s.trace_id AND g.device IS s.device
             AND g.dur >= max(b.lo, coalesce(:min_dur, 0))
             AND g.dur < coalesce(b.hi, 9223372036854775807)) AS l
  FROM span AS s
  CROSS JOIN buckets AS b
  WHERE :by IS NULL OR :by = 'length'
),
rows AS (
  SELECT trace_id, device, 1 AS dim_order, 'cause' AS dimension, cause AS bucket, 0 AS lo,
         count(*) AS gaps, sum(dur) AS idle_ns, max(dur) AS max_gap_ns
  FROM gaps                           -- (in the order of the (trace_id, device, cause, ts, dur) index)
  WHERE :by IS NULL OR :by = 'cause'
  GROUP BY trace_id, device, cause
  UNION ALL
  SELECT trace_id, device, 2, 'host_op', CASE WHEN rn <= coalesce(:top_ops, 20) THEN host_op ELSE '(other ops)' END, 0,
         sum(gaps), sum(idle_ns), max(max_gap_ns)
  FROM (SELECT trace_id, device, host_op, sum(gaps) AS gaps, sum(idle_ns) AS idle_ns, max(max_gap_ns) AS max_gap_ns,
               row_number() OVER (PARTITION BY trace_id, device ORDER BY sum(idle_ns) DESC, host_op) AS rn
        FROM (SELECT b.trace_id, b.device, b.gaps, b.idle_ns, b.max_gap_ns, coalesce(h.name, '(none)') AS host_op
              FROM base AS b LEFT JOIN events AS h ON h.id = b.host_event_id
              WHERE :by IS NULL OR :by = 'host_op')
        GROUP BY trace_id, device, host_op)
  GROUP BY trace_id, device, CASE WHEN rn <= coalesce(:top_ops, 20) THEN host_op ELSE '(other ops)' END
  UNION ALL
  SELECT trace_id, device, 3, 'length', '[' || lo || ', ' || coalesce(hi, 'inf') || ')', lo,
         json_extract(l, '$[0]'), coalesce(json_extract(l, '$[1]'), 0), json_extract(l, '$[2]')
  FROM by_length
)
SELECT
  r.trace_id,
  r.device,
  r.dimension,
  r.bucket,
  r.gaps,
  r.idle_ns,
  r.idle_ns / nullif(r.gaps, 0) AS avg_gap_ns,
  r.max_gap_ns,
  round(100.0 * r.idle_ns / nullif(s.idle, 0), 2) AS pct_of_idle,
  round(100.0 * r.idle_ns / nullif(s.span, 0), 2) AS pct_of_span
FROM rows AS r
JOIN span AS s ON s.trace_id = r.trace_id AND s.device IS r.device
ORDER BY r.trace_id, r.device, r.dim_order,
         CASE WHEN r.dimension = 'length' THEN r.lo ELSE -r.idle_ns END, r.bucket;
