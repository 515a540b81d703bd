-- partial: top_kernels
-- Per kernel name of the partition's trace: calls, summed and longest duration, short name (the
-- combining query sums them over the traces by name text; name ids are per database).
SELECT n.name,
       (SELECT s.short_name FROM short_names AS s WHERE s.name = n.name) AS short_name,
       k.calls, k.total_dur, k.max_dur
FROM (SELECT name_id, count(*) AS calls, sum(gpu_dur) AS total_dur, max(gpu_dur) AS max_dur
        FROM op_kernel_links
       WHERE gpu_kind = 'kernel' AND (:trace_id IS NULL OR trace_id = :trace_id)
       GROUP BY name_id) AS k
JOIN gpu_op_names AS n ON n.id = k.name_id;
