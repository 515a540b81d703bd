-- Stacks: the interned tree of name paths. Each row is one distinct path from a thread's root slice
-- down to an event; events.stack_id points at the path that ends at that event.

CREATE TABLE stacks (
  id INTEGER PRIMARY KEY,
  parent_id INTEGER,          -- the path one level up, NULL at a root
  depth INTEGER NOT NULL,     -- 0 at a root
  name TEXT,                  -- name of the last event on the path
  cat TEXT                    -- category of the last event on the path
);
