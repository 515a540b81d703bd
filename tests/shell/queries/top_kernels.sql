-- name: top_kernels
-- description: Test query that shadows the bundled top_kernels.
SELECT 'user top_kernels' AS source;
