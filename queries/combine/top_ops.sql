-- combine: top_ops
-- The traces' per-op-name counts and GPU time (top_ops.partial.sql) summed by name; time per call
-- and share computed from the integer sums as the query computes them.
SELECT
  coalesce(op_name, '(no cpu op)') AS op_name,
  sum(calls) AS calls,
  sum(gpu_ops) AS gpu_ops,
  sum(gpu_time) AS gpu_time,
  sum(gpu_time) / max(sum(calls), 1) AS gpu_time_per_call,
  round(100.0 * sum(gpu_time) / (SELECT sum(gpu_time) FROM partial), 2) AS pct
FROM partial
GROUP BY op_name
ORDER BY gpu_time DESC, op_name
LIMIT coalesce(:limit, 20);
