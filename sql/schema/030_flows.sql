-- Flows: arrows between events, from flow points (ph s/t/f) sharing (cat, id).
-- One row per end point bound to the start it follows; a start with no end gets one row with dst NULL,
-- an end with no start one row with src NULL. A CUDA graph launch (one s, many f) gives one row per f.

CREATE TABLE flows (
  id INTEGER PRIMARY KEY,     -- 1.., continuing across traces
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace it comes from
  cat TEXT,                   -- flow category: 'ac2g' (launch), 'fwdbwd', legacy 'async', 'async_cpu_to_gpu', ...
  name TEXT,                  -- flow name ('ac2g', 'fwdbwd', 'launch', ...)
  flow_id,                    -- the flow's id as written (ac2g: the correlation id); unique only within cat
  src_event_id INTEGER,       -- events.id the start point binds to; NULL when there is no start or no slice binds
  dst_event_id INTEGER,       -- events.id the end point binds to; NULL when there is no end or no slice binds
  src_ts INTEGER,             -- ts of the start point (ns), NULL when there is none
  dst_ts INTEGER,             -- ts of the end point (ns), NULL when there is none
  src_thread_id INTEGER,      -- threads.id of the start point
  dst_thread_id INTEGER       -- threads.id of the end point
);
-- Indexes of the flows. Made with the table, empty: the importer writes the flows and their index
-- entries as b-tree pages itself, keys sorted, once every trace is read (see docs/architecture.md).
CREATE INDEX flows_src ON flows(src_event_id);
CREATE INDEX flows_dst ON flows(dst_event_id);
