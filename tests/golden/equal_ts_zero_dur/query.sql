-- Case: equal_ts_zero_dur
-- Checks the containment rule p.ts <= c.ts AND c.ts + c.dur <= p.ts + p.dur AND c.ts < p.ts + p.dur:
--   Q_short [10,30) and P_long [10,60) start together: at equal ts the longer is the parent
--   (Q_short is written first in the file). Zero-duration slices are slices:
--   Z_at_start @10 (dur 0) -> inside Q_short (10 < 30), depth 2;
--   Z_inside_Q @15 -> Q_short, depth 2;
--   Z_at_Q_end @30 -> NOT inside Q_short (30 < 30 fails), inside P_long -> depth 1.
--   inst_in_P @45 -> P_long, depth 1; inst_outside @200 -> no slice, parent NULL, depth 0.
-- No overlaps: no overlapping_slices counter above zero.
SELECT e.name, e.ph, e.ts, e.dur, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.ts, e.dur DESC;

SELECT count(*) AS n_overlap_counters
FROM import_stats
WHERE name = 'overlapping_slices' AND value > 0
ORDER BY 1;
