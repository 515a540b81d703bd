-- name: kernel_names
-- description: Distinct kernel names, first :limit of them (fixture for parameter tests).
-- param :limit 2 — number of rows
-- param :prefix NULL — only names starting with this text
SELECT DISTINCT name
FROM events
WHERE cat = 'kernel'
  AND (:prefix IS NULL OR name LIKE :prefix || '%')
ORDER BY name
LIMIT coalesce(:limit, 2);
