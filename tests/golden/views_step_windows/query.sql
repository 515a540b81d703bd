-- Case: views_step_windows
-- Three ProfilerSteps (us in the file, ns here). Step 1: CPU [100,230), launches gemm_a, which runs
-- [150,220): window [100, max(230, 220)) = [100,230). Step 2: CPU [230,250), launches gemm_b
-- [270,290): window from max(230, previous end 230) to max(250, 290): [230,290). Step 3: CPU
-- [400,410), launches nothing: [max(400, 290), 410) = [400,410). copy_c [200,300) has no launch.
SELECT trace_id, step, cpu_ts, cpu_dur, gpu_ops, w_ts, w_end FROM step_windows ORDER BY trace_id, cpu_ts;

-- Names: gemm_a 1, copy_c 2, gemm_b 3. Device 0's pieces: [150,200) '1', [200,220) '1,2',
-- [220,270) '2', [270,290) '2,3', [290,300) '2'. Window 1 [100,230): the pieces starting in it,
-- the last clipped at 230: '1' 50, '1,2' 20, '2' 230-220 = 10 (80 ns of 130 busy). Window 2
-- [230,290): [220,270) started before it and runs into it: '2' 270-230 = 40; [270,290) inside:
-- '2,3' 20 (busy throughout). Window 3: no piece starts in it, and the last one before it
-- ([290,300)) ends before it: no row. [290,300) lies between windows: in none.
SELECT trace_id, step, device, name_ids, ns FROM step_window_busy ORDER BY trace_id, step, name_ids;
