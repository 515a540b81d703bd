-- Stacks: the interned tree of name paths. Each row is one distinct path from a thread's root slice
-- down to an event; events.stack_id points at the path that ends at that event.

CREATE TABLE stacks (
  id INTEGER PRIMARY KEY,     -- referenced by events.stack_id; shared by the traces of the database
  parent_id INTEGER,          -- the path one level up, NULL at a root
  depth INTEGER NOT NULL,     -- 0 at a root
  name TEXT,                  -- name of the last event on the path
  cat TEXT,                   -- category of the last event on the path
  merged_id INTEGER NOT NULL, -- the first path (lowest id) with the same names from the root when
                              -- every ProfilerStep#N reads 'ProfilerStep#*' and a NULL name '?':
                              -- all steps' copies of one call path share it (flamegraph folding)
  cpu_self_ns INTEGER,        -- self time on host threads (threads.kind = 'cpu'), all traces: the
                              -- summed dur of the slices whose stack_id is this path minus that of
                              -- the paths directly under it, clipped at 0; NULL when no host slice
                              -- ends on this path
  merged_cpu_self_ns INTEGER  -- on a path that is its own merged_id: the sum of cpu_self_ns over the
                              -- paths with this merged_id (the flamegraph's folded self time); NULL
                              -- on the other paths and when none of them has a cpu_self_ns
);
