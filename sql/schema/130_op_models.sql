-- op_models: the CPU ops whose FLOPs and bytes tracesql computes from their recorded shapes
-- (record_shapes), with the family of formulas (view op_costs) and the category each belongs to.
-- Read by the views op_costs and matrix_ops (built at import) and the bundled queries gemm_flops
-- (categories GEMM, conv, attention) and op_roofline (all). A table the schema fills, like
-- device_peaks: a statement reading it has no list of 116 rows to compile (a view of VALUES cost
-- each statement over op_costs about 3 ms more, on every connection). A row inserted
-- here (an op of one's own costed by an existing family) counts in op_costs and the queries at
-- once, and in matrix_ops in databases imported after.
-- The i_* columns are 0-based positions in the op's arguments ('Input Dims', 'Input type',
-- 'Concrete Inputs'); NULL where the family does not use it. Family 'none': the category is known,
-- the cost is not modelled (flops and bytes NULL).
CREATE TABLE op_models (
  name TEXT NOT NULL PRIMARY KEY,     -- op name (aten::mm, ...)
  family TEXT NOT NULL,               -- formulas in op_costs: mm, addmm, bmm, baddbmm, linear, matmul,
                                      -- conv, conv_bwd, sdpa, sdpa_bwd, elementwise, copy, fill,
                                      -- reduce, softmax, softmax_bwd, layer_norm, rms_norm,
                                      -- batch_norm, embedding, gather, none
  category TEXT NOT NULL,             -- GEMM, conv, attention, elementwise, reduction, norm, memory
  i_main INTEGER,                     -- input whose dtype sets bytes per element and the peak
  i_weight INTEGER,                   -- norms: the weight (gamma)
  i_bias INTEGER,                     -- linear/conv: bias; norms: beta
  i_stride INTEGER,                   -- conv: Concrete Inputs position of the stride
  i_pad INTEGER,                      -- conv: of the padding
  i_dil INTEGER,                      -- conv: of the dilation
  i_transposed INTEGER,               -- conv: of the transposed flag (-1: always transposed)
  i_outpad INTEGER,                   -- conv: of the output padding
  i_groups INTEGER,                   -- conv: of the groups
  i_gout INTEGER,                     -- conv_bwd: grad_output
  i_mask INTEGER,                     -- conv_bwd: output_mask
  layout TEXT,                        -- sdpa: 'bhnd' (aten) or 'bnhd' (flash_attn, aten::_flash_*)
  i_causal INTEGER,                   -- sdpa: the causal flag
  i_dim INTEGER,                      -- reduce, softmax, gather: the dim argument; layer/RMS norm:
                                      -- normalized_shape
  i_training INTEGER,                 -- batch_norm: the training flag (NULL: inference)
  uses_concrete INTEGER NOT NULL      -- 1: the cost reads 'Concrete Inputs' (one of the positions
                                      -- i_stride ... i_training is set)
);

INSERT INTO op_models
SELECT
  ns || '::' || op, family, category, i_main, i_weight, i_bias, i_stride, i_pad, i_dil,
  i_transposed, i_outpad, i_groups, i_gout, i_mask, layout, i_causal, i_dim, i_training,
  i_stride IS NOT NULL OR i_pad IS NOT NULL OR i_dil IS NOT NULL OR i_transposed IS NOT NULL
    OR i_outpad IS NOT NULL OR i_groups IS NOT NULL OR i_mask IS NOT NULL OR i_causal IS NOT NULL
    OR i_dim IS NOT NULL OR i_training IS NOT NULL
FROM (
  -- GEMMs, convolutions, attention (the formulas of gemm_flops)
  SELECT column1 AS ns, column2 AS op, column3 AS family, column4 AS category, column5 AS i_main,
         NULL AS i_weight, column6 AS i_bias, column7 AS i_stride, column8 AS i_pad,
         column9 AS i_dil, column10 AS i_transposed, column11 AS i_outpad, column12 AS i_groups,
         column13 AS i_gout, column14 AS i_mask, column15 AS layout, column16 AS i_causal,
         NULL AS i_dim, NULL AS i_training
  FROM (VALUES
  ('aten', 'mm',       'mm',      'GEMM', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'addmm',    'addmm',   'GEMM', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'bmm',      'bmm',     'GEMM', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'baddbmm',  'baddbmm', 'GEMM', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'linear',   'linear',  'GEMM', 0, 2,    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'matmul',   'matmul',  'GEMM', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('aten', 'conv1d',   'conv',    'conv', 0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'conv2d',   'conv',    'conv', 0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'conv3d',   'conv',    'conv', 0, 2,    3,    4,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'convolution',  'conv', 'conv', 0, 2,   3,    4,    5,    6,    7,    8,    NULL, NULL, NULL, NULL),
  ('aten', '_convolution', 'conv', 'conv', 0, 2,   3,    4,    5,    6,    7,    8,    NULL, NULL, NULL, NULL),
  ('aten', 'cudnn_convolution', 'conv', 'conv', 0, NULL, 3, 2, 4,    NULL, NULL, 5,    NULL, NULL, NULL, NULL),
  ('aten', 'cudnn_convolution_transpose', 'conv', 'conv', 0, NULL, 4, 2, 5, -1, 3, 6,  NULL, NULL, NULL, NULL),
  ('aten', 'miopen_convolution', 'conv', 'conv', 0, 2, 4,    3,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  ('aten', 'mkldnn_convolution', 'conv', 'conv', 0, 2, 4,    3,    5,    NULL, NULL, 6,    NULL, NULL, NULL, NULL),
  -- convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  --   transposed, output_padding, groups, output_mask); 2020-21 cudnn_convolution_backward(self,
  --   grad_output, weight, padding, stride, dilation, groups, benchmark, deterministic,
  --   allow_tf32, output_mask)
  ('aten', 'convolution_backward',       'conv_bwd', 'conv', 1, NULL, NULL, NULL, NULL, 7, NULL, 9, 0, 10, NULL, NULL),
  ('aten', 'cudnn_convolution_backward', 'conv_bwd', 'conv', 0, NULL, NULL, NULL, NULL, NULL, NULL, 6, 1, 10, NULL, NULL),
  ('aten', 'scaled_dot_product_attention',             'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 5),
  ('aten', '_scaled_dot_product_flash_attention',      'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 4),
  ('aten', '_scaled_dot_product_efficient_attention',  'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 6),
  ('aten', '_scaled_dot_product_cudnn_attention',      'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 6),
  ('aten', '_flash_attention_forward',                 'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 8),
  ('aten', '_efficient_attention_forward',             'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 9),
  ('flash_attn', '_flash_attn_forward',                'sdpa', 'attention', 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 5),
  ('aten', '_scaled_dot_product_flash_attention_backward',     'sdpa_bwd', 'attention', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 11),
  ('aten', '_scaled_dot_product_efficient_attention_backward', 'sdpa_bwd', 'attention', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 11),
  ('aten', '_scaled_dot_product_cudnn_attention_backward',     'sdpa_bwd', 'attention', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bhnd', 14),
  ('aten', '_flash_attention_backward',                        'sdpa_bwd', 'attention', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 11),
  ('flash_attn', '_flash_attn_backward',                       'sdpa_bwd', 'attention', 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'bnhd', 11)
  )
  UNION ALL
  -- Elementwise, reductions, softmax, norms, embedding, copies: (ns, op, family, category, i_main,
  -- i_weight, i_bias, i_dim, i_training)
  SELECT column1, column2, column3, column4, column5, column6, column7, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL, column8, column9
  FROM (VALUES
  ('aten', 'add',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'add_',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sub',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sub_',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'rsub',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'mul',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'mul_',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'div',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'div_',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'maximum', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'minimum', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'pow',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'pow_',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'relu',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'relu_',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'gelu',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'gelu_',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'silu',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'silu_',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sigmoid', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sigmoid_','elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'tanh',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'tanh_',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'exp',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'log',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'neg',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'abs',     'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sqrt',    'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'rsqrt',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'reciprocal', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp_',  'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp_min',  'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp_min_', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp_max',  'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'clamp_max_', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'gelu_backward',      'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'silu_backward',      'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'sigmoid_backward',   'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'tanh_backward',      'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'threshold_backward', 'elementwise', 'elementwise', 0, NULL, NULL, NULL, NULL),
  ('aten', 'copy_',   'copy',        'memory', 1, NULL, NULL, NULL, NULL),
  ('aten', 'fill_',   'fill',        'memory', 0, NULL, NULL, NULL, NULL),
  ('aten', 'zero_',   'fill',        'memory', 0, NULL, NULL, NULL, NULL),
  ('aten', 'embedding',    'embedding', 'memory', 0, NULL, NULL, NULL, NULL),
  ('aten', 'index_select', 'gather',    'memory', 0, NULL, NULL, 1, NULL),
  ('aten', 'sum',     'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'mean',    'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'amax',    'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'amin',    'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'argmax',  'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'argmin',  'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'prod',    'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'logsumexp', 'reduce',    'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'std',     'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'var',     'reduce',      'reduction', 0, NULL, NULL, 1, NULL),
  ('aten', 'norm',    'reduce',      'reduction', 0, NULL, NULL, 2, NULL),
  ('aten', 'linalg_vector_norm', 'reduce', 'reduction', 0, NULL, NULL, 2, NULL),
  ('aten', 'softmax',      'softmax',     'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', '_softmax',     'softmax',     'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', 'log_softmax',  'softmax',     'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', '_log_softmax', 'softmax',     'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', '_softmax_backward_data',     'softmax_bwd', 'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', '_log_softmax_backward_data', 'softmax_bwd', 'reduction', 0, NULL, NULL, NULL, NULL),
  ('aten', 'layer_norm',        'layer_norm', 'norm', 0, 2, 3, 1, NULL),
  ('aten', 'native_layer_norm', 'layer_norm', 'norm', 0, 2, 3, 1, NULL),
  ('aten', 'rms_norm',          'rms_norm',   'norm', 0, 2, NULL, 1, NULL),
  ('aten', '_fused_rms_norm',   'rms_norm',   'norm', 0, 2, NULL, 1, NULL),
  ('aten', 'batch_norm',        'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', '_batch_norm_impl_index', 'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', 'native_batch_norm', 'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', '_native_batch_norm_legit', 'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', '_native_batch_norm_legit_no_training', 'batch_norm', 'norm', 0, 1, 2, NULL, NULL),
  ('aten', 'cudnn_batch_norm',  'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', 'miopen_batch_norm', 'batch_norm', 'norm', 0, 1, 2, NULL, 5),
  ('aten', 'native_layer_norm_backward', 'none', 'norm', 1, NULL, NULL, NULL, NULL),
  ('aten', 'native_batch_norm_backward', 'none', 'norm', 1, NULL, NULL, NULL, NULL),
  ('aten', 'cudnn_batch_norm_backward',  'none', 'norm', 0, NULL, NULL, NULL, NULL),
  ('aten', 'miopen_batch_norm_backward', 'none', 'norm', 0, NULL, NULL, NULL, NULL),
  ('aten', '_fused_rms_norm_backward',   'none', 'norm', 1, NULL, NULL, NULL, NULL),
  ('aten', 'native_group_norm',          'none', 'norm', 0, NULL, NULL, NULL, NULL),
  ('aten', 'native_group_norm_backward', 'none', 'norm', 1, NULL, NULL, NULL, NULL),
  ('aten', 'embedding_dense_backward',   'none', 'memory', 0, NULL, NULL, NULL, NULL),
  ('aten', '_scaled_mm',                 'none', 'GEMM', 0, NULL, NULL, NULL, NULL),
  ('aten', '_cudnn_attention_forward',   'none', 'attention', 0, NULL, NULL, NULL, NULL),
  ('aten', '_cudnn_attention_backward',  'none', 'attention', 0, NULL, NULL, NULL, NULL),
  ('aten', '_efficient_attention_backward', 'none', 'attention', 0, NULL, NULL, NULL, NULL)
  )
);
