-- Invariant: stacks form a tree: a stack's parent exists and is one level up (depth 0 exactly at
-- the roots), and no two stacks share the same (parent, name, cat) path. Rows returned = violations.
SELECT s.id AS stack_id, s.parent_id, s.depth, p.depth AS parent_depth, NULL AS duplicates
FROM stacks AS s
LEFT JOIN stacks AS p ON p.id = s.parent_id
WHERE (s.parent_id IS NULL AND s.depth IS NOT 0)
   OR (s.parent_id IS NOT NULL AND (p.id IS NULL OR s.depth IS NOT p.depth + 1))
UNION ALL
SELECT min(id), parent_id, NULL, NULL, count(*)
FROM stacks
GROUP BY parent_id, name, cat
HAVING count(*) > 1;
