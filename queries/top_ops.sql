-- name: top_ops
-- description: CPU operators ranked by the GPU time of the ops they launched (via op_kernels).
-- param :limit 20 (integer) — number of rows
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :outermost 0 {0|1} — 1: charge GPU time to the outermost enclosing op instead of the innermost
WITH charged AS (
  SELECT
    CASE WHEN coalesce(:outermost, 0) THEN top_op_name ELSE op_name END AS op_name,
    CASE WHEN coalesce(:outermost, 0) THEN top_op_event_id ELSE op_event_id END AS op_event_id,
    gpu_dur
  FROM op_kernels
  WHERE :trace_id IS NULL OR trace_id = :trace_id
)
SELECT
  coalesce(op_name, '(no cpu op)') AS op_name,
  count(DISTINCT op_event_id) AS calls,
  count(*) AS gpu_ops,
  sum(gpu_dur) AS gpu_time,
  sum(gpu_dur) / max(count(DISTINCT op_event_id), 1) AS gpu_time_per_call,
  round(100.0 * sum(gpu_dur) / (SELECT sum(gpu_dur) FROM charged), 2) AS pct
FROM charged
GROUP BY op_name
ORDER BY gpu_time DESC, op_name
LIMIT coalesce(:limit, 20);
