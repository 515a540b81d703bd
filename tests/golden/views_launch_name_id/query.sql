-- Case: views_launch_name_id
-- op_kernel_links.launch_name_id: the lowest events.id among the trace's launch calls with the
-- launch call's name; NULL without a launch. Ids are per trace (the same name in two traces gets
-- two ids) and the id's events row carries the name.
-- trace 1 (views_flow_only_link's trace with k_both written before k_nocorr): triton_k launched by
--   cuLaunchKernel 4 (flow only) -> 4; k_both by cudaLaunchKernel 6 (correlation 40) and k_nocorr
--   by cudaLaunchKernel 5 (async flow): both 5, the lower id, though k_both comes first;
--   k_fwdbwd has no launch -> NULL (cudaMemsetAsync 7 launches nothing: it names no row).
-- trace 2 (views_idle_gaps_causes' trace): five ops launched by cudaLaunchKernel 19, 20, 21, 23,
--   24 -> 19 each; d0k2 (correlation 99, no call) -> NULL.
SELECT k.trace_id, k.gpu_event_id, g.name AS gpu_name, k.launch_event_id, l.name AS launch_name,
       k.launch_name_id, n.name AS name_of_id
FROM op_kernel_links AS k
JOIN events AS g ON g.id = k.gpu_event_id
LEFT JOIN events AS l ON l.id = k.launch_event_id
LEFT JOIN events AS n ON n.id = k.launch_name_id
ORDER BY k.gpu_event_id;

-- Per (trace, launch call name): one id, its lowest call.
SELECT k.trace_id, l.name AS launch_name, count(*) AS ops, count(DISTINCT k.launch_name_id) AS ids,
       min(k.launch_name_id) AS launch_name_id, min(k.launch_event_id) AS lowest_call
FROM op_kernel_links AS k JOIN events AS l ON l.id = k.launch_event_id
GROUP BY k.trace_id, l.name
ORDER BY k.trace_id, l.name;
