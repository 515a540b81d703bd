-- Indexes, created after the bulk insert (cheaper than maintaining them row by row). The flows
-- indexes (sql/schema/030_flows.sql) and the computed tables' ("-- @index" lines of sql/views/) are
-- built after the bulk insert too, in the staging database the importer copies them from.
-- Each index on events costs about a second per 1.5 M events at import, so only those that the
-- views and common queries need are here. Not indexed: events.name (a scan of a category view is
-- cheap: see event_ranges) and events.external_id (no view needs it; to match ops to kernels by it,
-- CREATE INDEX events_trace_external_id ON events(trace_id, external_id) WHERE external_id IS NOT NULL).
CREATE INDEX events_thread_ts ON events(thread_id, ts);
CREATE INDEX events_trace_correlation ON events(trace_id, correlation) WHERE correlation IS NOT NULL;
CREATE INDEX arg_keys_key ON arg_keys(key);
CREATE INDEX threads_trace_pid_tid ON threads(trace_id, pid, tid);
