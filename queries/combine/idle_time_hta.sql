-- combine: idle_time_hta
-- Per trace: each partition's rows (its one trace's), in trace order, as the query orders them.
SELECT * FROM partial ORDER BY rowid;
