-- Case: views_steps_no_launch
-- steps.gpu_ops is "the number of GPU ops launched in the step" (view header): a count, so a step that
-- launched nothing has gpu_ops 0, while its GPU extent (gpu_ts, gpu_end_ts) is NULL. Step 1 launched
-- k1 (which runs during step 2's CPU time, [210,230) us); step 2 launched nothing.
SELECT step, ts, end_ts, gpu_ts, gpu_end_ts, gpu_ops FROM steps ORDER BY step;
