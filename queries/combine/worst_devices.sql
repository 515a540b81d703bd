-- combine: worst_devices
-- Every partition's devices and collective ops (worst_devices.partial.sql), then the query's own
-- cross-rank step: the collectives matched by (process_group, seq) across the partitions' traces,
-- their last rank to start, the straggler test and the ranking.
WITH devs AS (
  SELECT trace_id, trace_rank, device, gpu_span_ns, idle_ns FROM partial WHERE kind = 'device'
),
ops AS (
  SELECT process_group, seq, trace_id, coalesce(trace_rank, trace_id) AS rank, ts FROM partial WHERE kind = 'op'
),
ranked AS (                           -- each collective's last rank to start, as collectives finds it
  SELECT rank,
         row_number() OVER (PARTITION BY process_group, seq ORDER BY ts DESC, rank, trace_id) AS last_arrival,
         count(*) OVER c AS ranks,
         max(ts) OVER c - min(ts) OVER c AS skew_ns
  FROM ops
  WINDOW c AS (PARTITION BY process_group, seq)
),
multi AS (                            -- the collectives on two ranks or more
  SELECT rank, skew_ns FROM ranked WHERE last_arrival = 1 AND ranks >= 2
),
stragglers AS (
  SELECT rank, count(*) AS last_at, (SELECT count(*) FROM multi) AS collectives, sum(skew_ns) AS skew_ns
  FROM multi
  GROUP BY rank
  HAVING sum(skew_ns) >= coalesce(:min_skew_ns, 100000)
     AND count(*) >= coalesce(:min_fraction, 0.5) * (SELECT count(*) FROM multi)
),
ranking AS (
  SELECT d.trace_id, d.trace_rank AS rank, d.device, d.gpu_span_ns,
         d.gpu_span_ns - coalesce(d.idle_ns, 0) AS busy_ns,
         CASE WHEN d.gpu_span_ns > 0
              THEN round(100.0 * (d.gpu_span_ns - coalesce(d.idle_ns, 0)) / d.gpu_span_ns, 2) END AS busy_pct,
         CASE WHEN d.gpu_span_ns IS NOT NULL THEN coalesce(d.idle_ns, 0) END AS idle_ns,
         s.last_at, s.collectives, s.skew_ns AS straggler_skew_ns
  FROM devs AS d
  LEFT JOIN stragglers AS s ON s.rank = coalesce(d.trace_rank, d.trace_id)
)
SELECT
  row_number() OVER (ORDER BY straggler_skew_ns IS NULL, straggler_skew_ns DESC, busy_pct IS NULL, busy_pct,
                              idle_ns DESC, trace_id, device) AS pick,
  trace_id, rank, device, gpu_span_ns, busy_ns, busy_pct, idle_ns, last_at, collectives, straggler_skew_ns,
  CASE WHEN straggler_skew_ns IS NOT NULL
       THEN printf('straggler: starts %d of %d collectives last; the others wait %.3f ms for it',
                   last_at, collectives, straggler_skew_ns / 1e6)
       WHEN busy_pct IS NOT NULL
       THEN printf('GPU busy %.2f %% of its span, idle %.3f ms', busy_pct, idle_ns / 1e6)
       ELSE 'no GPU ops' END AS reason
FROM ranking
ORDER BY pick
LIMIT coalesce(:limit, 16);
