-- Case: views_stream_idle_gaps
-- HTA's per-stream idle breakdown (ANALYSES 3; view header). Device 0 stream 7 runs A..H, launched by
-- cudaLaunchKernel calls (correlation) on thread (1,1); stream 8 has one op (P: no interval);
-- device 1 also has a stream 7 (Q, R, no launches) which must not mix with device 0's.
-- Per stream, ops by start; dur = next start - previous op's end (signed, not clipped);
--   host_wait   next op's launch call started after the previous op ended (strictly);
--   kernel_wait else if dur < 30 us (30000 ns);  other  else.
--   A->B  prev end 150, launch 120, 10 us            -> kernel_wait
--   B->C  prev end 170, launch 200 > 170             -> host_wait (80 us)
--   C->D  prev end 300, launch 130 (queued early)    -> other (80 us)
--   D->E  E [395,410) starts before D ends at 400    -> dur -5000 (negative, kept), kernel_wait
--   E->F  prev end 410, F at 440: exactly 30 us      -> not < 30 us: other
--   F->G  G has no launch (correlation 77): never host_wait; 10 us -> kernel_wait
--   G->H  H launched at 470 = G's end: not after     -> other (130 us)
--   device 1 stream 7 Q->R: 390 us, no launch        -> other
-- Second query: HTA's sums per category (negative interval included): kernel_wait 10-5+10 = 15 us.
SELECT s.device, s.stream, s.ts, s.dur, s.end_ts, p.name AS prev_name, n.name AS next_name,
       s.next_launch_ts, s.category
FROM stream_idle_gaps AS s
JOIN events AS p ON p.id = s.prev_event_id
JOIN events AS n ON n.id = s.next_event_id
ORDER BY s.device, s.stream, s.end_ts;

SELECT device, stream, category, count(*) AS n, sum(dur) AS idle
FROM stream_idle_gaps
GROUP BY device, stream, category
ORDER BY device, stream, category;
