-- Invariant: one processes row per (trace, pid) and one threads row per (trace, pid, tid).
-- Rows returned = violations.
SELECT 'process' AS what, trace_id, pid, NULL AS tid, count(*) AS n
FROM processes GROUP BY trace_id, pid HAVING count(*) > 1
UNION ALL
SELECT 'thread', trace_id, pid, tid, count(*)
FROM threads GROUP BY trace_id, pid, tid HAVING count(*) > 1;
