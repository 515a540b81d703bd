-- name: worst_devices
-- description: The GPU devices most worth a look, worst first: the straggler ranks the others wait for at their collectives, then the devices with the lowest GPU busy share. tracesql report draws its per-device charts for these.
-- param :limit 16 (integer) — number of devices (-1: every device, ranked)
-- param :min_fraction 0.5 (number) — a straggler starts last at least this fraction of the collectives that ran on two ranks or more
-- param :min_skew_ns 100000 (integer) — ... and the others waited at least this long for it in all (ns)
--
-- The rule (the straggler test is the advisor's rule stragglers, with its defaults):
--   1. the devices of the straggler ranks first: a rank (traces.rank, else the trace id) that is
--      collectives' slowest_rank (the last to start) of at least :min_fraction of the collectives
--      matched across two ranks or more, whose summed start_skew_ns there is at least
--      :min_skew_ns; the largest summed skew first;
--   2. then every other device by GPU busy share (overview's busy_pct), the lowest first (the most
--      idle for its span); ties: the larger idle_ns, then trace id and device;
--   3. a trace without GPU ops (overview's row with device NULL) last.
-- Columns:
--   pick            1, 2, ...: the device's place in the ranking
--   trace_id, rank, device   overview's trace_id, rank and device
--   gpu_span_ns, busy_ns, busy_pct   as overview (busy_pct: busy_ns / gpu_span_ns x 100, 2 decimals)
--   idle_ns         gpu_span_ns - busy_ns: the device's idle_gaps
--   last_at         straggler ranks: the collectives on two ranks or more it started last
--   collectives     straggler ranks: the collectives on two ranks or more
--   straggler_skew_ns   straggler ranks: their summed start skew (the others' wait for it)
--   reason          why it is here: the straggler test's figures, or its GPU busy share
-- How: per device, overview's span and idle time; per collective, the last rank to start, as
-- collectives finds it (latest start; ties: the lowest rank, then trace id).
WITH per_trace AS MATERIALIZED (
  SELECT t.id AS trace_id, min(o.device) AS dmin, max(o.device) AS dmax, count(o.device) AS with_device,
         count(*) AS gpu_ops, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts) AS gpu_span_ns
  FROM traces AS t                    -- (CROSS JOIN: traces outermost, so the GROUP BY needs no sort)
  CROSS JOIN event_ranges AS r ON r.trace_id = t.id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE o.gpu_ts IS NOT NULL AND o.gpu_dur >= 0
  GROUP BY t.id
),
spans AS MATERIALIZED (
  SELECT trace_id, dmin AS device, gpu_ops, gpu_span_ns
  FROM per_trace
  WHERE with_device = 0 OR (with_device = gpu_ops AND dmin = dmax)  -- one device (NULL included)
  UNION ALL
  SELECT p.trace_id, o.device, count(*), max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts)
  FROM per_trace AS p
  CROSS JOIN event_ranges AS r ON r.trace_id = p.trace_id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE NOT (p.with_device = 0 OR (p.with_device = p.gpu_ops AND p.dmin = p.dmax))
    AND o.gpu_ts IS NOT NULL AND o.gpu_dur >= 0
  GROUP BY p.trace_id, o.device
),
idle AS (
  SELECT trace_id, device, sum(dur) AS idle_ns
  FROM idle_gaps
  WHERE dur > 0
  GROUP BY trace_id, device
),
devs AS (                             -- overview's rows: each device with GPU ops, or the trace (device NULL)
  SELECT t.id AS trace_id, t.rank AS trace_rank, s.device, s.gpu_span_ns, i.idle_ns
  FROM traces AS t
  LEFT JOIN spans AS s ON s.trace_id = t.id
  LEFT JOIN idle AS i ON i.trace_id = s.trace_id AND i.device IS s.device
),
ops AS (                              -- the collective ops (view collective_ops)
  SELECT process_group, seq, trace_id, rank, ts FROM collective_ops
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
