-- Invariant: no GPU op (cat kernel/Kernel/gpu_memcpy/gpu_memset/Memcpy/Memset) is the end of two
-- launch flows (cat ac2g/async/async_cpu_to_gpu/async_gpu) that start at different events:
-- a kernel has at most one launch. Rows returned = violations.
SELECT f.dst_event_id AS gpu_event_id, e.cat, e.name,
       count(DISTINCT f.src_event_id) AS launches, min(f.src_event_id), max(f.src_event_id)
FROM flows AS f
JOIN events AS e ON e.id = f.dst_event_id
WHERE f.cat IN ('ac2g', 'async', 'async_cpu_to_gpu', 'async_gpu')
  AND f.src_event_id IS NOT NULL
  AND e.cat IN ('kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset')
GROUP BY f.dst_event_id
HAVING count(DISTINCT f.src_event_id) > 1;
