-- Case: flows_ac2g
-- Checks ac2g flow rows (one per end point bound to its start; start without end -> one row with
-- dst NULL; end without start -> one row with src NULL), keyed by (cat, id):
--   11: s @110 lies inside aten::mm [100,150) and cudaLaunchKernel [110,120): binds to the innermost,
--       cudaLaunchKernel (corr 11); f @150 bp "e" -> the gemm kernel (name has a comma: CSV-quoted).
--   12: CUDA graph: one s on cudaGraphLaunch, three f (one written before its kernel) -> three rows,
--       graph_a/graph_b/graph_c.
--   13: s without f -> dst NULL.
--   14: f (bp "e") without s, sitting on the CPU runtime call cudaEventQuery -> src NULL.
--   15: f @215 WITHOUT bp "e" binds to the next slice starting at or after 215 on (0,7): k_next @220,
--       although graph_c [200,218) contains 215. dst_ts is the end point's own ts (215000).
--   16: f without s on a kernel -> src NULL.
-- src_ts/dst_ts are the flow points' ts in ns.
SELECT f.cat, f.name, f.flow_id, s.name AS src_name, s.correlation AS src_corr, f.src_ts,
       d.name AS dst_name, d.correlation AS dst_corr, f.dst_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.cat, f.flow_id, f.dst_ts;
