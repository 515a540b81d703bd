-- combine: sync_points
-- The longest sync calls of the job: every partition's longest (each ran with the same :limit),
-- event_id moved to the job's event ids, ordered and cut as the query does.
UPDATE partial SET event_id = event_id + (SELECT p.event_base FROM partitions AS p WHERE p.trace_id = partial.trace_id);
SELECT * FROM partial ORDER BY dur DESC, trace_id, ts, event_id LIMIT coalesce(:limit, 100);
