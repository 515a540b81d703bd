-- Import diagnostics: counters of everything unusual the importer met (never fatal).

CREATE TABLE import_stats (
  trace_id INTEGER REFERENCES traces(id), -- NULL for database-wide figures
  name TEXT NOT NULL,         -- counter name, e.g. 'overlapping_slices', 'flow_ends_unbound'
  value INTEGER NOT NULL,     -- the count (or byte offset for 'truncated_at_byte')
  severity TEXT NOT NULL,     -- 'info', 'warning' or 'error'
  description TEXT NOT NULL   -- what it means
);

-- Key/value facts about the database itself: which tracesql, schema and SQLite versions built it.
CREATE TABLE tracesql_meta (
  key TEXT PRIMARY KEY,       -- 'tracesql_version', 'schema_version', 'sqlite_version'
  value                       -- its value (any type)
);
