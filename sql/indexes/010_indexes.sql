-- Indexes, created after the bulk insert. The two on events, like those of the flows
-- (sql/schema/030_flows.sql) and of the computed tables ("-- @index" lines of sql/views/), are
-- created empty and filled by the importer itself: it sorts their keys and writes their b-tree pages
-- beside the tables' (src/import/btree_writer.h), which checks that each index here is the one it
-- writes. An index on events costs space (~20 MB per 1 M events) and import time, so only those that
-- the views and common queries need are here. Not indexed: events.name (a scan of a category view is
-- cheap: see event_ranges) and events.external_id (no view needs it; to match ops to kernels by it,
-- CREATE INDEX events_trace_external_id ON events(trace_id, external_id) WHERE external_id IS NOT NULL).
CREATE INDEX events_thread_ts ON events(thread_id, ts);
CREATE INDEX events_trace_correlation ON events(trace_id, correlation) WHERE correlation IS NOT NULL;
CREATE INDEX arg_keys_key ON arg_keys(key);
CREATE INDEX threads_trace_pid_tid ON threads(trace_id, pid, tid);
