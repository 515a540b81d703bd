-- combine: timeline_flows
-- partitions: one
-- One trace: the rows of its partition (-p trace_id's, else the first), as the query orders them,
-- their event ids moved to the job's.
SELECT kind,
       src_event_id + (SELECT event_base FROM partitions WHERE trace_id = coalesce(:trace_id, 1)) AS src_event_id,
       src_ts,
       dst_event_id + (SELECT event_base FROM partitions WHERE trace_id = coalesce(:trace_id, 1)) AS dst_event_id,
       dst_track,
       dst_ts
FROM partial
ORDER BY rowid;
