-- combine: timeline_overlay
-- partitions: one
-- One trace: the rows of its partition (-p trace_id's, else the first), as the query orders them,
-- the event ids in args moved to the job's.
WITH base AS (SELECT event_base AS b FROM partitions WHERE trace_id = coalesce(:trace_id, 1))
SELECT track, ts, dur, name, cat, cname,
       CASE cat
         WHEN 'critical_path' THEN json_set(args, '$.event_id', json_extract(args, '$.event_id') + b)
         WHEN 'idle_gap' THEN json_set(args, '$.prev_event_id', json_extract(args, '$.prev_event_id') + b,
                                             '$.next_event_id', json_extract(args, '$.next_event_id') + b,
                                             '$.host_event_id', json_extract(args, '$.host_event_id') + b)
         ELSE args
       END AS args
FROM partial, base
ORDER BY partial.rowid;
