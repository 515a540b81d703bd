-- Case: flows_legacy_2022
-- Checks 2022 legacy flow categories, which put bp "e" on the START too: async_gpu (Meta build,
-- flow name "cudaLaunchKernel") and async_cpu_to_gpu (flow name "async_gpu"). bp on an s changes
-- nothing: a start binds to the innermost slice containing its ts (the s @..740010 lies inside
-- aten::addmm [..740000, ..740100) and cudaLaunchKernel [..740010, ..740030) -> cudaLaunchKernel).
-- flows.cat/name keep the original spelling; 'external id' 0 is promoted to external_id 0.
SELECT f.cat, f.name, f.flow_id, s.name AS src_name, s.correlation AS src_corr, f.src_ts,
       d.name AS dst_name, d.correlation AS dst_corr, f.dst_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.cat, f.flow_id, f.dst_ts;

SELECT e.name, e.cat, e.ts, e.external_id, e.correlation
FROM events AS e
ORDER BY e.ts;
