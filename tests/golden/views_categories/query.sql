-- Case: views_categories
-- Category views over modern Kineto categories (DESIGN "Category views"; sql/views/010_categories.sql):
--   cpu_ops        cpu_op only (not user_annotation, python_function, runtime calls)
--   runtime_calls  cuda_runtime, cuda_driver (cuLaunchKernelEx), mtia_runtime
--   kernels        kernel
--   gpu_ops        kernels, memcpys, memsets (kind); NOT cuda_sync nor gpu_user_annotation. device /
--                  stream from args, falling back to the GPU track's pid / tid when the args lack them
--                  (k2 on pid 3, tid 9 has only a correlation arg)
--   annotations    user_annotation (side cpu) and gpu_user_annotation (side gpu)
SELECT name, cat FROM cpu_ops ORDER BY ts;

SELECT name, cat, correlation FROM runtime_calls ORDER BY ts;

SELECT name, cat FROM kernels ORDER BY ts;

SELECT name, cat, kind, device, stream, ts, dur, end_ts, correlation FROM gpu_ops ORDER BY ts;

SELECT name, cat, side, ts, dur FROM annotations ORDER BY side, ts;
