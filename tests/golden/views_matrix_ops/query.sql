-- Case: views_matrix_ops
-- matrix_ops: the innermost GEMM / conv / attention ops (the trace of q_gemm_flops). aten::linear
-- at 300 us calls aten::addmm: only the addmm is a row; aten::linear at 500 us calls nothing
-- modelled: a row. aten::scaled_dot_product_attention calls the flash op: only the flash op.
-- concrete: 'Concrete Inputs' exactly as stored, only for the models that read them (convolution,
-- convolution_backward, attention); NULL for the GEMMs. aten::matmul launched nothing: gpu_time 0,
-- gpu_ops 0, device NULL.
SELECT m.trace_id, m.name, e.ts, s.input_dims, m.concrete,
       m.gpu_time, m.gpu_ops, m.device
FROM matrix_ops AS m
JOIN events AS e ON e.id = m.op_event_id
LEFT JOIN input_shapes AS s ON s.id = m.input_shape_id
ORDER BY m.rowid;
