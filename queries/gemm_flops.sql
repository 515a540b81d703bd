-- name: gemm_flops
-- description: FLOPs and bytes of GEMMs, convolutions and scaled-dot-product attention from their recorded shapes (TraceLens formulas), with the GPU time they launched: achieved TFLOP/s, arithmetic intensity and % of the device's published peak (device_peaks), per shape or per op.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :group shape {shape|op} — 'shape': one row per (op, Input Dims, Input type); 'op': one row per op name
-- param :tf_peak 0 {0|1} — 1: compare float32 ops with the TF32 tensor-core peak instead of the plain FP32 peak
-- param :limit 50 (integer) — number of rows
--
-- Needs record_shapes (args 'Input Dims' / 2020 'Input dims', 'Input type', 'Concrete Inputs').
-- Which ops: every CPU op below that has no other one of them inside it. aten::linear, aten::matmul,
-- aten::conv2d, aten::scaled_dot_product_attention ... are wrappers: where they call aten::addmm,
-- aten::mm, aten::cudnn_convolution, aten::_flash_attention_forward ... only the innermost op is
-- counted, so nothing is counted twice; a wrapper counts when nothing modelled runs inside it.
-- GPU time: summed duration of the GPU ops whose launch call lies inside the op on its thread
-- (the op's whole subtree: op_kernels rows with launch_thread_id = the op's thread and launch_ts in
-- [op start, op end]). TraceLens's perf metrics use the union of the GPU ops of the op's whole
-- subtree (only its ops summary uses the op's direct kernels); HTA kernel_dur_sum is a sum like
-- this one. Ops that launched nothing have gpu_time 0 and NULL rates. TraceLens links kernels to ops
-- only through ac2g flows, so it loses GPU ops without a flow start (ROCm hipMemsetAsync); here the
-- runtime call's correlation links them, the flow when there is none (op_kernel_links).
-- tflops is total FLOPs / total GPU time; TraceLens's TFLOPS/s_mean is a mean of per-call ratios.
-- Peaks: device_peaks' datasheet figures (MI300X bf16 1307.4, not TraceLens's measured "max
-- achievable" 708; see docs/queries.md, device_peaks).
-- FLOPs (multiply-add = 2) and bytes (each input read once, output written once; bpe = bytes per
-- element of the main input's 'Input type': 2 BFloat16/Half, 4 float/int, 8 double/long, 1 fp8/int8),
-- computed by the view op_costs (the models: table op_models):
--   mm [M,K]x[K,N]            2MNK                    (MK + KN + MN) bpe
--   addmm C,[M,K],[K,N]       2MNK + MN               (MK + KN + MN + N) bpe    (bias taken as 1xN)
--   bmm [B,M,K]x[B,K,N]       2BMNK                   B(MK + KN + MN) bpe
--   baddbmm C,A,B             B(2MNK + MN)            B(MK + KN + MN + N) bpe
--   linear X[...,K],W[N,K],b  2MNK (+ MN with bias)   (MK + NK (+ N) + MN) bpe, M = numel(X)/K
--   matmul A,B                2 K numel(out)          (numel A + numel B + numel out) bpe; batch
--                             dims equal or one side 2-D (no other broadcasting)
--   convolution x,w           2 prod(w[1:]) prod(out) (+ prod(out) with bias); transposed:
--                             2 prod(w[1:]) prod(x); out from stride/padding/dilation in
--                             'Concrete Inputs' (NULL FLOPs when the trace lacks them)
--                             bytes (x + w (+ C_out) + out) bpe
--   convolution_backward      2 prod(w[1:]) prod(grad_out) per gradient in output_mask (input,
--                             weight; default both) + prod(grad_out) for the bias gradient
--   SDPA forward q,k,v        B Hq (2 Nq Nkv d_qk + 2 Nq Nkv d_v), /2 when causal;
--                             bytes (q + k + v + B Nq Hq d_v) bpe
--   SDPA backward             B Hq Nq Nkv (6 d_qk + 4 d_v), /2 when causal (TraceLens' GQA
--                             reduction terms left out); bytes (2(q + k + v) + dO) bpe
-- Columns: calls; flops / bytes per call; total_flops; intensity = FLOPs per byte; gpu_time (ns);
-- gpu_ops launched; tflops = total_flops / gpu_time (TFLOP/s); tb_s = bytes moved per second
-- (TB/s); device = devices.name of the device the kernels ran on; peak_tflops for the op's dtype
-- (bf16, fp16, fp32 or with :tf_peak tf32) and peak_tb_s from device_peaks; pct_peak = tflops as a
-- share of peak_tflops, pct_peak_bw likewise for bandwidth; bound = 'compute' when the intensity
-- is at least the device's ridge point (peak FLOP/s / peak bytes/s), else 'memory'.
-- 'op' rows add up the shapes: pct_peak = 100 x (sum of each shape's ideal time at peak) / gpu_time.
WITH
-- The innermost modelled CPU ops (no modelled op nested inside) with the GPU ops launched in their
-- subtree: table matrix_ops, computed at import (its view is the definition). 'Concrete Inputs' is
-- there only for the models that use it (convolutions, attention); the shape is the integer
-- input_shape_id, its text (2020-21 traces: 'Input dims') is looked up once per group below. (The
-- models are joined per group, not per op.)
op_rows AS (
  SELECT op_event_id AS id, trace_id, name, input_shape_id, concrete, gpu_time, gpu_ops, device
  FROM matrix_ops
  WHERE :trace_id IS NULL OR trace_id = :trace_id
),
-- One row per distinct shape (per trace and device), with one of its ops (rep): first per
-- integer shape id, then per shape text (input_shapes.input_dims: 'Input Dims').
by_id AS (
  SELECT r.trace_id, r.name, r.input_shape_id, r.concrete, r.device,
         count(*) AS calls, sum(r.gpu_time) AS gpu_time, sum(r.gpu_ops) AS gpu_ops,
         min(r.id) AS rep
  FROM op_rows AS r
  GROUP BY r.input_shape_id, r.device, r.trace_id, r.name, r.concrete
),
shapes AS (
  SELECT
    b.trace_id, b.name, sh.input_dims AS dims, sh.input_type AS types, b.concrete, b.device,
    sum(b.calls) AS calls,
    sum(b.gpu_time) AS gpu_time,
    sum(b.gpu_ops) AS gpu_ops,
    min(b.rep) AS rep
  FROM by_id AS b
  LEFT JOIN input_shapes AS sh ON sh.id = b.input_shape_id
  GROUP BY b.trace_id, b.name, 3, 4, b.concrete, b.device
),
-- FLOPs, bytes and dtype per (op name, shape, Concrete Inputs), from one op of each over all traces
-- (view op_costs: the formulas above): ops with the same name and args cost the same, and the ranks
-- of a job share their shapes. Materialized: flattened into the grouping below, each use of flops
-- or bytes would evaluate the view's expressions again (4.8 s instead of 0.5 on 228 traces).
costs AS MATERIALIZED (
  SELECT r.name, r.dims, r.types, r.concrete, c.dtype, c.flops, c.bytes
  FROM (SELECT name, dims, types, concrete, min(rep) AS rep FROM shapes
        GROUP BY name, dims, types, concrete) AS r
  JOIN op_costs AS c ON c.op_event_id = r.rep
),
costed AS (
  SELECT s.*, c.dtype, c.flops, c.bytes
  FROM shapes AS s
  JOIN costs AS c
    ON c.name = s.name AND c.dims IS s.dims AND c.types IS s.types AND c.concrete IS s.concrete
),
-- Back to the shapes, with the device and its peaks.
rated AS (
  SELECT
    s.trace_id, s.name, s.dims, s.types, s.dtype, s.calls, s.gpu_time, s.gpu_ops,
    s.flops, s.bytes,
    dv.name AS device,
    CASE s.dtype
      WHEN 'bf16' THEN pk.bf16_tflops
      WHEN 'fp16' THEN pk.fp16_tflops
      WHEN 'fp32' THEN CASE WHEN coalesce(:tf_peak, 0) THEN pk.tf32_tflops ELSE pk.fp32_tflops END
    END AS peak_tflops,
    pk.hbm_gbps / 1000.0 AS peak_tb_s
  FROM costed AS s
  -- The device the kernels ran on: devices.device equal to the GPU op's device, else (ROCm GPU
  -- pids are offset from the 0-based deviceProperties ids) the trace's first device.
  LEFT JOIN devices AS dv
    ON dv.rowid = coalesce(
         (SELECT d.rowid FROM devices AS d WHERE d.trace_id = s.trace_id AND d.device = s.device),
         (SELECT d.rowid FROM devices AS d WHERE d.trace_id = s.trace_id ORDER BY d.device LIMIT 1))
  LEFT JOIN device_peaks AS pk
    ON pk.rowid = (SELECT p.rowid FROM device_peaks AS p WHERE dv.name LIKE p.pattern
                   ORDER BY p.priority DESC LIMIT 1)
),
grouped AS (
  SELECT
    trace_id,
    name AS op_name,
    CASE WHEN coalesce(:group, 'shape') = 'op' THEN '*' ELSE dims END AS input_dims,
    CASE WHEN coalesce(:group, 'shape') = 'op' THEN '*' ELSE types END AS input_type,
    group_concat(DISTINCT dtype) AS dtype,
    sum(calls) AS calls,
    sum(flops * calls) AS total_flops,
    sum(bytes * calls) AS total_bytes,
    count(flops) = count(*) AS all_flops,   -- every shape has a FLOP count
    count(bytes) = count(*) AS all_bytes,
    sum(gpu_time) AS gpu_time,
    sum(gpu_ops) AS gpu_ops,
    group_concat(DISTINCT device) AS device,
    min(peak_tflops) AS peak_min, max(peak_tflops) AS peak_max,
    min(peak_tb_s) AS bw_min, max(peak_tb_s) AS bw_max,
    -- ideal time at peak (ns): FLOPs / (TFLOP/s x 1000); NULL unless known for every shape
    CASE WHEN count(flops * peak_tflops) = count(*)
         THEN sum(flops * calls / (peak_tflops * 1000.0)) END AS ideal_ns,
    CASE WHEN count(bytes * peak_tb_s) = count(*)
         THEN sum(bytes * calls / (peak_tb_s * 1000.0)) END AS ideal_bw_ns
  FROM rated
  GROUP BY trace_id, name, 3, 4
)
SELECT
  trace_id,
  op_name,
  input_dims,
  input_type,
  dtype,
  calls,
  CASE WHEN all_flops THEN total_flops / calls END AS flops,
  CASE WHEN all_bytes THEN total_bytes / calls END AS bytes,
  CASE WHEN all_flops THEN total_flops END AS total_flops,
  CASE WHEN all_flops AND all_bytes THEN round(1.0 * total_flops / nullif(total_bytes, 0), 2)
  END AS intensity,
  gpu_time,
  gpu_ops,
  CASE WHEN all_flops THEN round(total_flops / 1000.0 / nullif(gpu_time, 0), 3) END AS tflops,
  CASE WHEN all_bytes THEN round(total_bytes / 1000.0 / nullif(gpu_time, 0), 3) END AS tb_s,
  device,
  CASE WHEN peak_min = peak_max THEN peak_min END AS peak_tflops,
  round(100.0 * ideal_ns / nullif(gpu_time, 0), 2) AS pct_peak,
  CASE WHEN bw_min = bw_max THEN bw_min END AS peak_tb_s,
  round(100.0 * ideal_bw_ns / nullif(gpu_time, 0), 2) AS pct_peak_bw,
  CASE WHEN all_flops AND all_bytes AND peak_min = peak_max AND bw_min = bw_max
       THEN CASE WHEN 1.0 * total_flops / nullif(total_bytes, 0) >= peak_min / bw_min
                 THEN 'compute' ELSE 'memory' END END AS bound
FROM grouped
ORDER BY gpu_time DESC, total_flops DESC, trace_id, op_name, input_dims
LIMIT coalesce(:limit, 50);
