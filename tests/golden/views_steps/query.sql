-- Case: views_steps
-- steps (view header): one row per host ProfilerStep#N annotation, with the GPU extent (first start,
-- last end) of the GPU ops LAUNCHED inside it -- not of the ops that merely run during its CPU time.
-- A host event belongs to the step whose [ts, end) contains its start, on any thread of the trace;
-- GPU ops take their launch's step (ANALYSES 16 "Iteration"; events.step comment).
--   step 5 [100,300): launches k1 (runs [200,220)) and k2 (runs [400,450), during step 6's CPU time)
--                     -> gpu [200000, 450000), 2 ops
--   step 6 [300,500): cudaLaunchKernel at exactly 300 (k3 [460,470)), cudaMemcpyAsync (DtoD memcpy
--                     [480,490)), and thread 2's launch at 320 (k5 [600,650) on stream 8)
--                     -> gpu [460000, 650000), 3 ops
--   step 7 [520,600): launched nothing -> gpu_ts, gpu_end_ts NULL
-- k0 is launched at 50, before any step: step NULL. The GPU-side gpu_user_annotation
-- "ProfilerStep#5" is not a step row.
SELECT step, ts, dur, end_ts, gpu_ts, gpu_end_ts FROM steps ORDER BY step;

SELECT step, gpu_ops FROM steps WHERE gpu_ts IS NOT NULL ORDER BY step;

SELECT gpu_name, launch_ts, step FROM op_kernels ORDER BY gpu_ts;
