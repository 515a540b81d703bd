-- gpu_op_names: one row per distinct GPU op (name, kind), numbered in order of first appearance (by
-- event id, so across the traces of a database too). op_kernel_links.name_id points here, so that a
-- query which sorts GPU ops by name or class joins small integers instead of reading each op's name
-- (kernel names average hundreds of bytes) from events.
-- Computed by the importer as it writes each trace (same rows as this SELECT; tests compare them).
-- @materialize always
-- @computed
CREATE VIEW gpu_op_names AS
SELECT
  row_number() OVER (ORDER BY min(id)) AS id,  -- name id (op_kernel_links.name_id)
  name,                               -- GPU op name (gpu_ops.name; NULL when the event has none)
  kind,                               -- 'kernel' | 'memcpy' | 'memset'
  max(dur IS NOT NULL) AS timed,      -- 1 when at least one op of this name and kind has a duration
  count(*) AS ops                     -- number of GPU ops of this name and kind
FROM gpu_ops
GROUP BY name, kind;
-- @index CREATE UNIQUE INDEX gpu_op_names_id ON gpu_op_names(id);
-- @index CREATE INDEX gpu_op_names_name ON gpu_op_names(name, kind);
