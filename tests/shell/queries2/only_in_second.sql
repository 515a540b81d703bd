-- name: only_in_second
-- description: Found through the second user directory.
SELECT 'second dir' AS source;
