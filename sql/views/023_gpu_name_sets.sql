-- gpu_name_sets: the members of each combination of GPU op names that run together (the distinct
-- gpu_segments.name_ids), one row per (combination, name). A query that classifies the pieces of
-- gpu_segments classifies these few combinations once and looks each piece's up by name_ids
-- (the advisor rule exposed_h2d_copy; the bundled queries build the same sets from the combinations
-- they read).
CREATE VIEW gpu_name_sets AS
SELECT s.name_ids,                    -- gpu_segments.name_ids
       CAST(j.value AS INTEGER) AS name_id  -- one of its names (gpu_op_names.id)
FROM (SELECT DISTINCT name_ids FROM gpu_segments) AS s,
     json_each('[' || s.name_ids || ']') AS j;
