-- Invariant: events.depth is 0 at a root (parent_id NULL) and the parent's depth + 1 otherwise
-- (this also rules out parent cycles). An event without ts is not nested: depth and parent NULL. Rows returned = violations.
SELECT c.id AS event_id, c.depth, c.parent_id, p.depth AS parent_depth
FROM events AS c
LEFT JOIN events AS p ON p.id = c.parent_id
WHERE (c.parent_id IS NULL AND c.depth IS NOT 0 AND NOT (c.ts IS NULL AND c.depth IS NULL))
   OR (c.parent_id IS NOT NULL AND c.depth IS NOT p.depth + 1);
