-- combine: memory_peak
-- Per trace: each partition's rows in trace order; peak_event_id moved to the job's event ids.
UPDATE partial SET peak_event_id = peak_event_id + (SELECT p.event_base FROM partitions AS p WHERE p.trace_id = partial.trace_id);
SELECT * FROM partial ORDER BY rowid;
