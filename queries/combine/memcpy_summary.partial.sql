-- partial: memcpy_summary
-- Per (op, direction, memory kinds) of the partition's trace: the counts, sums and extremes of
-- memcpy_summary, and bytes_ns, the summed time of the ops with bytes (the combining query sums them
-- and computes the averages and GB/s from the sums).
WITH m AS (
  SELECT o.gpu_kind AS op, o.gpu_name AS name, o.gpu_dur AS dur, o.launch_name,
         (SELECT e.arg_values ->> k.path FROM arg_keys AS k
           WHERE k.shape_id = e.arg_shape_id AND k.key = 'bytes') AS bytes,
         (SELECT e.arg_values ->> k.path FROM arg_keys AS k
           WHERE k.shape_id = e.arg_shape_id AND k.key = 'kind') AS kind_arg,
         instr(o.gpu_name, '(') AS lp,
         instr(o.gpu_name, ')') AS rp
  FROM op_kernels AS o
  JOIN events AS e ON e.id = o.gpu_event_id
  WHERE o.gpu_kind IN ('memcpy', 'memset') AND o.gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR o.trace_id = :trace_id)
    AND (:device IS NULL OR o.device = :device)
),
p AS (
  SELECT m.*,
         CASE WHEN lp > 0 AND rp > lp THEN substr(name, lp + 1, rp - lp - 1) END AS inner
  FROM m
),
parsed AS (
  SELECT op, dur, bytes, coalesce(launch_name, '') AS launch_name,  -- '' when no launch is known
         CASE WHEN op = 'memset' THEN 'Memset'
              WHEN name GLOB 'Memcpy *'
                THEN trim(substr(name, 8, CASE WHEN lp > 0 THEN lp - 8 ELSE length(name) END))
              ELSE kind_arg END AS direction,
         CASE WHEN instr(inner, ' -> ') > 0 THEN substr(inner, 1, instr(inner, ' -> ') - 1) END AS src_kind,
         CASE WHEN instr(inner, ' -> ') > 0 THEN substr(inner, instr(inner, ' -> ') + 4)
              ELSE inner END AS dst_kind
  FROM p
)
SELECT
  op,
  direction,
  src_kind,
  dst_kind,
  count(*) AS ops,
  sum(bytes) AS bytes,
  sum(bytes IS NULL) AS ops_without_bytes,
  sum(dur) AS total_ns,
  min(dur) AS min_ns,
  max(dur) AS max_ns,
  sum(CASE WHEN bytes IS NOT NULL THEN dur END) AS bytes_ns,
  sum(op = 'memcpy' AND (src_kind = 'Pageable' OR dst_kind = 'Pageable')
      AND launch_name LIKE '%memcpy%async%') AS pageable_async,
  sum((launch_name LIKE '%memcpy%' OR launch_name LIKE '%memset%')
      AND launch_name NOT LIKE '%async%') AS sync_launches
FROM parsed
GROUP BY op, direction, src_kind, dst_kind;
