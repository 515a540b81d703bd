-- partial: kernel_summary
-- The partition's trace's kernels in scope as kernel_summary counts them: per name number, its name,
-- class, kernels (n), summed, least and largest duration; per name number and distinct duration dur,
-- its kernels (n); and the trace's GPU busy time (busy_ns). The combining query adds them by name
-- text over the traces and computes the statistics as the query does (name numbers are the
-- partition's own: they only join a trace's counts to its names). Both in the order of the index
-- op_kernel_links_kernel_dur: no sort.
WITH kern AS NOT MATERIALIZED (       -- the timed kernels in scope (device as in gpu_ops: args, else
  SELECT l.name_id AS nid, l.gpu_dur AS dur   -- the pid)
  FROM op_kernel_links AS l
  WHERE l.gpu_kind = 'kernel' AND l.gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR l.trace_id = :trace_id)
    AND (:device IS NULL OR l.device = :device)
),
per_trace AS MATERIALIZED (            -- per trace in scope: first GPU op start, last end (kernels,
  SELECT t.id AS trace_id, min(o.device) AS dmin, max(o.device) AS dmax,  -- memcpys, memsets)
         count(o.device) AS with_device, count(*) AS ops, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts) AS span
  FROM traces AS t                    -- (traces outermost, each one's ops read by their id ranges in
  CROSS JOIN event_ranges AS r ON r.trace_id = t.id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id  -- event_ranges:
  WHERE o.gpu_dur IS NOT NULL                                                          -- no sort)
    AND (:trace_id IS NULL OR t.id = :trace_id)
    AND (:device IS NULL OR o.device = :device)
  GROUP BY t.id
),
span AS (                             -- ... per (trace, device): grouped by device only in the traces
  SELECT trace_id, dmin AS device, span  -- with several
  FROM per_trace
  WHERE with_device = 0 OR (with_device = ops AND dmin = dmax)
  UNION ALL
  SELECT p.trace_id, o.device, max(o.gpu_ts + o.gpu_dur) - min(o.gpu_ts)
  FROM per_trace AS p
  CROSS JOIN event_ranges AS r ON r.trace_id = p.trace_id AND r.kind IN ('kernel', 'memcpy', 'memset')
  CROSS JOIN op_kernel_links AS o ON o.gpu_event_id BETWEEN r.first_id AND r.last_id
  WHERE NOT (p.with_device = 0 OR (p.with_device = p.ops AND p.dmin = p.dmax))
    AND o.gpu_dur IS NOT NULL AND (:device IS NULL OR o.device = :device)
  GROUP BY p.trace_id, o.device
),
busy AS (                             -- busy = span - idle gaps (idle_gaps covers exactly that span)
  SELECT sum(s.span - coalesce((SELECT sum(g.dur) FROM idle_gaps AS g
                                WHERE g.trace_id = s.trace_id AND g.device IS s.device), 0)) AS busy_ns
  FROM span AS s
)
SELECT 1 AS trace_id, k.nid, g.name, c.class, NULL AS dur, k.n, k.total_ns, k.min_ns, k.max_ns,
       NULL AS busy_ns
FROM (SELECT nid, count(*) AS n, sum(dur) AS total_ns, min(dur) AS min_ns, max(dur) AS max_ns
        FROM kern GROUP BY nid) AS k
JOIN gpu_op_names AS g ON g.id = k.nid
JOIN gpu_op_classes AS c ON c.name_id = k.nid
UNION ALL
SELECT 1, nid, NULL, NULL, dur, count(*), NULL, NULL, NULL, NULL
FROM kern
GROUP BY nid, dur
UNION ALL
SELECT 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, busy_ns
FROM busy;
