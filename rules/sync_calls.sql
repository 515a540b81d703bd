-- title: Host synchronisation inside steps
-- detects: calls that block the host until the GPU catches up: device / stream / event synchronize,
--   synchronous memcpy and memset (bundled query sync_points, sync_kind device, stream, event,
--   memcpy, memset), inside ProfilerSteps (all of them in a trace without steps), with the CPU
--   ops that issue them (.item(), .cpu(), torch.nonzero, boolean masks, print of a tensor ...).
-- evidence: the three longest calls (events.id), the time range of all of them; sync_points lists
--   each with its op and GPU idle.
-- advice: Every sync drains the launch queue, so the GPU idles while the host catches up. Remove
--   the syncs in the ops named: keep values on the GPU, avoid .item()/.tolist()/print in the step,
--   use non_blocking copies, ops with static output shapes instead of nonzero/masked_select.
-- time lost: the GPU idle time inside the calls (sync_points.gpu_idle_ns: idle_gaps clipped to
--   each call, added over devices): work the host could have queued had it not waited.
-- anchor: nsys analyze cuda_api_sync and cuda_memcpy_sync; HTA critical path (sync edges).
-- uses: sync_points limit=-1
-- param :min_share 0.01 — report a trace when the GPU idle inside its syncs is at least this share of its GPU span
WITH s AS (
  SELECT q.*, coalesce(q.top_op_name, q.op_name, q.name) AS issuer
  FROM q_sync_points AS q
  WHERE q.sync_kind IN ('device', 'stream', 'event', 'memcpy', 'memset')
    AND (q.step IS NOT NULL OR NOT EXISTS (SELECT 1 FROM steps AS st WHERE st.trace_id = q.trace_id))
),
per_trace AS (
  SELECT trace_id, count(*) AS calls, sum(dur) AS blocked_ns, sum(gpu_idle_ns) AS idle_ns,
         min(ts) AS first_ts, max(ts + dur) AS last_ts, count(DISTINCT step) AS steps
  FROM s GROUP BY trace_id
),
issuers AS (
  SELECT trace_id, issuer, count(*) AS calls, sum(gpu_idle_ns) AS idle_ns,
         row_number() OVER (PARTITION BY trace_id ORDER BY sum(gpu_idle_ns) DESC, count(*) DESC, issuer) AS rn
  FROM s GROUP BY trace_id, issuer
),
longest AS (
  SELECT trace_id, event_id, row_number() OVER (PARTITION BY trace_id ORDER BY dur DESC, ts) AS rn FROM s
)
SELECT
  p.trace_id,
  'sync_calls' AS rule,
  CASE WHEN p.idle_ns >= a.high_ns THEN 'high' WHEN p.idle_ns >= a.medium_ns THEN 'medium' ELSE 'low' END AS severity,
  p.idle_ns AS time_lost_ns,
  printf('%d host sync%s%s block%s %.3f ms, GPU idle %.3f ms (%.1f %% of its span); issued by %s',
         p.calls, CASE WHEN p.calls = 1 THEN '' ELSE 's' END,
         CASE WHEN p.steps > 0 THEN printf(' in %d step%s', p.steps, CASE WHEN p.steps = 1 THEN '' ELSE 's' END) ELSE '' END,
         CASE WHEN p.calls = 1 THEN 's' ELSE '' END, p.blocked_ns / 1e6, p.idle_ns / 1e6, 100.0 * p.idle_ns / nullif(a.span_ns, 0),
         (SELECT group_concat(printf('%s (%d)', i.issuer, i.calls), ', ')
          FROM (SELECT * FROM issuers AS i WHERE i.trace_id = p.trace_id AND i.rn <= 3 ORDER BY i.rn) AS i)) AS title,
  printf('longest sync calls: events %s; ts %d..%d; `tracesql run DB sync_points -p trace_id=%d`',
         (SELECT group_concat(l.event_id, ', ')
          FROM (SELECT * FROM longest AS l WHERE l.trace_id = p.trace_id AND l.rn <= 3 ORDER BY l.rn) AS l),
         p.first_ts, p.last_ts, p.trace_id) AS evidence,
  'Each sync drains the launch queue and the GPU idles while the host catches up: keep values on the GPU '
  || '(no .item()/.tolist()/print in the step), use non_blocking copies, prefer ops with static output '
  || 'shapes to nonzero/masked_select.' AS advice
FROM per_trace AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.idle_ns > 0 AND p.idle_ns >= :min_share * a.span_ns
