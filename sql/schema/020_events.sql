-- Events: one row per timed trace event (X, i/I, B/E pairs joined into one slice, C, unknown phases).
-- Flow points (s/t/f) go to flows, metadata (M) to processes/threads.

CREATE TABLE events (
  id INTEGER PRIMARY KEY,     -- ordered by (trace, thread, ts, longest first): a thread's events are contiguous
  trace_id INTEGER NOT NULL REFERENCES traces(id),
  thread_id INTEGER NOT NULL REFERENCES threads(id),
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
  args TEXT                   -- every arg as a minified JSON object (numbers keep their exact text;
                              -- an integer beyond int64 is stored as a JSON string of its digits);
                              -- NULL when the event has no args. Read it through the args view.
);

-- args: one row per (event, arg key), lossless. Numbers come back with SQLite's own type, strings as
-- text, arrays and objects as minified JSON text, integers beyond int64 as text of their exact digits.
CREATE VIEW args AS
SELECT
  e.id AS event_id,           -- events.id
  e.trace_id AS trace_id,     -- events.trace_id
  j.key AS key,               -- arg name exactly as written ('Input Dims', 'External id', ...)
  j.value AS value,           -- the value (see above)
  j.type AS value_type        -- JSON type: 'integer', 'real', 'text', 'true', 'false', 'null', 'array', 'object'
FROM events AS e, json_each(e.args) AS j
WHERE e.args IS NOT NULL;

-- arg_keys: which arg keys occur, on which categories, how often (filled at import).
CREATE TABLE arg_keys (
  trace_id INTEGER NOT NULL REFERENCES traces(id),
  cat TEXT,                   -- event category the key was seen on
  key TEXT NOT NULL,          -- arg name
  count INTEGER NOT NULL      -- number of events of that category carrying the key
);
