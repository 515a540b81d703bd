-- gpu_op_classes: the class of each distinct GPU op (name, kind) under the editable kernel_class_rules
-- table: the matching rule with the highest priority wins (ties: lowest id); 'other' when no rule
-- matches. A plain view, so edits to kernel_class_rules apply to the next query. Used by the bundled
-- queries temporal_breakdown, step_breakdown and comm_overlap.
CREATE VIEW gpu_op_classes AS
SELECT
  n.id AS name_id,                    -- gpu_op_names.id (= op_kernel_links.name_id)
  n.name,                             -- GPU op name (gpu_ops.name = op_kernels.gpu_name)
  n.kind,                             -- 'kernel' | 'memcpy' | 'memset'
  coalesce((SELECT r.class FROM kernel_class_rules AS r
             WHERE (r.kind IS NULL OR r.kind = n.kind)
               AND CASE r.syntax WHEN 'like' THEN n.name LIKE r.pattern ELSE n.name GLOB r.pattern END
             ORDER BY r.priority DESC, r.id LIMIT 1), 'other') AS class  -- 'compute', 'communication', ...
FROM gpu_op_names AS n
WHERE n.timed;                        -- (ops without a duration occupy no time)
