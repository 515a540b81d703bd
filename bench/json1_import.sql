-- Baseline: import a Kineto/Chrome trace with nothing but the sqlite3 CLI and its JSON1 functions,
-- the way a user without tracesql would do it. Run as:
--
--   sqlite3 out.db -cmd ".parameter set :trace \"'/path/trace.json'\"" < bench/json1_import.sql
--
-- Plain (uncompressed) JSON only: readfile() cannot inflate gzip. The whole file is read into one
-- string, so it is limited by SQLITE_MAX_LENGTH (1,000,000,000 bytes in Debian's sqlite3 3.40; JSON1
-- in 3.40 also stops at ~2 GB). ts/dur stay as REAL microseconds, pid/tid as written; no header
-- keys, baseTimeNanoseconds, flow binding, nesting or indexes: a lower bound on the work an
-- importer has to do.
--
-- The pragmas favour the baseline (no journal, no fsync), so the speed-up quoted against it is
-- conservative.

PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;

CREATE TABLE events (
  id INTEGER PRIMARY KEY,   -- index in traceEvents
  ph TEXT,
  cat TEXT,
  name TEXT,
  pid,                      -- int or string, as written
  tid,
  ts REAL,                  -- microseconds as written (relative to baseTimeNanoseconds when present)
  dur REAL
);

CREATE TABLE args (
  event_id INTEGER,         -- events.id
  key TEXT,
  value                     -- scalar, or JSON text for arrays/objects
);

BEGIN;

-- One parse of the whole document; keep each event as its own JSON text.
CREATE TEMP TABLE raw_events AS
  SELECT e.key AS id, e.value AS j
  FROM json_each(CAST(readfile(:trace) AS TEXT), '$.traceEvents') AS e;

INSERT INTO events (id, ph, cat, name, pid, tid, ts, dur)
  SELECT id, j ->> '$.ph', j ->> '$.cat', j ->> '$.name', j ->> '$.pid', j ->> '$.tid',
         j ->> '$.ts', j ->> '$.dur'
  FROM raw_events;

INSERT INTO args (event_id, key, value)
  SELECT r.id, a.key, a.value
  FROM raw_events AS r, json_each(r.j, '$.args') AS a;

DROP TABLE raw_events;

COMMIT;
