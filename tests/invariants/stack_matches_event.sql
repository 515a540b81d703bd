-- Invariant: an event's stack (events.stack_id) exists, is named like the event, sits at the
-- event's depth, and its parent path is the parent event's stack (NULL at a root).
-- Rows returned = violations.
SELECT e.id AS event_id, e.name, e.depth, e.stack_id, s.name AS stack_name, s.depth AS stack_depth,
       s.parent_id AS stack_parent_id, p.stack_id AS parent_event_stack_id
FROM events AS e
LEFT JOIN stacks AS s ON s.id = e.stack_id
LEFT JOIN events AS p ON p.id = e.parent_id
WHERE e.stack_id IS NOT NULL
  AND (s.id IS NULL
       OR s.name IS NOT e.name
       OR s.depth IS NOT e.depth
       OR s.parent_id IS NOT p.stack_id);
