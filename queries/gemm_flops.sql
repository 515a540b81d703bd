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
-- [op start, op end]). TraceLens uses the union of the op's direct kernels; HTA kernel_dur_sum is a
-- sum like this one. Ops that launched nothing have gpu_time 0 and NULL rates.
-- FLOPs (multiply-add = 2) and bytes (each input read once, output written once; bpe = bytes per
-- element of the main input's 'Input type': 2 BFloat16/Half, 4 float/int, 8 double/long, 1 fp8/int8):
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
-- The modelled ops and where their arguments are. i_main: input whose dtype sets bpe and the peak;
-- conv: indexes of bias/stride/padding/dilation/transposed/output_padding/groups in the args
-- (transposed = -1: always transposed); conv_bwd: grad_out/input/weight/transposed/groups/mask;
-- SDPA: index of q (k, v follow), layout 'bhnd' (aten) or 'bnhd' (flash_attn, aten::_flash_*),
-- index of the causal flag.
models_(ns, op, family, i_main, i_bias, i_stride, i_pad, i_dil, i_transposed, i_outpad, i_groups,
       i_gout, i_mask, layout, i_causal) AS (
  VALUES
  ('aten', 'mm',       'mm',      0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'addmm',    'addmm',   1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'bmm',      'bmm',     0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'baddbmm',  'baddbmm', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'linear',   'linear',  0, 2,    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'matmul',   'matmul',  0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'conv1d',   'conv',    0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'conv2d',   'conv',    0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'conv3d',   'conv',    0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'convolution',  'conv', 0, 2,   3,    4,    5,    6,    7,    8,    NULL, NULL, NULL, NULL),
  ('aten', '_convolution', 'conv', 0, 2,   3,    4,    5,    6,    7,    8,    NULL, NULL, NULL, NULL),
  ('aten', 'cudnn_convolution', 'conv', 0, NULL, 3, 2, 4,    NULL, NULL, 5,    NULL, NULL, NULL, NULL),
  ('aten', 'cudnn_convolution_transpose', 'conv', 0, NULL, 4, 2, 5, -1, 3, 6,  NULL, NULL, NULL, NULL),
  ('aten', 'miopen_convolution', 'conv', 0, 2, 4,    3,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'mkldnn_convolution', 'conv', 0, 2, 4,    3,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  -- convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  --   transposed, output_padding, groups, output_mask); 2020-21 cudnn_convolution_backward(self,
  --   grad_output, weight, padding, stride, dilation, groups, benchmark, deterministic,
  --   allow_tf32, output_mask)
  ('aten', 'convolution_backward',       'conv_bwd', 1, NULL, NULL, NULL, NULL, 7, NULL, 9, 0, 10, NULL, NULL),
  ('aten', 'cudnn_convolution_backward', 'conv_bwd', 0, NULL, NULL, NULL, NULL, NULL, NULL, 6, 1, 10, NULL, NULL),
  ('aten', 'scaled_dot_product_attention',             'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 5),
  ('aten', '_scaled_dot_product_flash_attention',      'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 4),
  ('aten', '_scaled_dot_product_efficient_attention',  'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 6),
  ('aten', '_scaled_dot_product_cudnn_attention',      'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 6),
  ('aten', '_flash_attention_forward',                 'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 8),
  ('aten', '_efficient_attention_forward',             'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 9),
  ('flash_attn', '_flash_attn_forward',                'sdpa', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 5),
  ('aten', '_scaled_dot_product_flash_attention_backward',     'sdpa_bwd', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 11),
  ('aten', '_scaled_dot_product_efficient_attention_backward', 'sdpa_bwd', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 11),
  ('aten', '_scaled_dot_product_cudnn_attention_backward',     'sdpa_bwd', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 14),
  ('aten', '_flash_attention_backward',                        'sdpa_bwd', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 11),
  ('flash_attn', '_flash_attn_backward',                       'sdpa_bwd', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 11)
),
-- Op names are written namespace, op above ('aten', 'mm' = aten::mm). uses_concrete: the model
-- reads 'Concrete Inputs' (stride, padding, ..., the causal flag).
models AS (
  SELECT ns || ':' || ':' || op AS name, models_.*,
         i_stride IS NOT NULL OR i_pad IS NOT NULL OR i_dil IS NOT NULL OR i_transposed IS NOT NULL
           OR i_outpad IS NOT NULL OR i_groups IS NOT NULL OR i_mask IS NOT NULL
           OR i_causal IS NOT NULL AS uses_concrete
  FROM models_
),
-- The innermost modelled CPU ops (no modelled op nested inside) and their GPU ops: those whose
-- launch call lies inside the op on its thread (op_kernel_links, by its (launch_thread_id,
-- launch_ts) index; no names needed). One row per op, read in id order (so the grouping needs no
-- sort). 'Concrete Inputs' is read only for the models that use it (convolutions, attention); the
-- shape is the integer input_shape_id, its text (2020-21 traces: 'Input dims') is looked up once
-- per group below. (The models are joined per group, not per op.)
op_rows AS (
  SELECT
    o.id, o.trace_id, o.name, o.input_shape_id,
    CASE WHEN o.name IN (SELECT name FROM models WHERE uses_concrete)
      THEN (SELECT o.arg_values -> k.path FROM arg_keys AS k
             WHERE k.shape_id = o.arg_shape_id AND k.key = 'Concrete Inputs')
    END AS concrete,
    coalesce(sum(g.gpu_dur), 0) AS gpu_time,
    count(g.gpu_event_id) AS gpu_ops,
    min(g.device) AS device
  -- the CPU ops (the cpu_ops view, spelled out: read per trace in id order, grouping needs no sort)
  FROM event_ranges AS r
  JOIN events AS o ON o.id BETWEEN r.first_id AND r.last_id
  LEFT JOIN op_kernel_links AS g
    ON g.launch_thread_id = o.thread_id AND g.launch_ts >= o.ts AND g.launch_ts <= o.ts + o.dur
  WHERE r.kind = 'cpu_op' AND o.name IN (SELECT name FROM models)
    AND o.cat IN ('cpu_op', 'Operator')
    AND (:trace_id IS NULL OR r.trace_id = :trace_id)
    AND NOT EXISTS (
      SELECT 1 FROM events AS d
      WHERE d.thread_id = o.thread_id
        AND d.ts >= o.ts AND d.ts < o.ts + o.dur
        AND d.id BETWEEN r.first_id AND r.last_id  -- a CPU op: tested in the index, before the row
        AND d.depth > o.depth
        AND d.name IN (SELECT name FROM models)
        AND d.ts + d.dur <= o.ts + o.dur
        AND d.cat IN ('cpu_op', 'Operator'))
  GROUP BY r.trace_id, o.id
),
-- One row per distinct shape (per trace and device), with the model's argument positions:
-- first per integer shape id, then per shape text (input_shapes.input_dims: 'Input Dims').
by_id AS (
  SELECT r.trace_id, r.name, r.input_shape_id, r.concrete, r.device,
         count(*) AS calls, sum(r.gpu_time) AS gpu_time, sum(r.gpu_ops) AS gpu_ops
  FROM op_rows AS r
  GROUP BY r.input_shape_id, r.device, r.trace_id, r.name, r.concrete
),
shapes AS (
  SELECT
    b.trace_id, b.name, sh.input_dims AS dims, sh.input_type AS types,
    b.concrete, b.device,
    m.family, m.i_main, m.i_bias, m.i_stride, m.i_pad, m.i_dil, m.i_transposed, m.i_outpad,
    m.i_groups, m.i_gout, m.i_mask, m.layout, m.i_causal,
    sum(b.calls) AS calls,
    sum(b.gpu_time) AS gpu_time,
    sum(b.gpu_ops) AS gpu_ops
  FROM by_id AS b
  JOIN models AS m ON m.name = b.name
  LEFT JOIN input_shapes AS sh ON sh.id = b.input_shape_id
  GROUP BY b.trace_id, b.name, 3, 4, b.concrete, b.device
),
-- Ranks, element counts (up to 6 dimensions), bytes per element, dtype of inputs 0..3.
sized AS (
  SELECT
    s.*,
    json_array_length(s.dims, '$[0]') AS r0,
    json_array_length(s.dims, '$[1]') AS r1,
    json_array_length(s.dims, '$[2]') AS r2,
    json_array_length(s.dims, '$[3]') AS r3,
    CASE WHEN json_array_length(s.dims, '$[0]') BETWEEN 1 AND 6 THEN
      coalesce(json_extract(s.dims, '$[0][0]'), 1) * coalesce(json_extract(s.dims, '$[0][1]'), 1)
      * coalesce(json_extract(s.dims, '$[0][2]'), 1) * coalesce(json_extract(s.dims, '$[0][3]'), 1)
      * coalesce(json_extract(s.dims, '$[0][4]'), 1) * coalesce(json_extract(s.dims, '$[0][5]'), 1)
    END AS n0,
    CASE WHEN json_array_length(s.dims, '$[1]') BETWEEN 1 AND 6 THEN
      coalesce(json_extract(s.dims, '$[1][0]'), 1) * coalesce(json_extract(s.dims, '$[1][1]'), 1)
      * coalesce(json_extract(s.dims, '$[1][2]'), 1) * coalesce(json_extract(s.dims, '$[1][3]'), 1)
      * coalesce(json_extract(s.dims, '$[1][4]'), 1) * coalesce(json_extract(s.dims, '$[1][5]'), 1)
    END AS n1,
    CASE WHEN json_array_length(s.dims, '$[2]') BETWEEN 1 AND 6 THEN
      coalesce(json_extract(s.dims, '$[2][0]'), 1) * coalesce(json_extract(s.dims, '$[2][1]'), 1)
      * coalesce(json_extract(s.dims, '$[2][2]'), 1) * coalesce(json_extract(s.dims, '$[2][3]'), 1)
      * coalesce(json_extract(s.dims, '$[2][4]'), 1) * coalesce(json_extract(s.dims, '$[2][5]'), 1)
    END AS n2,
    CASE WHEN json_array_length(s.dims, '$[3]') BETWEEN 1 AND 6 THEN
      coalesce(json_extract(s.dims, '$[3][0]'), 1) * coalesce(json_extract(s.dims, '$[3][1]'), 1)
      * coalesce(json_extract(s.dims, '$[3][2]'), 1) * coalesce(json_extract(s.dims, '$[3][3]'), 1)
      * coalesce(json_extract(s.dims, '$[3][4]'), 1) * coalesce(json_extract(s.dims, '$[3][5]'), 1)
    END AS n3,
    CASE json_extract(s.types, '$[' || s.i_main || ']')
      WHEN 'c10::BFloat16' THEN 2 WHEN 'c10::Half' THEN 2 WHEN 'short' THEN 2
      WHEN 'float' THEN 4 WHEN 'int' THEN 4 WHEN 'unsigned int' THEN 4
      WHEN 'double' THEN 8 WHEN 'long int' THEN 8
      WHEN 'c10::Float8_e4m3fn' THEN 1 WHEN 'c10::Float8_e5m2' THEN 1
      WHEN 'c10::Float8_e4m3fnuz' THEN 1 WHEN 'c10::Float8_e5m2fnuz' THEN 1
      WHEN 'unsigned char' THEN 1 WHEN 'signed char' THEN 1 WHEN 'c10::Float4_e2m1fn_x2' THEN 1
    END AS bpe,
    CASE json_extract(s.types, '$[' || s.i_main || ']')
      WHEN 'c10::BFloat16' THEN 'bf16' WHEN 'c10::Half' THEN 'fp16' WHEN 'float' THEN 'fp32'
      WHEN 'double' THEN 'fp64'
      ELSE json_extract(s.types, '$[' || s.i_main || ']')
    END AS dtype,
    -- the text of Concrete Inputs[i] (a JSON string in the trace), e.g. '[2, 2]', 'False', '1'
    json_extract(s.concrete, '$[' || s.i_stride || ']') AS c_stride,
    json_extract(s.concrete, '$[' || s.i_pad || ']') AS c_pad,
    json_extract(s.concrete, '$[' || s.i_dil || ']') AS c_dil,
    json_extract(s.concrete, '$[' || s.i_outpad || ']') AS c_outpad,
    json_extract(s.concrete, '$[' || s.i_groups || ']') AS c_groups,
    CASE WHEN s.i_transposed = -1 THEN 'True'
         ELSE json_extract(s.concrete, '$[' || s.i_transposed || ']') END AS c_transposed,
    json_extract(s.concrete, '$[' || s.i_mask || ']') AS c_mask,
    json_extract(s.concrete, '$[' || s.i_causal || ']') AS c_causal
  FROM shapes AS s
),
-- convolution_backward's output_mask ('[True, True, False]': input, weight, bias gradients) as
-- 0/1; without it, input and weight gradients and no bias gradient.
masked AS (
  SELECT
    z.*,
    coalesce(json_extract(z.mask_json, '$[0]'), 1) AS mask_in,
    coalesce(json_extract(z.mask_json, '$[1]'), 1) AS mask_w,
    coalesce(json_extract(z.mask_json, '$[2]'), 0) AS mask_b,
    CASE z.i_main WHEN 0 THEN z.n0 ELSE z.n1 END AS n_x,     -- conv_bwd: the input
    CASE z.i_gout WHEN 0 THEN z.n0 ELSE z.n1 END AS n_gout   -- conv_bwd: grad_output
  FROM (
    SELECT
      y.*,
      CASE WHEN json_valid(replace(replace(y.c_mask, 'True', '1'), 'False', '0'))
           THEN replace(replace(y.c_mask, 'True', '1'), 'False', '0') END AS mask_json
    FROM sized AS y
  ) AS z
),
-- Convolution geometry: per spatial dim i (0..2) stride/padding/dilation/output padding, taking
-- element i of a list, or its only element, or a plain integer.
conv_geo AS (
  SELECT
    z.*,
    CASE WHEN z.c_transposed IN ('True', 'true', '1') THEN 1 ELSE 0 END AS transposed,
    coalesce(CASE WHEN json_valid(z.c_groups) THEN json_extract(z.c_groups, '$') END, 1) AS groups,
    CASE WHEN z.i_bias IS NOT NULL AND json_array_length(z.dims, '$[' || z.i_bias || ']') > 0
         THEN 1 ELSE 0 END AS has_bias,
    json_extract(z.dims, '$[0][2]') AS in0, json_extract(z.dims, '$[0][3]') AS in1,
    json_extract(z.dims, '$[0][4]') AS in2,
    json_extract(z.dims, '$[1][2]') AS k0, json_extract(z.dims, '$[1][3]') AS k1,
    json_extract(z.dims, '$[1][4]') AS k2,
    CASE WHEN json_valid(z.c_stride) THEN coalesce(json_extract(z.c_stride, '$[0]'),
      CASE json_type(z.c_stride) WHEN 'integer' THEN json_extract(z.c_stride, '$') END) END AS s0,
    CASE WHEN json_valid(z.c_stride) THEN coalesce(json_extract(z.c_stride, '$[1]'),
      json_extract(z.c_stride, '$[0]'),
      CASE json_type(z.c_stride) WHEN 'integer' THEN json_extract(z.c_stride, '$') END) END AS s1,
    CASE WHEN json_valid(z.c_stride) THEN coalesce(json_extract(z.c_stride, '$[2]'),
      json_extract(z.c_stride, '$[0]'),
      CASE json_type(z.c_stride) WHEN 'integer' THEN json_extract(z.c_stride, '$') END) END AS s2,
    CASE WHEN z.c_pad = 'valid' THEN 0 WHEN json_valid(z.c_pad) THEN
      coalesce(json_extract(z.c_pad, '$[0]'),
               CASE json_type(z.c_pad) WHEN 'integer' THEN json_extract(z.c_pad, '$') END) END AS p0,
    CASE WHEN z.c_pad = 'valid' THEN 0 WHEN json_valid(z.c_pad) THEN
      coalesce(json_extract(z.c_pad, '$[1]'), json_extract(z.c_pad, '$[0]'),
               CASE json_type(z.c_pad) WHEN 'integer' THEN json_extract(z.c_pad, '$') END) END AS p1,
    CASE WHEN z.c_pad = 'valid' THEN 0 WHEN json_valid(z.c_pad) THEN
      coalesce(json_extract(z.c_pad, '$[2]'), json_extract(z.c_pad, '$[0]'),
               CASE json_type(z.c_pad) WHEN 'integer' THEN json_extract(z.c_pad, '$') END) END AS p2,
    CASE WHEN json_valid(z.c_dil) THEN coalesce(json_extract(z.c_dil, '$[0]'),
      CASE json_type(z.c_dil) WHEN 'integer' THEN json_extract(z.c_dil, '$') END) END AS d0,
    CASE WHEN json_valid(z.c_dil) THEN coalesce(json_extract(z.c_dil, '$[1]'),
      json_extract(z.c_dil, '$[0]'),
      CASE json_type(z.c_dil) WHEN 'integer' THEN json_extract(z.c_dil, '$') END) END AS d1,
    CASE WHEN json_valid(z.c_dil) THEN coalesce(json_extract(z.c_dil, '$[2]'),
      json_extract(z.c_dil, '$[0]'),
      CASE json_type(z.c_dil) WHEN 'integer' THEN json_extract(z.c_dil, '$') END) END AS d2,
    CASE WHEN json_valid(z.c_outpad) THEN coalesce(json_extract(z.c_outpad, '$[0]'),
      CASE json_type(z.c_outpad) WHEN 'integer' THEN json_extract(z.c_outpad, '$') END) END AS q0,
    CASE WHEN json_valid(z.c_outpad) THEN coalesce(json_extract(z.c_outpad, '$[1]'),
      json_extract(z.c_outpad, '$[0]'),
      CASE json_type(z.c_outpad) WHEN 'integer' THEN json_extract(z.c_outpad, '$') END) END AS q1,
    CASE WHEN json_valid(z.c_outpad) THEN coalesce(json_extract(z.c_outpad, '$[2]'),
      json_extract(z.c_outpad, '$[0]'),
      CASE json_type(z.c_outpad) WHEN 'integer' THEN json_extract(z.c_outpad, '$') END) END AS q2
  FROM sized AS z
  WHERE z.family = 'conv'
),
-- Output size per spatial dim (NULL when a needed argument is unknown; 1 past the last dim).
conv_out AS (
  SELECT
    c.*,
    CASE WHEN c.in0 IS NULL THEN 1
         WHEN c.c_pad = 'same' THEN c.in0
         WHEN c.transposed THEN (c.in0 - 1) * c.s0 - 2 * c.p0 + c.d0 * (c.k0 - 1) + coalesce(c.q0, 0) + 1
         ELSE (c.in0 + 2 * c.p0 - c.d0 * (c.k0 - 1) - 1) / c.s0 + 1 END AS o0,
    CASE WHEN c.in1 IS NULL THEN 1
         WHEN c.c_pad = 'same' THEN c.in1
         WHEN c.transposed THEN (c.in1 - 1) * c.s1 - 2 * c.p1 + c.d1 * (c.k1 - 1) + coalesce(c.q1, 0) + 1
         ELSE (c.in1 + 2 * c.p1 - c.d1 * (c.k1 - 1) - 1) / c.s1 + 1 END AS o1,
    CASE WHEN c.in2 IS NULL THEN 1
         WHEN c.c_pad = 'same' THEN c.in2
         WHEN c.transposed THEN (c.in2 - 1) * c.s2 - 2 * c.p2 + c.d2 * (c.k2 - 1) + coalesce(c.q2, 0) + 1
         ELSE (c.in2 + 2 * c.p2 - c.d2 * (c.k2 - 1) - 1) / c.s2 + 1 END AS o2,
    CASE WHEN c.transposed THEN json_extract(c.dims, '$[1][1]') * c.groups
         ELSE json_extract(c.dims, '$[1][0]') END AS c_out
  FROM conv_geo AS c
),
conv_cost AS (
  SELECT
    c.trace_id, c.name, c.dims, c.types, c.dtype, c.device, c.calls, c.gpu_time, c.gpu_ops,
    CASE WHEN c.transposed
      THEN 2 * (c.n1 / json_extract(c.dims, '$[1][0]')) * c.n0
      ELSE 2 * (c.n1 / json_extract(c.dims, '$[1][0]'))
             * (json_extract(c.dims, '$[0][0]') * c.c_out * c.o0 * c.o1 * c.o2)
    END + c.has_bias * (json_extract(c.dims, '$[0][0]') * c.c_out * c.o0 * c.o1 * c.o2) AS flops,
    (c.n0 + c.n1 + c.has_bias * c.c_out
      + json_extract(c.dims, '$[0][0]') * c.c_out * c.o0 * c.o1 * c.o2) * c.bpe AS bytes
  FROM conv_out AS c
),
-- Every other family, directly from the dims.
other_cost AS (
  SELECT
    z.trace_id, z.name, z.dims, z.types, z.dtype, z.device, z.calls, z.gpu_time, z.gpu_ops,
    CASE z.family
      WHEN 'mm' THEN CASE WHEN z.r0 = 2 AND z.r1 = 2
                           AND json_extract(z.dims, '$[0][1]') = json_extract(z.dims, '$[1][0]')
        THEN 2 * json_extract(z.dims, '$[0][0]') * json_extract(z.dims, '$[1][1]')
               * json_extract(z.dims, '$[0][1]') END
      WHEN 'addmm' THEN CASE WHEN z.r1 = 2 AND z.r2 = 2
                              AND json_extract(z.dims, '$[1][1]') = json_extract(z.dims, '$[2][0]')
        THEN 2 * json_extract(z.dims, '$[1][0]') * json_extract(z.dims, '$[2][1]')
               * json_extract(z.dims, '$[1][1]')
             + json_extract(z.dims, '$[1][0]') * json_extract(z.dims, '$[2][1]') END
      WHEN 'bmm' THEN CASE WHEN z.r0 = 3 AND z.r1 = 3
                            AND json_extract(z.dims, '$[0][2]') = json_extract(z.dims, '$[1][1]')
        THEN 2 * json_extract(z.dims, '$[0][0]') * json_extract(z.dims, '$[0][1]')
               * json_extract(z.dims, '$[1][2]') * json_extract(z.dims, '$[0][2]') END
      WHEN 'baddbmm' THEN CASE WHEN z.r1 = 3 AND z.r2 = 3
                                AND json_extract(z.dims, '$[1][2]') = json_extract(z.dims, '$[2][1]')
        THEN json_extract(z.dims, '$[1][0]')
             * (2 * json_extract(z.dims, '$[1][1]') * json_extract(z.dims, '$[2][2]')
                  * json_extract(z.dims, '$[1][2]')
                + json_extract(z.dims, '$[1][1]') * json_extract(z.dims, '$[2][2]')) END
      WHEN 'linear' THEN CASE WHEN z.r0 >= 1 AND z.r1 = 2
                               AND json_extract(z.dims, '$[0][#-1]') = json_extract(z.dims, '$[1][1]')
        THEN 2 * z.n0 * json_extract(z.dims, '$[1][0]')
             + CASE WHEN coalesce(z.r2, 0) > 0
                    THEN z.n0 / json_extract(z.dims, '$[0][#-1]') * json_extract(z.dims, '$[1][0]')
                    ELSE 0 END END
      WHEN 'matmul' THEN CASE WHEN z.r0 >= 1 AND z.r1 >= 1
                               AND json_extract(z.dims, '$[0][#-1]')
                                   = json_extract(z.dims, CASE WHEN z.r1 = 1 THEN '$[1][0]' ELSE '$[1][#-2]' END)
        THEN 2 * json_extract(z.dims, '$[0][#-1]')
             * (CASE WHEN z.r0 = 1 THEN 1 ELSE z.n0 / json_extract(z.dims, '$[0][#-1]') END)
             * (CASE WHEN z.r1 = 1 THEN 1 ELSE json_extract(z.dims, '$[1][#-1]') END)
             * (CASE WHEN z.r0 <= 2 AND z.r1 >= 3
                     THEN z.n1 / (json_extract(z.dims, '$[1][#-1]') * json_extract(z.dims, '$[1][#-2]'))
                     ELSE 1 END) END
      WHEN 'conv_bwd' THEN
        -- each gradient costs what the forward conv costs; the bias gradient one add per element
        2 * (z.n2 / json_extract(z.dims, '$[2][0]'))
          * (CASE WHEN z.c_transposed IN ('True', 'true', '1') THEN z.n_x ELSE z.n_gout END)
          * (z.mask_in + z.mask_w)
        + z.mask_b * z.n_gout
      WHEN 'sdpa' THEN CASE WHEN z.r0 = 4 AND z.r1 = 4 AND z.r2 = 4
        THEN json_extract(z.dims, '$[0][0]')
             * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[0][1]' ELSE '$[0][2]' END)
             * 2 * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[0][2]' ELSE '$[0][1]' END)
             * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[1][2]' ELSE '$[1][1]' END)
             * (json_extract(z.dims, '$[0][3]') + json_extract(z.dims, '$[2][3]'))
             / (CASE WHEN z.c_causal IN ('True', 'true', '1', '2') THEN 2 ELSE 1 END) END
      WHEN 'sdpa_bwd' THEN CASE WHEN z.r1 = 4 AND z.r2 = 4 AND z.r3 = 4
        THEN json_extract(z.dims, '$[1][0]')
             * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[1][1]' ELSE '$[1][2]' END)
             * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[1][2]' ELSE '$[1][1]' END)
             * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[2][2]' ELSE '$[2][1]' END)
             * (6 * json_extract(z.dims, '$[1][3]') + 4 * json_extract(z.dims, '$[3][3]'))
             / (CASE WHEN z.c_causal IN ('True', 'true', '1', '2') THEN 2 ELSE 1 END) END
    END AS flops,
    z.bpe * CASE z.family
      WHEN 'mm' THEN json_extract(z.dims, '$[0][0]') * json_extract(z.dims, '$[0][1]')
                   + json_extract(z.dims, '$[1][0]') * json_extract(z.dims, '$[1][1]')
                   + json_extract(z.dims, '$[0][0]') * json_extract(z.dims, '$[1][1]')
      WHEN 'addmm' THEN json_extract(z.dims, '$[1][0]') * json_extract(z.dims, '$[1][1]')
                      + json_extract(z.dims, '$[2][0]') * json_extract(z.dims, '$[2][1]')
                      + json_extract(z.dims, '$[1][0]') * json_extract(z.dims, '$[2][1]')
                      + json_extract(z.dims, '$[2][1]')
      WHEN 'bmm' THEN json_extract(z.dims, '$[0][0]')
                    * (json_extract(z.dims, '$[0][1]') * json_extract(z.dims, '$[0][2]')
                       + json_extract(z.dims, '$[1][1]') * json_extract(z.dims, '$[1][2]')
                       + json_extract(z.dims, '$[0][1]') * json_extract(z.dims, '$[1][2]'))
      WHEN 'baddbmm' THEN json_extract(z.dims, '$[1][0]')
                        * (json_extract(z.dims, '$[1][1]') * json_extract(z.dims, '$[1][2]')
                           + json_extract(z.dims, '$[2][1]') * json_extract(z.dims, '$[2][2]')
                           + json_extract(z.dims, '$[1][1]') * json_extract(z.dims, '$[2][2]')
                           + json_extract(z.dims, '$[2][2]'))
      WHEN 'linear' THEN z.n0 + z.n1 + coalesce(z.n2, 0)
                       + z.n0 / json_extract(z.dims, '$[0][#-1]') * json_extract(z.dims, '$[1][0]')
      WHEN 'matmul' THEN z.n0 + z.n1
        + (CASE WHEN z.r0 = 1 THEN 1 ELSE z.n0 / json_extract(z.dims, '$[0][#-1]') END)
          * (CASE WHEN z.r1 = 1 THEN 1 ELSE json_extract(z.dims, '$[1][#-1]') END)
          * (CASE WHEN z.r0 <= 2 AND z.r1 >= 3
                  THEN z.n1 / (json_extract(z.dims, '$[1][#-1]') * json_extract(z.dims, '$[1][#-2]'))
                  ELSE 1 END)
      WHEN 'conv_bwd' THEN z.n_gout + z.n_x + z.n2 + z.mask_in * z.n_x + z.mask_w * z.n2
      WHEN 'sdpa' THEN z.n0 + z.n1 + z.n2
        + json_extract(z.dims, '$[0][0]')
          * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[0][1]' ELSE '$[0][2]' END)
          * json_extract(z.dims, CASE z.layout WHEN 'bhnd' THEN '$[0][2]' ELSE '$[0][1]' END)
          * json_extract(z.dims, '$[2][3]')
      WHEN 'sdpa_bwd' THEN 2 * (z.n1 + z.n2 + z.n3) + z.n0
    END AS bytes
  FROM masked AS z
  WHERE z.family <> 'conv'
),
costed AS (
  SELECT * FROM conv_cost
  UNION ALL
  SELECT * FROM other_cost
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
