-- Cross-check (see README.md): per device, the span of the GPU ops and the idle time of idle_gaps,
-- which temporal_breakdown's span_ns and idle_ns (tracelens) must equal.
SELECT o.trace_id, o.device, max(o.end_ts) - min(o.ts) AS span_ns,
       (SELECT coalesce(sum(g.dur), 0) FROM idle_gaps AS g
         WHERE g.trace_id = o.trace_id AND g.device = o.device) AS idle_ns
FROM gpu_ops AS o
GROUP BY o.trace_id, o.device
ORDER BY o.trace_id, o.device;
