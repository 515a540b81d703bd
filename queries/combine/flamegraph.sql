-- combine: flamegraph
-- The call paths of every partition's trace (flamegraph.partial.sql) summed per path over the job,
-- then the query's own steps: self time clipped at 0 per path, folded per merged path with
-- :merge_steps, the GPU op name as the leaf frame, the frames' separators and quotes replaced.
WITH
self AS (                             -- cpu mode: self time per call path (ord: its id's order)
  SELECT node, folded, path, max(sum(total) - coalesce(sum(child_total), 0), 0) AS self,
         min(trace_id * 1099511627776 + stack_id) AS ord
  FROM partial
  WHERE leaf IS NULL AND value IS NULL
  GROUP BY node
  HAVING count(total) > 0
),
vals AS (
  SELECT path, '' AS leaf, sum(self) AS value, min(ord) AS ord
  FROM self
  GROUP BY CASE WHEN coalesce(:merge_steps, 1) THEN folded ELSE node END
  UNION ALL
  SELECT path, leaf, sum(value), min(trace_id * 1099511627776 + stack_id)
  FROM partial
  WHERE value IS NOT NULL
  GROUP BY CASE WHEN coalesce(:merge_steps, 1) THEN folded ELSE node END, leaf
)
SELECT
  replace(replace(replace(replace(
    CASE WHEN coalesce(path, '') = '' THEN '(no launch)' ELSE path END
    || CASE WHEN leaf = '' THEN '' ELSE ';' || replace(coalesce(leaf, '?'), ';', ':') END,
    '"', ''''), char(9), ' '), char(10), ' '), char(13), ' ') AS stack,
  value
FROM vals
WHERE value > 0
ORDER BY 1, ord;
