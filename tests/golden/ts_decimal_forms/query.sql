-- Case: ts_decimal_forms
-- Checks: ts/dur written as microsecond decimal text (int, 1, 2 and 3 fraction digits, "0.0",
-- "68.0") become exact integer nanoseconds: integer part * 1000 + fraction padded to 3 digits.
--   0 -> 0, 5.1 -> 5100, 12.34 -> 12340, 7.125 -> 7125, 100 -> 100000, 0.001 -> 1, 2.24 -> 2240,
--   3.136 -> 3136, 68.0 -> 68000, 42.5 -> 42500. Instants have dur NULL.
-- traces: no baseTimeNanoseconds -> base_time_ns NULL; start_ts = min ts = 0;
--   end_ts = max(ts + dur) = 100000 + 68000 = 168000; 7 event rows; plain file -> compressed 0.
SELECT name, ph, ts, typeof(ts) AS ts_type, dur
FROM events
ORDER BY ts, name;

SELECT base_time_ns, start_ts, end_ts, event_count, root_shape, truncated, compressed
FROM traces
ORDER BY id;
