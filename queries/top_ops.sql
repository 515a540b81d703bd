-- name: top_ops
-- description: CPU operators ranked by the GPU time of the ops they launched (via op_kernels).
-- param :limit 20 (integer) — number of rows
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :outermost 0 {0|1} — 1: charge GPU time to the outermost enclosing op instead of the innermost
--
-- Each GPU op (op_kernels row) is charged to the innermost CPU op around its launch call (with
-- :outermost 1 the outermost); GPU ops with no CPU op around their launch are '(no cpu op)'. calls:
-- ops charged with at least one GPU op; gpu_ops: their GPU ops; gpu_time: their summed durations
-- (ns); pct: share of the GPU time of all GPU ops. Read from op_gpu_totals (one row per op that
-- launched GPU ops: its name, its outermost op's, and its GPU ops' count and time) and, for GPU ops
-- without a CPU op, op_kernel_links.
WITH per_name AS (
  SELECT op_name, count(*) AS calls, sum(gpu_ops) AS gpu_ops, sum(gpu_time) AS gpu_time
  FROM op_gpu_totals                  -- in the order of its index op_gpu_totals_name: no sort
  WHERE NOT coalesce(:outermost, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY op_name
  UNION ALL
  SELECT top_op_name, count(DISTINCT top_op_event_id), sum(gpu_ops), sum(gpu_time)
  FROM op_gpu_totals
  WHERE coalesce(:outermost, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY top_op_name
  UNION ALL
  SELECT NULL, 0, n, t                -- GPU ops with no CPU op around their launch
  FROM (SELECT count(*) AS n, sum(gpu_dur) AS t
          FROM op_kernel_links
         WHERE op_event_id IS NULL AND (:trace_id IS NULL OR trace_id = :trace_id))
  WHERE n > 0
)
SELECT
  coalesce(op_name, '(no cpu op)') AS op_name,
  sum(calls) AS calls,
  sum(gpu_ops) AS gpu_ops,
  sum(gpu_time) AS gpu_time,
  sum(gpu_time) / max(sum(calls), 1) AS gpu_time_per_call,
  round(100.0 * sum(gpu_time) / (SELECT sum(gpu_time) FROM per_name), 2) AS pct
FROM per_name
GROUP BY op_name
ORDER BY gpu_time DESC, op_name
LIMIT coalesce(:limit, 20);
