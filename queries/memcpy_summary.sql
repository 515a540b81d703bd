-- name: memcpy_summary
-- description: Memcpys and memsets per direction and memory kinds (parsed from names like "Memcpy HtoD (Pageable -> Device)"): count, bytes, time, achieved GB/s (sum of bytes / sum of time), and async copies from/to pageable memory (nsys cuda_memcpy_async).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :device NULL (integer) — only this device; all devices when NULL
--
-- Name parsing (Kineto writes "Memcpy <dir> (<src kind> -> <dst kind>)" and "Memset (<kind>)"):
--   op         'memcpy' | 'memset' (gpu_ops.kind)
--   direction  the word after "Memcpy " (HtoD, DtoH, DtoD, HtoH, PtoP, ...), else the 'kind' arg
--              (ROCm), else NULL; 'Memset' for memsets
--   src_kind, dst_kind   the two sides of " -> " inside the parentheses (Pageable, Pinned, Device,
--              Managed, Host on ROCm, ...); a memset's single kind is dst_kind
-- Columns: ops, bytes (sum of the 'bytes' arg; ops without it are counted in ops_without_bytes),
--   total_ns, avg_ns (integer), min_ns, max_ns,
--   gb_per_s = sum(bytes) / sum(dur) over the ops that have bytes (bytes per ns = decimal GB/s; the
--              aggregate is a ratio of sums, not a mean of per-op bandwidths); NULL when no time
--   pageable_async  ops from or to pageable memory launched by an asynchronous call (cudaMemcpyAsync,
--              hipMemcpyAsync, ...: name LIKE '%memcpy%async%'): the copy is staged through a
--              pinned buffer and the call blocks the host; nsys cuda_memcpy_async flags them
--   sync_launches   ops launched by a synchronous memcpy/memset call (no "Async" in its name:
--              cudaMemcpy, hipMemcpyWithStream, cudaMemset, ...)
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
  sum(dur) / count(*) AS avg_ns,
  min(dur) AS min_ns,
  max(dur) AS max_ns,
  round(1.0 * sum(bytes) / nullif(sum(CASE WHEN bytes IS NOT NULL THEN dur END), 0), 3) AS gb_per_s,
  sum(op = 'memcpy' AND (src_kind = 'Pageable' OR dst_kind = 'Pageable')
      AND launch_name LIKE '%memcpy%async%') AS pageable_async,
  sum((launch_name LIKE '%memcpy%' OR launch_name LIKE '%memset%')
      AND launch_name NOT LIKE '%async%') AS sync_launches
FROM parsed
GROUP BY op, direction, src_kind, dst_kind
ORDER BY total_ns DESC, op, direction, src_kind, dst_kind;
