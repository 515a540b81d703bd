-- Events: one row per timed trace event (X, i/I, B/E pairs joined into one slice, C, unknown phases).
-- Flow points (s/t/f) go to flows, metadata (M) to processes/threads.

CREATE TABLE events (
  id INTEGER PRIMARY KEY,     -- 1.., continuing across traces; within a trace grouped by kind (see
                              -- event_ranges), in file order within a kind
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace (file) it comes from
  thread_id INTEGER NOT NULL REFERENCES threads(id), -- its track: (trace, pid, tid)
  pid,                        -- as in the file, normalised like threads.pid
  tid,                        -- as in the file, normalised like threads.tid
  ph TEXT NOT NULL,           -- phase: 'X', 'i', 'I', 'B' (a B/E pair), 'C', or any other letter seen
  cat TEXT,                   -- category as written ('cpu_op', 'kernel', legacy 'Operator', ...); NULL when absent
  name TEXT,                  -- event name
  ts INTEGER,                 -- start, ns (exact; baseTimeNanoseconds added)
  dur INTEGER,                -- duration, ns; NULL for instants, counters and unmatched B
  depth INTEGER,              -- nesting depth on the thread (0 = root); instants get the depth below their slice
  parent_id INTEGER,          -- innermost slice on the same thread that contains this one, NULL at the root
  stack_id INTEGER,           -- stacks.id of the name path from the thread's root slice down to this event
  external_id INTEGER,        -- args 'External id' (legacy 'external id')
  correlation INTEGER,        -- args 'correlation' (CUPTI / roctracer correlation id)
  seq_num INTEGER,            -- args 'Sequence number' (autograd)
  fwd_thread_id INTEGER,      -- args 'Fwd thread id'
  python_id INTEGER,          -- args 'Python id'
  python_parent_id INTEGER,   -- args 'Python parent id'
  device INTEGER,             -- args 'device' (GPU ops; ROCm uses the HSA agent index)
  stream INTEGER,             -- args 'stream' when it is an integer
  cpu_op_id INTEGER,          -- innermost CPU op (cat cpu_op / legacy Operator, but not a legacy
                              -- ProfilerStep#N) enclosing this event on its thread, the event itself if
                              -- it is one; NULL when none
  top_cpu_op_id INTEGER,      -- outermost such CPU op (the op the user called); NULL when none
  step INTEGER,               -- N of the ProfilerStep#N annotation whose interval contains ts (host events,
                              -- any thread of the trace); GPU ops inherit their launch's step via correlation
  arg_shape_id INTEGER,       -- which keys the args have, in order (arg_keys.shape_id); NULL when the event
                              -- has no args object ({} is a shape with no keys)
  arg_values TEXT,            -- the arg values as a minified JSON array, in key order (numbers keep their
                              -- exact text; an integer beyond int64 is a JSON string of its digits),
                              -- without the values kept in columns (arg_keys.path NULL).
                              -- Read args through the args or event_args views.
  input_shape_id INTEGER      -- input_shapes.id of the event's args 'Input Dims' and 'Input type'
                              -- (record_shapes); NULL when it has neither
);

-- memory_args: the allocator args of '[memory]' instants (profile_memory) that are JSON integers, as
-- columns, so memory_events reads no JSON; they are not repeated in events.arg_values (arg_keys.path
-- NULL). A value that is not an integer within int64 (never seen) is NULL here and stays in
-- events.arg_values, where memory_events falls back to it.
CREATE TABLE memory_args (
  event_id INTEGER PRIMARY KEY REFERENCES events(id),  -- the [memory] instant
  bytes INTEGER,              -- args 'Bytes' (negative for a free)
  addr INTEGER,               -- args 'Addr'
  total_allocated INTEGER,    -- args 'Total Allocated'
  total_reserved INTEGER,     -- args 'Total Reserved'
  device_type INTEGER,        -- args 'Device Type'
  device_id INTEGER           -- args 'Device Id'
);

-- arg_keys: the key of each position of each args shape. Events with the same keys in the same
-- order share a shape, so each key is stored once, not once per event.
CREATE TABLE arg_keys (
  shape_id INTEGER NOT NULL,  -- events.arg_shape_id
  idx INTEGER NOT NULL,       -- 0-based position of the key in the args object (file order)
  key TEXT NOT NULL,          -- arg name exactly as written ('Input Dims', 'External id', ...)
  path TEXT,                  -- JSON path of the value in events.arg_values ('$[n]', n = the number of
                              -- keys before it that have a path); NULL when the value is in a column
                              -- instead: 'Input Dims' (2020: 'Input dims') and 'Input type' of an event
                              -- with events.input_shape_id (input_shapes), a promoted key that is an
                              -- integer (its events column: 'External id' / 'external id', 'correlation',
                              -- 'Sequence number', 'Fwd thread id', 'Python id', 'Python parent id',
                              -- 'device', 'stream'), an allocator key of a [memory] instant that is an
                              -- integer (memory_args). The args and event_args views read it there.
  PRIMARY KEY (shape_id, idx)
) WITHOUT ROWID;

-- input_shapes: each distinct pair of args 'Input Dims' (2020: 'Input dims') / 'Input type' (record_shapes), so that ops
-- are grouped by shape with an integer instead of reading JSON per event. Shared by the traces of a
-- database (ids are not per trace).
CREATE TABLE input_shapes (
  id INTEGER PRIMARY KEY,     -- referenced by events.input_shape_id
  input_dims TEXT,            -- the 'Input Dims' value as minified JSON text, exactly as written
                              -- (e.g. '[[4,8],[8,16]]'); NULL when the event has no such arg. Not repeated
                              -- in events.arg_values (arg_keys.path is NULL): the args view reads it here
  input_type TEXT             -- the 'Input type' value as JSON text (e.g. '["float","float"]'); NULL when absent
);

-- arg_slots: where each (event, arg key)'s value is kept: json_extract(j, p) is its SQL value (its
-- exact JSON text: see event_args). A key with a path (arg_keys.path) is in events.arg_values; one
-- without is in a column: 'Input Dims' (2020: 'Input dims') / 'Input type' in input_shapes, a promoted
-- key in its events column ('External id' -> external_id, ...), an allocator key of a [memory]
-- instant in memory_args. The args and event_args views read it; filter on event_id or key.
CREATE VIEW arg_slots AS
SELECT
  e.id AS event_id,           -- events.id
  e.trace_id,                 -- events.trace_id
  k.idx,                      -- position of the key in the args object (file order)
  k.key,                      -- arg name exactly as written
  CASE WHEN k.path IS NOT NULL THEN e.arg_values
       ELSE CASE k.key
         WHEN 'Input type' THEN (SELECT s.input_type FROM input_shapes AS s WHERE s.id = e.input_shape_id)
         WHEN 'Input Dims' THEN (SELECT s.input_dims FROM input_shapes AS s WHERE s.id = e.input_shape_id)
         WHEN 'Input dims' THEN (SELECT s.input_dims FROM input_shapes AS s WHERE s.id = e.input_shape_id)
         WHEN 'External id' THEN e.external_id
         WHEN 'external id' THEN e.external_id
         WHEN 'correlation' THEN e.correlation
         WHEN 'Sequence number' THEN e.seq_num
         WHEN 'Fwd thread id' THEN e.fwd_thread_id
         WHEN 'Python id' THEN e.python_id
         WHEN 'Python parent id' THEN e.python_parent_id
         WHEN 'device' THEN e.device
         WHEN 'stream' THEN e.stream
         ELSE (SELECT CASE k.key WHEN 'Bytes' THEN m.bytes WHEN 'Addr' THEN m.addr
                                 WHEN 'Total Allocated' THEN m.total_allocated
                                 WHEN 'Total Reserved' THEN m.total_reserved
                                 WHEN 'Device Type' THEN m.device_type WHEN 'Device Id' THEN m.device_id END
                 FROM memory_args AS m WHERE m.event_id = e.id) END
  END AS j,                   -- JSON text (or an integer) holding the value
  coalesce(k.path, '$') AS p  -- the value's path in j
FROM events AS e
JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id;

-- args: one row per (event, arg key), lossless. Numbers come back with SQLite's own type, strings as
-- text, arrays and objects as minified JSON text, integers beyond int64 as text of their exact digits.
-- Filter on key (uses arg_keys_key and events_arg_shape) or on event_id.
CREATE VIEW args AS
SELECT
  event_id,                   -- events.id
  trace_id,                   -- events.trace_id
  key,                        -- arg name exactly as written
  json_extract(j, p) AS value,  -- the value (see above)
  json_type(j, p) AS value_type -- 'integer', 'real', 'text', 'true', 'false', 'null', 'array', 'object'
FROM arg_slots;

-- event_args: each event's args as one JSON object (keys in file order, each value's text exactly as
-- written), for json_extract():
--   SELECT json_extract(a.args, '$."Input Dims"') FROM events e JOIN event_args a ON a.event_id = e.id
-- (The keys come in arg_keys' primary-key order (shape_id, idx), the only way to reach them from
-- one event; an ORDER BY subquery around arg_slots would cost a co-routine per event, +50 %.)
-- A value's exact text (numbers and escapes as written) without SQLite 3.38's `j -> p`: a value kept
-- in a column (p = '$') is the column's text; one in arg_values (an array) is cut out of
-- json_extract(j, p, '$[2147483647]'), which writes '[T,null]' with T its text as stored (no array
-- here has that element): what precedes the last 6 characters, less the '['. json(T) marks it as
-- JSON for json_group_object.
CREATE VIEW event_args AS
SELECT
  e.id AS event_id,           -- events.id
  (SELECT json_group_object(s.key, json(
            CASE WHEN s.p = '$' THEN coalesce(CAST(s.j AS TEXT), 'null')
                 ELSE substr(substr(json_extract(s.j, s.p, '$[2147483647]'), -6, -2147483647), 2) END))
     FROM arg_slots AS s WHERE s.event_id = e.id) AS args  -- JSON object text
FROM events AS e
WHERE e.arg_shape_id IS NOT NULL;

-- event_ranges: where each kind of event lies in events. The importer writes a trace's events grouped
-- by kind (in file order within a kind), so each kind is one contiguous id range per trace and the
-- category views read only their ranges instead of scanning every event. The kinds partition the
-- events: '[memory]' instants are 'memory' whatever their cat; the ProfilerStep#N that 2020-21
-- traces write as Operator are 'other'.
CREATE TABLE event_ranges (
  kind TEXT NOT NULL,         -- 'cpu_op' (cpu_op, Operator), 'runtime' (cuda_runtime, cuda_driver, Runtime,
                              -- mtia_runtime), 'python_function', 'user_annotation', 'kernel' (kernel,
                              -- Kernel), 'memcpy' (gpu_memcpy, Memcpy), 'memset' (gpu_memset, Memset),
                              -- 'gpu_user_annotation', 'memory' ([memory] instants), 'other' (the rest)
  trace_id INTEGER NOT NULL REFERENCES traces(id), -- the trace
  first_id INTEGER NOT NULL,  -- events.id of the first event of this kind in this trace
  last_id INTEGER NOT NULL,   -- events.id of the last one (inclusive)
  event_count INTEGER NOT NULL, -- last_id - first_id + 1
  PRIMARY KEY (kind, trace_id)
) WITHOUT ROWID;
