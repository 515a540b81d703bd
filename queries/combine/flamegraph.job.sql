-- job figures: flamegraph
-- cpu mode: 1 when the partition's stored self times (stacks.cpu_self_ns) are not every path's
-- unclipped self time, so that flamegraph.partial.sql reads its host slices (its CTE rescan), else
-- 0; summed over the partitions in scope and given to flamegraph.partial.sql as :job_rescan: at 0,
-- with :merge_steps, every partition sends one row per merged path (0 without :merge_steps, where
-- the partitions send every path).
SELECT coalesce(:mode, 'cpu') = 'cpu' AND coalesce(:merge_steps, 1)
       AND (EXISTS (SELECT 1 FROM stacks WHERE cpu_self_ns = 0)
            OR EXISTS (SELECT 1 FROM stacks AS c JOIN stacks AS p ON p.id = c.parent_id
                       WHERE c.cpu_self_ns IS NOT NULL AND p.cpu_self_ns IS NULL)) AS job_rescan;
