-- cpu_op_groups: the CPU ops of each trace counted at import, so that per-op-name summaries
-- (op_summary, trace_diff) read a few thousand rows instead of every op. One row per distinct
-- (name, parent op's name, Input Dims/Input type, parent op's Input Dims/Input type) among the rows of
-- the cpu_ops view that have a duration. The parent op is the cpu_op_id of the op's parent event:
-- the nearest enclosing CPU op (Python frames and annotations in between are skipped). The invariant
-- tests/invariants/cpu_op_groups.sql recomputes the table from events.

CREATE TABLE cpu_op_groups (
  trace_id INTEGER NOT NULL,  -- traces.id
  name TEXT,                  -- the ops' name
  parent_name TEXT,           -- the parent op's name; NULL when the ops have no enclosing CPU op
  input_shape_id INTEGER,     -- input_shapes.id of the ops (Input Dims / Input type); NULL without
  parent_shape_id INTEGER,    -- input_shapes.id of the parent op; NULL without
  calls INTEGER NOT NULL,     -- number of ops
  total_ns INTEGER NOT NULL,  -- summed dur of the ops (ns)
  first_event_id INTEGER NOT NULL  -- events.id of the group's first op (lowest id), an example
);
