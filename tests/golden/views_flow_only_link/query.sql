-- Case: views_flow_only_link
-- op_kernels' second way to a launch (DESIGN: "the runtime call with the same correlation id in the
-- same trace (or the ac2g flow)"; view header: where no runtime call carries the correlation, the
-- source of a launch flow -- ac2g and its legacy names -- bound to the op):
--   triton_k  correlation 21, but its launch (cuda_driver cuLaunchKernel, as Triton writes it) has no
--             correlation arg: found through the ac2g flow 21 -> cuLaunchKernel, op triton_op.
--   k_nocorr  no correlation arg; legacy "async" flow 22 from a cudaLaunchKernel whose correlation is
--             30 -> that call (aten::add).
--   k_both    correlation 40 matches cudaLaunchKernel @130, while an ac2g flow (41) points at it from
--             cudaMemsetAsync @135: the correlation wins -> launch_ts 130000.
--   k_fwdbwd  only a fwdbwd flow (not a launch flow) ends on it: no launch.
SELECT gpu_name, ok.correlation, launch_name, launch_ts, l.correlation AS launch_corr, op_name,
       launch_delay
FROM op_kernels AS ok
LEFT JOIN events AS l ON l.id = ok.launch_event_id
ORDER BY gpu_ts;
