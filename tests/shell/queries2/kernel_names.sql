-- name: kernel_names
-- description: Second directory: shadowed by the first.
SELECT 'second dir' AS source;
