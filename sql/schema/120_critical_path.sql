-- critical_path: the longest dependency chain through one trace's host threads and GPU streams
-- over a time window, written by `tracesql critical-path` (src/critical_path/), empty until it runs.
-- One row per piece of the path, in time order: each starts where the previous one ends, and the
-- pieces of a window add up to its length. Running the command again for the same trace and window
-- replaces that window's rows. The bundled query critical_path_summary reads it.

CREATE TABLE critical_path (
  trace_id INTEGER NOT NULL,  -- traces.id
  window TEXT NOT NULL,       -- 'step N' (--step N), 'FROM..TO' in ns (--from/--to), 'trace' (whole trace)
  seq INTEGER NOT NULL,       -- 1.. in time order within (trace_id, window)
  event_id INTEGER,           -- events.id the piece is charged to (the op, kernel, launch or sync call); NULL for time outside any
  ts INTEGER NOT NULL,        -- start, ns
  dur INTEGER NOT NULL,       -- length, ns (> 0)
  edge_kind TEXT NOT NULL,    -- 'op', 'dependency', 'launch', 'kernel_kernel', 'sync', 'stream_wait'
  bound_by TEXT NOT NULL,     -- 'cpu', 'gpu_compute', 'gpu_communication', 'launch_overhead', 'kernel_kernel_overhead', 'sync', 'data_loading'
  PRIMARY KEY (trace_id, window, seq)
);
