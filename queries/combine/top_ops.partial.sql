-- partial: top_ops
-- Per op name of the partition's trace (NULL: GPU ops with no CPU op around their launch): calls,
-- GPU ops and their GPU time, as top_ops counts them (the combining query sums them by name).
WITH per_name AS (
  SELECT op_name, count(*) AS calls, sum(gpu_ops) AS gpu_ops, sum(gpu_time) AS gpu_time
  FROM op_gpu_totals
  WHERE NOT coalesce(:outermost, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY op_name
  UNION ALL
  SELECT top_op_name, count(DISTINCT top_op_event_id), sum(gpu_ops), sum(gpu_time)
  FROM op_gpu_totals
  WHERE coalesce(:outermost, 0) AND (:trace_id IS NULL OR trace_id = :trace_id)
  GROUP BY top_op_name
  UNION ALL
  SELECT NULL, 0, n, t
  FROM (SELECT count(*) AS n, sum(gpu_dur) AS t
          FROM op_kernel_links
         WHERE op_event_id IS NULL AND (:trace_id IS NULL OR trace_id = :trace_id))
  WHERE n > 0
)
SELECT op_name, sum(calls) AS calls, sum(gpu_ops) AS gpu_ops, sum(gpu_time) AS gpu_time
FROM per_name
GROUP BY op_name;
