-- title: Host-to-device copies not overlapped with compute
-- detects: time a device spends copying host to device (Memcpy HtoD) with no kernel running beside
--   it: the pieces of gpu_segments during which only HtoD copies run (their name sets read from
--   gpu_name_sets and gpu_op_names).
-- evidence: the number of such pieces, the longest (its start ts and length) and their time range.
-- advice: Copy the next batch while the current one computes: pinned memory, .to(device,
--   non_blocking=True) issued ahead of use (a prefetcher, or a side stream), or keep the data on the
--   GPU.
-- time lost: the exposed copy time: a copy that overlapped compute would cost the step nothing.
-- anchor: nsys cuda_memcpy_async (why copies should be async); HTA temporal breakdown (memory time).
-- param :min_share 0.02 — report a device when its exposed HtoD copy time is at least this share of the trace's GPU span
WITH only_h2d AS (                    -- name sets made only of HtoD copies
  SELECT s.name_ids
  FROM gpu_name_sets AS s JOIN gpu_op_names AS n ON n.id = s.name_id
  GROUP BY s.name_ids
  HAVING min(n.kind = 'memcpy' AND n.name LIKE 'Memcpy HtoD%') = 1
),
pieces AS (
  SELECT g.trace_id, g.device, g.ts, g.dur
  FROM gpu_segments AS g
  WHERE g.name_ids IN (SELECT name_ids FROM only_h2d)
),
per_device AS (
  SELECT trace_id, device, count(*) AS pieces, sum(dur) AS exposed_ns, min(ts) AS first_ts,
         max(ts + dur) AS last_ts, max(dur) AS longest
  FROM pieces GROUP BY trace_id, device
)
SELECT
  p.trace_id,
  'exposed_h2d_copy' AS rule,
  CASE WHEN p.exposed_ns >= a.high_ns THEN 'high' WHEN p.exposed_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  p.exposed_ns AS time_lost_ns,
  printf('GPU %s copies host to device for %.3f ms with no kernel beside it (%.1f %% of the GPU span)',
         coalesce(p.device, '?'), p.exposed_ns / 1e6, 100.0 * p.exposed_ns / nullif(a.span_ns, 0)) AS title,
  printf('gpu_segments WHERE trace_id = %d AND device = %s: %d piece%s of HtoD copies alone, the longest %d ns at ts %d; ts %d..%d',
         p.trace_id, coalesce(p.device, 'NULL'), p.pieces, CASE WHEN p.pieces = 1 THEN '' ELSE 's' END, p.longest,
         (SELECT x.ts FROM pieces AS x WHERE x.trace_id = p.trace_id AND x.device IS p.device AND x.dur = p.longest
          ORDER BY x.ts LIMIT 1),
         p.first_ts, p.last_ts) AS evidence,
  'Overlap the copies with compute: pin the host memory and issue .to(device, non_blocking=True) for the '
  || 'next batch while the current one runs (a prefetcher or a side stream), or keep the data on the GPU.'
    AS advice
FROM per_device AS p
JOIN advise_traces AS a ON a.trace_id = p.trace_id
WHERE p.exposed_ns >= :min_share * a.span_ns
