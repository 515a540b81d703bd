-- matrix_ops: the GEMMs, convolutions and attention ops of a trace (op_models categories GEMM, conv,
-- attention with a cost model), one row per CPU op that has no other one of them inside it, with the
-- GPU ops launched in its subtree. aten::linear, aten::matmul, aten::conv2d,
-- aten::scaled_dot_product_attention ... are wrappers: where they call aten::addmm, aten::mm,
-- aten::cudnn_convolution, aten::_flash_attention_forward ... only the innermost op is a row, so
-- nothing is counted twice; a wrapper is a row when nothing modelled runs inside it. The bundled
-- query gemm_flops (and the rule gemm_below_peak through it) groups these rows by shape instead of
-- testing every CPU op of the trace and its nesting.
-- GPU ops: those whose launch call lies inside the op on its thread (op_kernel_links rows with
-- launch_thread_id = the op's thread and launch_ts in [op start, op end]).
-- @materialize
CREATE VIEW matrix_ops AS
SELECT
  o.id AS op_event_id,                -- the CPU op (events.id)
  o.trace_id,                         -- trace
  o.name,                             -- its name (op_models.name)
  o.input_shape_id,                   -- its events.input_shape_id (Input Dims / Input type)
  CASE WHEN o.name IN (SELECT m.name FROM op_models AS m WHERE m.uses_concrete)
    THEN (SELECT substr(substr(json_extract(o.arg_values, k.path, '$[2147483647]'), -6, -2147483647), 2)
            FROM arg_keys AS k WHERE k.shape_id = o.arg_shape_id AND k.key = 'Concrete Inputs')
  END AS concrete,                    -- its args 'Concrete Inputs' as JSON text, exactly as stored,
                                      -- for the models that read them (op_models.uses_concrete);
                                      -- else NULL
  coalesce(sum(g.gpu_dur), 0) AS gpu_time,  -- summed duration of those GPU ops (ns); 0 when none
  count(g.gpu_event_id) AS gpu_ops,   -- GPU ops launched in its subtree
  min(g.device) AS device             -- the lowest device they ran on; NULL when none
-- the CPU ops, read per trace in id order (the cpu_ops view spelled out: grouping needs no sort)
FROM event_ranges AS r
JOIN events AS o ON o.id BETWEEN r.first_id AND r.last_id
LEFT JOIN op_kernel_links AS g
  ON g.launch_thread_id = o.thread_id AND g.launch_ts >= o.ts AND g.launch_ts <= o.ts + o.dur
WHERE r.kind = 'cpu_op'
  AND o.name IN (SELECT m.name FROM op_models AS m
                 WHERE m.category IN ('GEMM', 'conv', 'attention') AND m.family <> 'none')
  AND o.cat IN ('cpu_op', 'Operator')
  AND NOT EXISTS (
    SELECT 1 FROM events AS d
    WHERE d.thread_id = o.thread_id
      AND d.ts >= o.ts AND d.ts < o.ts + o.dur
      AND d.id BETWEEN r.first_id AND r.last_id  -- a CPU op: tested in the index, before the row
      AND d.depth > o.depth
      AND d.name IN (SELECT m.name FROM op_models AS m
                     WHERE m.category IN ('GEMM', 'conv', 'attention') AND m.family <> 'none')
      AND d.ts + d.dur <= o.ts + o.dur
      AND d.cat IN ('cpu_op', 'Operator'))
GROUP BY r.trace_id, o.id;
