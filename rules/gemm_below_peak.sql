-- title: GEMMs far below the device's peak
-- detects: GEMM, convolution and attention shapes (bundled query gemm_flops, per shape, float32
--   compared with the TF32 tensor-core peak: tf_peak 1) that reach less than :max_pct % of the
--   device's published peak (device_peaks), e.g. fp32 matmuls on a device with TF32/bf16 tensor
--   cores, or shapes too small or badly aligned to fill it.
-- evidence: the three shapes with the most time lost (op, Input Dims, % of peak); gemm_flops lists
--   every shape.
-- advice: Use the tensor cores: torch.set_float32_matmul_precision('high') (TF32) or bf16 autocast;
--   make dimensions multiples of 8 (16 for fp8), batch small GEMMs (bmm, grouped GEMM), or
--   torch.compile(mode='max-autotune').
-- time lost: per shape, gpu_time x (1 - pct_peak / :target_pct): the time saved had it reached
--   :target_pct % of peak (a rate large GEMMs reach with cuBLAS), summed over the shapes below
--   :max_pct %.
-- anchor: TraceLens GEMM roofline (% of peak); TensorBoard plugin Tensor Cores recommendation.
-- uses: gemm_flops group=shape tf_peak=1 limit=-1
-- param :max_pct 30 — a shape below this % of peak is reported
-- param :target_pct 60 — the % of peak the estimate assumes a fixed shape reaches
-- param :min_share 0.02 — report a trace when the time lost is at least this share of its GPU span
WITH s AS (
  SELECT g.*, g.gpu_time * (1.0 - g.pct_peak / :target_pct) AS lost
  FROM q_gemm_flops AS g
  WHERE g.pct_peak IS NOT NULL AND g.gpu_time > 0 AND g.pct_peak < :max_pct
),
per_trace AS (
  SELECT trace_id, count(*) AS shapes, CAST(sum(lost) AS INTEGER) AS lost_ns, sum(gpu_time) AS gpu_time,
         sum(CASE WHEN dtype = 'fp32' THEN gpu_time ELSE 0 END) AS fp32_time,
         100.0 * sum(gpu_time * pct_peak / 100.0) / sum(gpu_time) AS pct, group_concat(DISTINCT device) AS devices
  FROM s GROUP BY trace_id
),
worst AS (
  SELECT trace_id, op_name, input_dims, pct_peak, row_number() OVER (PARTITION BY trace_id ORDER BY lost DESC) AS rn
  FROM s
)
SELECT
  p.trace_id,
  'gemm_below_peak' AS rule,
  CASE WHEN p.lost_ns >= a.high_ns THEN 'high' WHEN p.lost_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  p.lost_ns AS time_lost_ns,
  printf('%d GEMM shape%s take%s %.3f ms at %.1f %% of the peak of %s%s',
         p.shapes, CASE WHEN p.shapes = 1 THEN '' ELSE 's' END, CASE WHEN p.shapes = 1 THEN 's' ELSE '' END, p.gpu_time / 1e6, p.pct, p.devices,
         CASE WHEN p.fp32_time > 0 THEN printf(' (%.3f ms of it float32)', p.fp32_time / 1e6) ELSE '' END) AS title,
  printf('gemm_flops (trace %d, -p tf_peak=1): %s', p.trace_id,
         (SELECT group_concat(printf('%s %s at %.2f %%', w.op_name, w.input_dims, w.pct_peak), '; ')
          FROM (SELECT * FROM worst AS w WHERE w.trace_id = p.trace_id AND w.rn <= 3 ORDER BY w.rn) AS w))
    AS evidence,
  CASE WHEN p.fp32_time > 0
       THEN 'Float32 GEMMs leave the tensor cores idle: torch.set_float32_matmul_precision(''high'') (TF32) or '
            || 'bf16 autocast. '
       ELSE '' END
  || 'Make dimensions multiples of 8, batch small GEMMs (bmm, grouped GEMM) or try '
  || 'torch.compile(mode=''max-autotune'').' AS advice
FROM per_trace AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.lost_ns >= :min_share * a.span_ns
