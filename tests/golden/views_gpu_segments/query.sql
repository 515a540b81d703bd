-- Case: views_gpu_segments
-- gpu_segments cuts each device's busy time at every start and end of an op that takes time.
-- Names (gpu_op_names, kernels before memcpys): 1 gemm, 2 nccl_allreduce, 3 zero_len, 4 negative,
-- 5 Memcpy HtoD. Trace 1 (us in the file, ns here), device 0: gemm [100,150), nccl [120,220),
-- gemm [160,180) and [180,190) (touching: a cut at 180, the same name on both sides), memcpy
-- [250,280) with a gemm on another stream [255,265); zero_len (dur 0) and negative (dur -5) take no
-- time: no piece, no cut. Cuts 100 120 150 160 180 190 220 250 255 265 280 give:
--   [100,120) gemm '1'   [120,150) gemm+nccl '1,2'   [150,160) nccl '2'   [160,180) '1,2'
--   [180,190) '1,2'      [190,220) '2'               [220,250) nothing runs: no row
--   [250,255) '5'        [255,265) '1,5'             [265,280) '5'
-- Device 1: gemm [100,140) '1'. The gemm on pid "GPU X" has no device (string pid, no device arg):
-- device NULL, [500,510) '1'. seq numbers a trace's pieces in (device, ts) order, NULL device
-- first: NULL 1, device 0 2..10, device 1 11; rows come in (trace_id, ts, seq) order, the key.
-- Trace 2: one gemm [100,105) on device 0: seq 1.
SELECT trace_id, ts, seq, device, dur, name_ids FROM gpu_segments ORDER BY trace_id, ts, seq;

-- Busy time per device three ways: the pieces, the span minus idle_gaps, and by hand (device 0:
-- 20+30+10+20+10+30+5+10+15 = 150 us; idle_gaps' span is that of the ops with dur >= 0, 100..300
-- (the zero-length op at 300 widens it, the negative one does not count), minus its gaps [220,250)
-- and [280,300): 200 - 30 - 20 = 150 us).
SELECT g.trace_id, g.device, sum(g.dur) AS pieces_ns,
       (SELECT max(gpu_ts + gpu_dur) - min(gpu_ts) FROM op_kernel_links AS o
         WHERE o.trace_id = g.trace_id AND o.device IS g.device AND o.gpu_dur >= 0)
       - coalesce((SELECT sum(i.dur) FROM idle_gaps AS i WHERE i.trace_id = g.trace_id AND i.device IS g.device), 0)
         AS span_minus_idle_ns
FROM gpu_segments AS g
GROUP BY g.trace_id, g.device
ORDER BY g.trace_id, g.device;

-- gpu_name_sets: each distinct name_ids above ('1', '1,2', '2', '5', '1,5'), one row per member.
SELECT name_ids, name_id FROM gpu_name_sets ORDER BY name_ids, name_id;
