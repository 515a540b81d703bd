-- title: Async copies from or to pageable memory
-- detects: cudaMemcpyAsync-like calls whose copy reads or writes pageable (not pinned) host memory
--   (bundled query sync_points, sync_kind memcpy_pageable): the driver stages them through a pinned
--   buffer and the call blocks the host like a synchronous copy.
-- evidence: the three longest calls (events.id) and the time range of all of them.
-- advice: Pin the host memory: DataLoader(pin_memory=True), tensor.pin_memory(), then
--   .to(device, non_blocking=True); the copy becomes truly asynchronous and overlaps compute.
-- time lost: the GPU idle time inside the calls (sync_points.gpu_idle_ns) — what the blocked host
--   did not launch; the slower staged transfer itself is not counted.
-- anchor: nsys analyze cuda_memcpy_async.
-- uses: sync_points limit=-1
-- param :min_copies 1 — report a trace with at least this many pageable async copies
WITH s AS (
  SELECT * FROM q_sync_points WHERE sync_kind = 'memcpy_pageable'
),
per_trace AS (
  SELECT trace_id, count(*) AS calls, sum(dur) AS blocked_ns, sum(gpu_idle_ns) AS idle_ns,
         min(ts) AS first_ts, max(ts + dur) AS last_ts
  FROM s GROUP BY trace_id
),
longest AS (
  SELECT trace_id, event_id, row_number() OVER (PARTITION BY trace_id ORDER BY dur DESC, ts) AS rn FROM s
)
SELECT
  p.trace_id,
  'pageable_memcpy' AS rule,
  CASE WHEN p.idle_ns >= a.high_ns THEN 'high' WHEN p.idle_ns >= a.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  p.idle_ns AS time_lost_ns,
  printf('%d async cop%s from or to pageable host memory: the host blocks %.3f ms in the calls, the GPU idles %.3f ms',
         p.calls, CASE WHEN p.calls = 1 THEN 'y' ELSE 'ies' END, p.blocked_ns / 1e6, p.idle_ns / 1e6) AS title,
  printf('longest calls: events %s; ts %d..%d; `tracesql run DB sync_points -p trace_id=%d`',
         (SELECT group_concat(l.event_id, ', ')
          FROM (SELECT * FROM longest AS l WHERE l.trace_id = p.trace_id AND l.rn <= 3 ORDER BY l.rn) AS l),
         p.first_ts, p.last_ts, p.trace_id) AS evidence,
  'Pin the host buffers (DataLoader(pin_memory=True), tensor.pin_memory()) and copy with '
  || '.to(device, non_blocking=True), so the copy overlaps compute instead of blocking the host.' AS advice
FROM per_trace AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.calls >= :min_copies
