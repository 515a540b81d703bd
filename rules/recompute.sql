-- title: Activation checkpointing runs forward work again in the backward pass
-- detects: per trace, the forward ops that run a second time inside a backward op (bundled query
--   recompute: ops recorded with grad on, under an autograd node such as
--   CheckpointFunctionBackward), with the modules (or ops) whose recompute costs the most GPU time.
-- evidence: the recomputed calls, CPU ops and GPU ops in all; `tracesql run DB recompute` lists them
--   per module and backward op.
-- advice: Where memory allows, checkpoint fewer layers, or checkpoint selectively: keep the outputs
--   of matmuls and attention and recompute only cheap pointwise ops
--   (torch.utils.checkpoint.create_selective_checkpoint_contexts as context_fn).
-- time lost: the summed duration of the GPU ops the recomputed ops launch (recompute.gpu_ns): what
--   not recomputing would save, paid for with the activation memory checkpointing frees.
-- anchor: none of HTA, TraceLens, nsys; torch.utils.checkpoint.
-- uses: recompute limit=-1
-- param :min_share 0.05 — report a trace when its recompute GPU time is at least this share of its GPU span
WITH per_trace AS (
  SELECT trace_id, sum(gpu_ns) AS gpu_ns, sum(calls) AS calls, sum(ops) AS ops, sum(gpu_ops) AS gpu_ops
  FROM q_recompute
  GROUP BY trace_id
),
ranked AS (
  SELECT trace_id, name, gpu_ns,
         row_number() OVER (PARTITION BY trace_id ORDER BY gpu_ns DESC, cpu_ns DESC, name) AS rn
  FROM q_recompute
)
SELECT
  p.trace_id,
  'recompute' AS rule,
  CASE WHEN p.gpu_ns >= a.high_ns THEN 'high' WHEN p.gpu_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  p.gpu_ns AS time_lost_ns,
  printf('%.3f ms of GPU time recomputing forward work in the backward pass (%.1f %% of the GPU span): %s',
         p.gpu_ns / 1e6, 100.0 * p.gpu_ns / nullif(a.span_ns, 0),
         (SELECT group_concat(printf('%s %.3f ms', r.name, r.gpu_ns / 1e6), ', ')
          FROM (SELECT * FROM ranked AS r WHERE r.trace_id = p.trace_id AND r.rn <= 3 ORDER BY r.rn) AS r))
    AS title,
  printf('recompute: trace %d: %d recomputed calls, %d CPU ops, %d GPU ops; `tracesql run DB recompute -p trace_id=%d`',
         p.trace_id, p.calls, p.ops, p.gpu_ops, p.trace_id) AS evidence,
  'Where memory allows, checkpoint fewer layers, or checkpoint selectively: keep the outputs of matmuls and '
  || 'attention and recompute only cheap pointwise ops (torch.utils.checkpoint.create_selective_checkpoint_contexts '
  || 'as context_fn).' AS advice
FROM per_trace AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.gpu_ns > 0 AND p.gpu_ns >= :min_share * a.span_ns
