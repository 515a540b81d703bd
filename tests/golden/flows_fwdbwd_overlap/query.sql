-- Case: flows_fwdbwd_overlap
-- Checks that flows are keyed by (cat, id): fwdbwd id 1 and ac2g id 1 are different flows.
--   ac2g 1:   s @110 on cudaLaunchKernel [110,120) (innermost; aten::mul [100,140) also contains
--             110) -> mul_kernel
--   fwdbwd 1: s @100 on aten::mul (main thread) -> f @300 on the autograd thread (1,2) ->
--             "autograd::engine::evaluate_function: MulBackward0" (its child MulBackward0 starts
--             later, at 301, so it does not contain 300)
--   fwdbwd 2: aten::add -> "autograd::engine::evaluate_function: AddBackward0"
-- Also: promoted seq_num ('Sequence number') and fwd_thread_id ('Fwd thread id'), external_id,
-- correlation.
SELECT f.cat, f.name, f.flow_id, s.name AS src_name, s.correlation AS src_corr, f.src_ts,
       d.name AS dst_name, d.correlation AS dst_corr, f.dst_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.cat, f.flow_id, f.dst_ts;

SELECT e.tid, e.name, e.external_id, e.correlation, e.seq_num, e.fwd_thread_id, e.depth
FROM events AS e
ORDER BY e.ts;
