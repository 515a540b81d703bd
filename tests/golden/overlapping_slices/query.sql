-- Case: overlapping_slices
-- Checks: slices that overlap partially are kept (never dropped) and counted.
--   tid 1: A_outer [0,100), D_inside_A [20,40) -> child of A; B_overlaps_A [50,150) starts inside A but
--          ends after it -> not contained by any slice -> root (depth 0), counted as overlapping;
--          C_inside_B [110,130) is contained only by B -> child of B, depth 1.
--   tid 2: R_root [0,100) > S_in_R [10,50); T_overlaps_S [40,70) overlaps S partially -> counted, and
--          becomes a child of the nearest slice that fully contains it, R_root (depth 1).
-- import_stats overlapping_slices = 2 (one per overlapping slice; also one per overlapping pair).
SELECT e.tid, e.name, e.ts, e.dur, e.depth, p.name AS parent_name
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.tid, e.ts;

SELECT name, value
FROM import_stats
WHERE name = 'overlapping_slices'
ORDER BY name;

SELECT event_count FROM traces ORDER BY id;
