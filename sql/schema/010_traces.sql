-- tracesql schema: imported files, devices, processes and thread tracks.
-- Every table carries trace_id so one database can hold many traces (ranks, runs).
-- All times are integer nanoseconds (Unix epoch ns when the trace is absolute).

CREATE TABLE traces (
  id INTEGER PRIMARY KEY,     -- trace id, 1.. in the order the files were given
  path TEXT NOT NULL,         -- the file as given on the command line
  rank INTEGER,               -- distributedInfo.rank, NULL when absent
  world_size INTEGER,         -- distributedInfo.world_size, NULL when absent
  base_time_ns INTEGER,       -- baseTimeNanoseconds (already added to every ts), NULL when absent
  start_ts INTEGER,           -- earliest ts of any event (ns)
  end_ts INTEGER,             -- latest ts + dur of any event (ns)
  event_count INTEGER NOT NULL, -- rows of this trace in events
  metadata TEXT NOT NULL,     -- JSON object: every top-level key except traceEvents, values verbatim (minified)
  file_bytes INTEGER NOT NULL, -- size of the file on disk
  json_bytes INTEGER NOT NULL, -- bytes of JSON read (after gzip inflation)
  compressed INTEGER NOT NULL, -- 1 when the file was gzip (detected by magic bytes)
  root_shape TEXT NOT NULL,   -- 'object' ({"traceEvents": [...]}) or 'array' (bare array of events)
  truncated INTEGER NOT NULL  -- 1 when the file ended early and only complete events were imported
);

CREATE TABLE devices (
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace whose header lists the device
  device INTEGER,             -- deviceProperties[].id (CUDA ordinal; ROCm GPU pids are offset, see docs)
  name TEXT,                  -- e.g. 'NVIDIA H100 80GB HBM3'
  compute_major INTEGER,      -- computeMajor
  compute_minor INTEGER,      -- computeMinor
  total_memory INTEGER,       -- totalGlobalMem, bytes
  num_sms INTEGER,            -- numSms
  properties TEXT NOT NULL    -- the whole deviceProperties entry as JSON
);

CREATE TABLE processes (
  id INTEGER PRIMARY KEY,     -- 1.., continuing across traces
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace it appears in
  pid,                        -- integer when numeric (numeric strings normalised), else text ('Spans', '')
  name TEXT,                  -- process_name metadata (last one wins)
  labels TEXT,                -- process_labels metadata, e.g. 'CPU', 'GPU 0'
  sort_index INTEGER          -- process_sort_index metadata
);

CREATE TABLE threads (
  id INTEGER PRIMARY KEY,     -- 1.., continuing across traces
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace it appears in
  process_id INTEGER NOT NULL REFERENCES processes(id), -- its process (same trace and pid)
  pid,                        -- as processes.pid
  tid,                        -- integer when numeric (numeric strings normalised), else text ('stream 7')
  name TEXT,                  -- thread_name metadata (trailing spaces kept)
  sort_index INTEGER,         -- thread_sort_index metadata
  kind TEXT NOT NULL,         -- 'cpu' (host thread), 'gpu' (device stream track) or 'other' (spans, overhead)
  event_count INTEGER NOT NULL -- rows of events on this track
);
