-- Case: flows_unbound
-- Checks flow points that have a partner but bind to no slice (every id here has both s and f):
--   1: s @8 on (1,1): no slice contains 8 (cudaLaunchKernel starts at 10) -> src_event_id NULL,
--      src_ts still 8000; f @50 binds to k1.
--   2: f @100 bp "e" on (0,7): the memcpy [90,95) has ended -> dst NULL.
--   3: f @500 without bp: no slice on (0,7) starts at or after 500 -> dst NULL.
-- import_stats (rule applied: "unbound" = a flow point that no slice binds to, NOT a missing
-- partner): flow_starts_unbound = 1, flow_ends_unbound = 2.
SELECT f.cat, f.name, f.flow_id, s.name AS src_name, s.correlation AS src_corr, f.src_ts,
       d.name AS dst_name, d.correlation AS dst_corr, f.dst_ts
FROM flows AS f
LEFT JOIN events AS s ON s.id = f.src_event_id
LEFT JOIN events AS d ON d.id = f.dst_event_id
ORDER BY f.cat, f.flow_id, f.dst_ts;

SELECT name, value
FROM import_stats
WHERE name IN ('flow_starts_unbound', 'flow_ends_unbound') AND value > 0
ORDER BY name;
