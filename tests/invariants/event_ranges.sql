-- Invariant: event_ranges partitions events. Per trace, the ranges of the kinds do not overlap, lie
-- inside the trace's ids, and together hold every event of the trace (event_count = last - first + 1);
-- and each event's kind, worked out here from its cat/name/ph without the importer's help, is the
-- kind of the range that holds it. The category views read only these ranges, so this is what keeps
-- them equal to their definitions over all events. Rows returned = violations.
WITH kinds AS (
  SELECT e.id, e.trace_id,
    CASE
      WHEN e.name = '[memory]' AND e.ph IN ('i', 'I') THEN 'memory'
      WHEN e.cat = 'Operator' AND substr(e.name, 1, 13) = 'ProfilerStep#' THEN 'other'
      WHEN e.cat IN ('cpu_op', 'Operator') THEN 'cpu_op'
      WHEN e.cat IN ('cuda_runtime', 'cuda_driver', 'Runtime', 'mtia_runtime') THEN 'runtime'
      WHEN e.cat = 'python_function' THEN 'python_function'
      WHEN e.cat = 'user_annotation' THEN 'user_annotation'
      WHEN e.cat IN ('kernel', 'Kernel') THEN 'kernel'
      WHEN e.cat IN ('gpu_memcpy', 'Memcpy') THEN 'memcpy'
      WHEN e.cat IN ('gpu_memset', 'Memset') THEN 'memset'
      WHEN e.cat = 'gpu_user_annotation' THEN 'gpu_user_annotation'
      ELSE 'other' END AS kind
  FROM events AS e
)
SELECT 'event outside the range of its kind' AS what, k.id AS row_id, k.kind AS detail
FROM kinds AS k
WHERE NOT EXISTS (SELECT 1 FROM event_ranges AS r
                  WHERE r.kind = k.kind AND r.trace_id = k.trace_id AND k.id BETWEEN r.first_id AND r.last_id)
UNION ALL
SELECT 'event_count', r.first_id, r.kind
FROM event_ranges AS r
WHERE r.event_count IS NOT r.last_id - r.first_id + 1
   OR r.event_count IS NOT (SELECT count(*) FROM events AS e
                            WHERE e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id)
UNION ALL
SELECT 'overlapping ranges', a.first_id, a.kind || ' / ' || b.kind
FROM event_ranges AS a JOIN event_ranges AS b
  ON (a.kind, a.trace_id) < (b.kind, b.trace_id)
 AND a.first_id <= b.last_id AND b.first_id <= a.last_id
UNION ALL
SELECT 'ranges do not cover the trace', t.id, t.event_count || ' events, ranges hold ' || coalesce(sum(r.event_count), 0)
FROM traces AS t LEFT JOIN event_ranges AS r ON r.trace_id = t.id
GROUP BY t.id
HAVING coalesce(sum(r.event_count), 0) IS NOT t.event_count;
