-- Case: ts_absolute_ns_digits
-- Checks: a 16-digit absolute epoch-microsecond ts with 3 decimals (19 significant digits, more
-- than a double holds) is converted exactly from its text:
--   1712195495519689.047 -> 1712195495519689047, 1712195495519689.048 -> 1712195495519689048
--   (a double would round both to the same value); 16-digit int 1740461679471257 -> ...257000.
-- displayTimeUnit "ns" does NOT change the unit (ts/dur stay microseconds): dur 12.5 -> 12500,
-- 0.5 -> 500, 24 -> 24000.
-- Nesting: abs_ns [..047, ..047+12500) contains abs_ns_child [..048, ..548) -> depth 1 (the child is
-- written first in the file; nesting is by time, not by file order).
-- traces.start_ts = ..689047; end_ts = max(..689047+12500 = 1712195495519701547,
--   1740461679471257000+24000 = 1740461679471281000) = 1740461679471281000.
SELECT e.name, e.ts, e.dur, e.ts + e.dur AS end_ts, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts;

SELECT base_time_ns, start_ts, end_ts, event_count
FROM traces
ORDER BY id;
