-- op_costs: FLOPs and bytes moved by one CPU op (events row) of op_models, from its 'Input Dims',
-- 'Input type' and 'Concrete Inputs' args (record_shapes); NULL where the shapes do not fit the model.
-- Ops with the same name and args cost the same, so the bundled queries gemm_flops and op_roofline
-- group their ops first and read this view for one op of each group
-- (WHERE op_event_id IN (...): SQLite then evaluates it for those ops only).
-- FLOPs count a multiply-add as 2; bytes count each input read once and each output written once
-- (perfect caching). bpe = bytes per element of an input's 'Input type' (table dtype_sizes). The
-- formulas per family are listed in docs/queries.md (sections gemm_flops and op_roofline).
CREATE VIEW op_costs AS
SELECT
  op_event_id,                        -- the CPU op (events.id)
  name,                               -- its name
  family,                             -- op_models.family
  category,                           -- op_models.category
  dtype,                              -- dtype of the main input: bf16, fp16, fp32, fp64, or as written
  bpe,                                -- its bytes per element
  CASE WHEN family = 'none' THEN NULL
       WHEN family IN ('mm', 'addmm', 'bmm', 'baddbmm', 'linear', 'matmul', 'conv', 'conv_bwd',
                       'sdpa', 'sdpa_bwd') THEN 'matrix' ELSE 'vector' END AS unit,
                                      -- 'matrix': tensor/matrix cores (peak of the dtype);
                                      -- 'vector': the FP32 peak; NULL for family 'none'
  CASE family
    WHEN 'conv' THEN
      CASE WHEN transposed
        THEN 2 * (n1 / json_extract(dims, '$[1][0]')) * n0
        ELSE 2 * (n1 / json_extract(dims, '$[1][0]'))
               * (json_extract(dims, '$[0][0]') * c_out * o0 * o1 * o2)
      END + has_bias * (json_extract(dims, '$[0][0]') * c_out * o0 * o1 * o2)
    WHEN 'mm' THEN CASE WHEN r0 = 2 AND r1 = 2
                         AND json_extract(dims, '$[0][1]') = json_extract(dims, '$[1][0]')
      THEN 2 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[1][1]')
             * json_extract(dims, '$[0][1]') END
    WHEN 'addmm' THEN CASE WHEN r1 = 2 AND r2 = 2
                            AND json_extract(dims, '$[1][1]') = json_extract(dims, '$[2][0]')
      THEN 2 * json_extract(dims, '$[1][0]') * json_extract(dims, '$[2][1]')
             * json_extract(dims, '$[1][1]')
           + json_extract(dims, '$[1][0]') * json_extract(dims, '$[2][1]') END
    WHEN 'bmm' THEN CASE WHEN r0 = 3 AND r1 = 3
                          AND json_extract(dims, '$[0][2]') = json_extract(dims, '$[1][1]')
      THEN 2 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[0][1]')
             * json_extract(dims, '$[1][2]') * json_extract(dims, '$[0][2]') END
    WHEN 'baddbmm' THEN CASE WHEN r1 = 3 AND r2 = 3
                              AND json_extract(dims, '$[1][2]') = json_extract(dims, '$[2][1]')
      THEN json_extract(dims, '$[1][0]')
           * (2 * json_extract(dims, '$[1][1]') * json_extract(dims, '$[2][2]')
                * json_extract(dims, '$[1][2]')
              + json_extract(dims, '$[1][1]') * json_extract(dims, '$[2][2]')) END
    WHEN 'linear' THEN CASE WHEN r0 >= 1 AND r1 = 2
                             AND json_extract(dims, '$[0][#-1]') = json_extract(dims, '$[1][1]')
      THEN 2 * n0 * json_extract(dims, '$[1][0]')
           + CASE WHEN coalesce(r2, 0) > 0
                  THEN n0 / json_extract(dims, '$[0][#-1]') * json_extract(dims, '$[1][0]')
                  ELSE 0 END END
    WHEN 'matmul' THEN CASE WHEN r0 >= 1 AND r1 >= 1
                             AND json_extract(dims, '$[0][#-1]')
                                 = json_extract(dims, CASE WHEN r1 = 1 THEN '$[1][0]' ELSE '$[1][#-2]' END)
      THEN 2 * json_extract(dims, '$[0][#-1]')
           * (CASE WHEN r0 = 1 THEN 1 ELSE n0 / json_extract(dims, '$[0][#-1]') END)
           * (CASE WHEN r1 = 1 THEN 1 ELSE json_extract(dims, '$[1][#-1]') END)
           * (CASE WHEN r0 <= 2 AND r1 >= 3
                   THEN n1 / (json_extract(dims, '$[1][#-1]') * json_extract(dims, '$[1][#-2]'))
                   ELSE 1 END) END
    WHEN 'conv_bwd' THEN
      -- each gradient costs what the forward conv costs; the bias gradient one add per element
      2 * (n2 / json_extract(dims, '$[2][0]'))
        * (CASE WHEN c_transposed IN ('True', 'true', '1') THEN n_x ELSE n_gout END)
        * (mask_in + mask_w)
      + mask_b * n_gout
    WHEN 'sdpa' THEN CASE WHEN r0 = 4 AND r1 = 4 AND r2 = 4
      THEN json_extract(dims, '$[0][0]')
           * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[0][1]' ELSE '$[0][2]' END)
           * 2 * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[0][2]' ELSE '$[0][1]' END)
           * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[1][2]' ELSE '$[1][1]' END)
           * (json_extract(dims, '$[0][3]') + json_extract(dims, '$[2][3]'))
           / (CASE WHEN c_causal IN ('True', 'true', '1', '2') THEN 2 ELSE 1 END) END
    WHEN 'sdpa_bwd' THEN CASE WHEN r1 = 4 AND r2 = 4 AND r3 = 4
      THEN json_extract(dims, '$[1][0]')
           * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[1][1]' ELSE '$[1][2]' END)
           * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[1][2]' ELSE '$[1][1]' END)
           * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[2][2]' ELSE '$[2][1]' END)
           * (6 * json_extract(dims, '$[1][3]') + 4 * json_extract(dims, '$[3][3]'))
           / (CASE WHEN c_causal IN ('True', 'true', '1', '2') THEN 2 ELSE 1 END) END
    -- one operation per output element
    WHEN 'elementwise' THEN e_out
    WHEN 'copy' THEN 0
    WHEN 'fill' THEN 0
    WHEN 'embedding' THEN 0
    WHEN 'gather' THEN 0
    -- one operation per input element
    WHEN 'reduce' THEN e0
    -- max, subtract, exp, sum, divide per element; backward: multiply, sum, subtract, multiply
    WHEN 'softmax' THEN 5 * e0
    WHEN 'softmax_bwd' THEN 4 * e0
    -- statistics (mean: 1, variance: 3 per element; batch norm only in training), normalise (2),
    -- weight (1), bias (1); RMS: square and sum (2), normalise (1), weight (1)
    WHEN 'layer_norm' THEN e0 * (6 + has_w + has_b)
    WHEN 'batch_norm' THEN e0 * (4 * training + 2 + has_w + has_b)
    WHEN 'rms_norm' THEN e0 * (3 + has_w)
  END AS flops,                       -- FLOPs of one call
  CASE family
    WHEN 'conv' THEN
      (n0 + n1 + has_bias * c_out + json_extract(dims, '$[0][0]') * c_out * o0 * o1 * o2) * bpe
    WHEN 'mm' THEN bpe * (json_extract(dims, '$[0][0]') * json_extract(dims, '$[0][1]')
                 + json_extract(dims, '$[1][0]') * json_extract(dims, '$[1][1]')
                 + json_extract(dims, '$[0][0]') * json_extract(dims, '$[1][1]'))
    WHEN 'addmm' THEN bpe * (json_extract(dims, '$[1][0]') * json_extract(dims, '$[1][1]')
                    + json_extract(dims, '$[2][0]') * json_extract(dims, '$[2][1]')
                    + json_extract(dims, '$[1][0]') * json_extract(dims, '$[2][1]')
                    + json_extract(dims, '$[2][1]'))
    WHEN 'bmm' THEN bpe * json_extract(dims, '$[0][0]')
                  * (json_extract(dims, '$[0][1]') * json_extract(dims, '$[0][2]')
                     + json_extract(dims, '$[1][1]') * json_extract(dims, '$[1][2]')
                     + json_extract(dims, '$[0][1]') * json_extract(dims, '$[1][2]'))
    WHEN 'baddbmm' THEN bpe * json_extract(dims, '$[1][0]')
                      * (json_extract(dims, '$[1][1]') * json_extract(dims, '$[1][2]')
                         + json_extract(dims, '$[2][1]') * json_extract(dims, '$[2][2]')
                         + json_extract(dims, '$[1][1]') * json_extract(dims, '$[2][2]')
                         + json_extract(dims, '$[2][2]'))
    WHEN 'linear' THEN bpe * (n0 + n1 + coalesce(n2, 0)
                     + n0 / json_extract(dims, '$[0][#-1]') * json_extract(dims, '$[1][0]'))
    WHEN 'matmul' THEN bpe * (n0 + n1
      + (CASE WHEN r0 = 1 THEN 1 ELSE n0 / json_extract(dims, '$[0][#-1]') END)
        * (CASE WHEN r1 = 1 THEN 1 ELSE json_extract(dims, '$[1][#-1]') END)
        * (CASE WHEN r0 <= 2 AND r1 >= 3
                THEN n1 / (json_extract(dims, '$[1][#-1]') * json_extract(dims, '$[1][#-2]'))
                ELSE 1 END))
    WHEN 'conv_bwd' THEN bpe * (n_gout + n_x + n2 + mask_in * n_x + mask_w * n2)
    WHEN 'sdpa' THEN bpe * (n0 + n1 + n2
      + json_extract(dims, '$[0][0]')
        * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[0][1]' ELSE '$[0][2]' END)
        * json_extract(dims, CASE layout WHEN 'bhnd' THEN '$[0][2]' ELSE '$[0][1]' END)
        * json_extract(dims, '$[2][3]'))
    WHEN 'sdpa_bwd' THEN bpe * (2 * (n1 + n2 + n3) + n0)
    -- inputs read, the output (broadcast shape; dtype of input 0, or the wider of two tensors)
    -- written
    WHEN 'elementwise' THEN e0 * b0 + coalesce(e1 * b1, 0)
      + e_out * CASE WHEN b1 IS NOT NULL AND r1 > 0 THEN max(b0, b1) ELSE b0 END
    -- copy_(self, src): src read, self written
    WHEN 'copy' THEN e1 * b1 + e0 * b0
    WHEN 'fill' THEN e0 * b0
    -- embedding(weight [V, D], indices): a row read and written per index, the indices read
    WHEN 'embedding' THEN 2 * e1 * json_extract(dims, '$[0][#-1]') * b0 + e1 * b1
    -- index_select(self, dim, index): the selected slices read and written, the index read
    WHEN 'gather' THEN 2 * e2 * (e0 / dim_size) * b0 + e2 * b2
    -- input read, output written (argmax/argmin: int64)
    WHEN 'reduce' THEN e0 * b0
      + (e0 / reduced) * CASE WHEN name IN ('aten::argmax', 'aten::argmin') THEN 8 ELSE b0 END
    WHEN 'softmax' THEN 2 * e0 * b0
    WHEN 'softmax_bwd' THEN 3 * e0 * b0
    -- input read, output written; weight and bias (D elements) read; mean and rstd (fp32, one per
    -- row) written
    WHEN 'layer_norm' THEN 2 * e0 * b0 + norm_d * (has_w * bw + has_b * bb) + 2 * (e0 / norm_d) * 4
    WHEN 'rms_norm' THEN 2 * e0 * b0 + norm_d * has_w * bw + (e0 / norm_d) * 4
    -- input read, output written; weight, bias, running mean and var (C each) read; in training
    -- the running stats written back and save_mean/save_invstd (fp32) written
    WHEN 'batch_norm' THEN 2 * e0 * b0
      + json_extract(dims, '$[0][1]')
        * (has_w * bw + has_b * bb + coalesce(b3 * (r3 > 0), 0) + coalesce(b4 * (r4 > 0), 0)
           + training * (coalesce(b3 * (r3 > 0), 0) + coalesce(b4 * (r4 > 0), 0) + 8))
  END AS bytes                        -- bytes moved by one call
FROM (
  -- Convolution output size per spatial dim (NULL when a needed argument is unknown; 1 past the
  -- last dim); backward masks
  SELECT
    g.*,
    CASE WHEN g.in0 IS NULL THEN 1
         WHEN g.c_pad = 'same' THEN g.in0
         WHEN g.transposed THEN (g.in0 - 1) * g.s0 - 2 * g.p0 + g.d0 * (g.k0 - 1) + coalesce(g.q0, 0) + 1
         ELSE (g.in0 + 2 * g.p0 - g.d0 * (g.k0 - 1) - 1) / g.s0 + 1 END AS o0,
    CASE WHEN g.in1 IS NULL THEN 1
         WHEN g.c_pad = 'same' THEN g.in1
         WHEN g.transposed THEN (g.in1 - 1) * g.s1 - 2 * g.p1 + g.d1 * (g.k1 - 1) + coalesce(g.q1, 0) + 1
         ELSE (g.in1 + 2 * g.p1 - g.d1 * (g.k1 - 1) - 1) / g.s1 + 1 END AS o1,
    CASE WHEN g.in2 IS NULL THEN 1
         WHEN g.c_pad = 'same' THEN g.in2
         WHEN g.transposed THEN (g.in2 - 1) * g.s2 - 2 * g.p2 + g.d2 * (g.k2 - 1) + coalesce(g.q2, 0) + 1
         ELSE (g.in2 + 2 * g.p2 - g.d2 * (g.k2 - 1) - 1) / g.s2 + 1 END AS o2,
    CASE WHEN g.transposed THEN json_extract(g.dims, '$[1][1]') * g.groups
         ELSE json_extract(g.dims, '$[1][0]') END AS c_out
  FROM (
    -- Convolution geometry: per spatial dim i (0..2) stride/padding/dilation/output padding,
    -- taking element i of a list, or its only element, or a plain integer. Norm sizes, reduced
    -- sizes, convolution_backward's output_mask ('[True, True, False]': input, weight, bias
    -- gradients; without it, input and weight gradients and no bias gradient).
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
        CASE json_type(z.c_outpad) WHEN 'integer' THEN json_extract(z.c_outpad, '$') END) END AS q2,
      coalesce(json_extract(z.mask_json, '$[0]'), 1) AS mask_in,
      coalesce(json_extract(z.mask_json, '$[1]'), 1) AS mask_w,
      coalesce(json_extract(z.mask_json, '$[2]'), 0) AS mask_b,
      CASE z.i_main WHEN 0 THEN z.n0 ELSE z.n1 END AS n_x,     -- conv_bwd: the input
      CASE z.i_gout WHEN 0 THEN z.n0 ELSE z.n1 END AS n_gout,  -- conv_bwd: grad_output
      -- norms: weight and bias present (a tensor with dims), their bytes per element
      CASE WHEN z.bw IS NOT NULL AND z.rw > 0 THEN 1 ELSE 0 END AS has_w,
      CASE WHEN z.bb IS NOT NULL AND z.rb > 0 THEN 1 ELSE 0 END AS has_b,
      CASE WHEN z.c_training IN ('True', 'true', '1') THEN 1 ELSE 0 END AS training,
      -- layer/RMS norm: elements normalised together (the weight's, else normalized_shape's)
      CASE WHEN z.bw IS NOT NULL AND z.rw > 0 THEN z.nw
           WHEN json_type(z.c_dim) = 'array' AND json_array_length(z.c_dim) BETWEEN 1 AND 4 THEN
             coalesce(json_extract(z.c_dim, '$[0]'), 1) * coalesce(json_extract(z.c_dim, '$[1]'), 1)
             * coalesce(json_extract(z.c_dim, '$[2]'), 1) * coalesce(json_extract(z.c_dim, '$[3]'), 1)
      END AS norm_d,
      -- reduce: product of the sizes of the reduced dims (no dim given: all of them)
      CASE WHEN z.c_dim IS NULL OR z.c_dim IN ('', 'None', '[]') THEN z.e0
           WHEN json_valid(z.c_dim) AND json_type(z.c_dim) IN ('array', 'integer') THEN
             coalesce(json_extract(z.dims, '$[0][' || (json_extract(z.dim_list, '$[0]')
               + CASE WHEN json_extract(z.dim_list, '$[0]') < 0 THEN z.r0 ELSE 0 END) || ']'), 1)
             * coalesce(json_extract(z.dims, '$[0][' || (json_extract(z.dim_list, '$[1]')
               + CASE WHEN json_extract(z.dim_list, '$[1]') < 0 THEN z.r0 ELSE 0 END) || ']'), 1)
             * coalesce(json_extract(z.dims, '$[0][' || (json_extract(z.dim_list, '$[2]')
               + CASE WHEN json_extract(z.dim_list, '$[2]') < 0 THEN z.r0 ELSE 0 END) || ']'), 1)
             * coalesce(json_extract(z.dims, '$[0][' || (json_extract(z.dim_list, '$[3]')
               + CASE WHEN json_extract(z.dim_list, '$[3]') < 0 THEN z.r0 ELSE 0 END) || ']'), 1)
      END AS reduced,
      -- gather: the size of the indexed dim
      json_extract(z.dims, '$[0][' || (json_extract(z.dim_list, '$[0]')
        + CASE WHEN json_extract(z.dim_list, '$[0]') < 0 THEN z.r0 ELSE 0 END) || ']') AS dim_size
    FROM (
      SELECT
        y.*,
        CASE WHEN json_valid(replace(replace(y.c_mask, 'True', '1'), 'False', '0'))
             THEN replace(replace(y.c_mask, 'True', '1'), 'False', '0') END AS mask_json,
        CASE WHEN json_valid(y.c_dim) THEN CASE json_type(y.c_dim)
          WHEN 'array' THEN y.c_dim WHEN 'integer' THEN '[' || y.c_dim || ']' END END AS dim_list,
        -- elementwise: elements of the output, the broadcast of inputs 0 and 1 (up to 6 dims)
        CASE WHEN y.family = 'elementwise' AND y.b0 IS NOT NULL THEN
          max(coalesce(json_extract(y.dims, '$[0][#-1]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-1]'), 1) ELSE 1 END)
          * max(coalesce(json_extract(y.dims, '$[0][#-2]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-2]'), 1) ELSE 1 END)
          * max(coalesce(json_extract(y.dims, '$[0][#-3]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-3]'), 1) ELSE 1 END)
          * max(coalesce(json_extract(y.dims, '$[0][#-4]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-4]'), 1) ELSE 1 END)
          * max(coalesce(json_extract(y.dims, '$[0][#-5]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-5]'), 1) ELSE 1 END)
          * max(coalesce(json_extract(y.dims, '$[0][#-6]'), 1),
              CASE WHEN y.b1 IS NOT NULL THEN coalesce(json_extract(y.dims, '$[1][#-6]'), 1) ELSE 1 END)
        END AS e_out,
        -- elements of the weight (norms)
        CASE WHEN y.rw BETWEEN 1 AND 4 THEN
          coalesce(json_extract(y.dims, '$[' || y.i_weight || '][0]'), 1)
          * coalesce(json_extract(y.dims, '$[' || y.i_weight || '][1]'), 1)
          * coalesce(json_extract(y.dims, '$[' || y.i_weight || '][2]'), 1)
          * coalesce(json_extract(y.dims, '$[' || y.i_weight || '][3]'), 1) END AS nw
      FROM (
        -- Ranks and element counts (up to 6 dims) of inputs 0..4: n0..n3 are NULL for a
        -- 0-dimensional input, e0..e4 count it as 1 element when it is a tensor (a known dtype)
        -- and are NULL for other arguments (Scalar, lists, strings); bytes per element b0..b4;
        -- the Concrete Inputs the model reads, as text ('[2, 2]', 'False', '1').
        SELECT
          x.*,
          json_array_length(x.dims, '$[0]') AS r0,
          json_array_length(x.dims, '$[1]') AS r1,
          json_array_length(x.dims, '$[2]') AS r2,
          json_array_length(x.dims, '$[3]') AS r3,
          json_array_length(x.dims, '$[4]') AS r4,
          json_array_length(x.dims, '$[' || x.i_weight || ']') AS rw,
          json_array_length(x.dims, '$[' || x.i_bias || ']') AS rb,
          CASE WHEN json_array_length(x.dims, '$[0]') BETWEEN 1 AND 6 THEN
            coalesce(json_extract(x.dims, '$[0][0]'), 1) * coalesce(json_extract(x.dims, '$[0][1]'), 1)
            * coalesce(json_extract(x.dims, '$[0][2]'), 1) * coalesce(json_extract(x.dims, '$[0][3]'), 1)
            * coalesce(json_extract(x.dims, '$[0][4]'), 1) * coalesce(json_extract(x.dims, '$[0][5]'), 1)
          END AS n0,
          CASE WHEN json_array_length(x.dims, '$[1]') BETWEEN 1 AND 6 THEN
            coalesce(json_extract(x.dims, '$[1][0]'), 1) * coalesce(json_extract(x.dims, '$[1][1]'), 1)
            * coalesce(json_extract(x.dims, '$[1][2]'), 1) * coalesce(json_extract(x.dims, '$[1][3]'), 1)
            * coalesce(json_extract(x.dims, '$[1][4]'), 1) * coalesce(json_extract(x.dims, '$[1][5]'), 1)
          END AS n1,
          CASE WHEN json_array_length(x.dims, '$[2]') BETWEEN 1 AND 6 THEN
            coalesce(json_extract(x.dims, '$[2][0]'), 1) * coalesce(json_extract(x.dims, '$[2][1]'), 1)
            * coalesce(json_extract(x.dims, '$[2][2]'), 1) * coalesce(json_extract(x.dims, '$[2][3]'), 1)
            * coalesce(json_extract(x.dims, '$[2][4]'), 1) * coalesce(json_extract(x.dims, '$[2][5]'), 1)
          END AS n2,
          CASE WHEN json_array_length(x.dims, '$[3]') BETWEEN 1 AND 6 THEN
            coalesce(json_extract(x.dims, '$[3][0]'), 1) * coalesce(json_extract(x.dims, '$[3][1]'), 1)
            * coalesce(json_extract(x.dims, '$[3][2]'), 1) * coalesce(json_extract(x.dims, '$[3][3]'), 1)
            * coalesce(json_extract(x.dims, '$[3][4]'), 1) * coalesce(json_extract(x.dims, '$[3][5]'), 1)
          END AS n3,
          CASE WHEN x.b0 IS NOT NULL AND json_array_length(x.dims, '$[0]') BETWEEN 0 AND 6 THEN
            coalesce(json_extract(x.dims, '$[0][0]'), 1) * coalesce(json_extract(x.dims, '$[0][1]'), 1)
            * coalesce(json_extract(x.dims, '$[0][2]'), 1) * coalesce(json_extract(x.dims, '$[0][3]'), 1)
            * coalesce(json_extract(x.dims, '$[0][4]'), 1) * coalesce(json_extract(x.dims, '$[0][5]'), 1)
          END AS e0,
          CASE WHEN x.b1 IS NOT NULL AND json_array_length(x.dims, '$[1]') BETWEEN 0 AND 6 THEN
            coalesce(json_extract(x.dims, '$[1][0]'), 1) * coalesce(json_extract(x.dims, '$[1][1]'), 1)
            * coalesce(json_extract(x.dims, '$[1][2]'), 1) * coalesce(json_extract(x.dims, '$[1][3]'), 1)
            * coalesce(json_extract(x.dims, '$[1][4]'), 1) * coalesce(json_extract(x.dims, '$[1][5]'), 1)
          END AS e1,
          CASE WHEN x.b2 IS NOT NULL AND json_array_length(x.dims, '$[2]') BETWEEN 0 AND 6 THEN
            coalesce(json_extract(x.dims, '$[2][0]'), 1) * coalesce(json_extract(x.dims, '$[2][1]'), 1)
            * coalesce(json_extract(x.dims, '$[2][2]'), 1) * coalesce(json_extract(x.dims, '$[2][3]'), 1)
            * coalesce(json_extract(x.dims, '$[2][4]'), 1) * coalesce(json_extract(x.dims, '$[2][5]'), 1)
          END AS e2,
          json_extract(x.concrete, '$[' || x.i_stride || ']') AS c_stride,
          json_extract(x.concrete, '$[' || x.i_pad || ']') AS c_pad,
          json_extract(x.concrete, '$[' || x.i_dil || ']') AS c_dil,
          json_extract(x.concrete, '$[' || x.i_outpad || ']') AS c_outpad,
          json_extract(x.concrete, '$[' || x.i_groups || ']') AS c_groups,
          CASE WHEN x.i_transposed = -1 THEN 'True'
               ELSE json_extract(x.concrete, '$[' || x.i_transposed || ']') END AS c_transposed,
          json_extract(x.concrete, '$[' || x.i_mask || ']') AS c_mask,
          json_extract(x.concrete, '$[' || x.i_causal || ']') AS c_causal,
          json_extract(x.concrete, '$[' || x.i_dim || ']') AS c_dim,
          json_extract(x.concrete, '$[' || x.i_training || ']') AS c_training
        FROM (
          -- The op, its model, its args, and bytes per element of the weight and the bias (NULL:
          -- not a tensor of a known dtype; those of the main input and inputs 0..4: level v)
          SELECT
            w.*,
            CASE w.t_main
              WHEN 'c10::BFloat16' THEN 'bf16' WHEN 'c10::Half' THEN 'fp16' WHEN 'float' THEN 'fp32'
              WHEN 'double' THEN 'fp64' ELSE w.t_main END AS dtype,
            CASE WHEN w.t_w IN ('c10::BFloat16', 'c10::Half') THEN 2 WHEN w.t_w = 'float' THEN 4
                 WHEN w.t_w = 'double' THEN 8 END AS bw,
            CASE WHEN w.t_b IN ('c10::BFloat16', 'c10::Half') THEN 2 WHEN w.t_b = 'float' THEN 4
                 WHEN w.t_b = 'double' THEN 8 END AS bb
          FROM (
            SELECT
              v.*,
              json_extract(v.types, '$[' || v.i_main || ']') AS t_main,
              json_extract(v.types, '$[0]') AS t0, json_extract(v.types, '$[1]') AS t1,
              json_extract(v.types, '$[2]') AS t2, json_extract(v.types, '$[3]') AS t3,
              json_extract(v.types, '$[4]') AS t4,
              json_extract(v.types, '$[' || v.i_weight || ']') AS t_w,
              json_extract(v.types, '$[' || v.i_bias || ']') AS t_b
            FROM (
              SELECT
                o.id AS op_event_id, o.name, m.family, m.category, m.i_main, m.i_weight, m.i_bias,
                m.i_stride, m.i_pad, m.i_dil, m.i_transposed, m.i_outpad, m.i_groups, m.i_gout,
                m.i_mask, m.layout, m.i_causal, m.i_dim, m.i_training,
                s.input_dims AS dims, s.input_type AS types,
                -- (read only at the positions op_models gives, so for the models that use them;
                -- joined, not looked up per use: flattened into the levels above, a subquery per
                -- use of a column made the statement three times larger and slower to prepare)
                json_extract(o.arg_values, k.path) AS concrete,
                -- bytes per element of the main input and of inputs 0..4 (table dtype_sizes; NULL:
                -- not a tensor of a known dtype)
                sm.bytes AS bpe, s0.bytes AS b0, s1.bytes AS b1, s2.bytes AS b2, s3.bytes AS b3,
                s4.bytes AS b4
              FROM events AS o
              JOIN op_models AS m ON m.name = o.name
              LEFT JOIN input_shapes AS s ON s.id = o.input_shape_id
              LEFT JOIN arg_keys AS k ON k.shape_id = o.arg_shape_id AND k.key = 'Concrete Inputs'
              LEFT JOIN dtype_sizes AS sm ON sm.type = json_extract(s.input_type, '$[' || m.i_main || ']')
              LEFT JOIN dtype_sizes AS s0 ON s0.type = json_extract(s.input_type, '$[0]')
              LEFT JOIN dtype_sizes AS s1 ON s1.type = json_extract(s.input_type, '$[1]')
              LEFT JOIN dtype_sizes AS s2 ON s2.type = json_extract(s.input_type, '$[2]')
              LEFT JOIN dtype_sizes AS s3 ON s3.type = json_extract(s.input_type, '$[3]')
              LEFT JOIN dtype_sizes AS s4 ON s4.type = json_extract(s.input_type, '$[4]')
              WHERE o.cat IN ('cpu_op', 'Operator')
            ) AS v
          ) AS w
        ) AS x
      ) AS y
    ) AS z
  ) AS g
);
