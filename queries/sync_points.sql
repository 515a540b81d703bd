-- name: sync_points
-- description: Host synchronisation calls (device / stream / event synchronize, synchronous memcpy and memset, async copies that block on pageable memory; CUDA, HIP and driver API): duration, the CPU op that called them, and the GPU idle time each one overlaps. Longest first.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :min_dur 0 (number) — ignore calls shorter than this many ns
-- param :limit 100 (integer) — number of rows (-1: all)
--
-- sync_kind (runtime_calls, by name):
--   device           cudaDeviceSynchronize, hipDeviceSynchronize, cuCtxSynchronize, MTIA synchronize
--   stream           cudaStreamSynchronize, hipStreamSynchronize, cuStreamSynchronize,
--                    MTIA synchronizeStream
--   event            cudaEventSynchronize, hipEventSynchronize, cuEventSynchronize
--   memcpy           a memcpy call without "Async" in its name (cudaMemcpy, cudaMemcpy2D,
--                    cudaMemcpyToSymbol, hipMemcpy, hipMemcpyWithStream, cuMemcpyDtoH, ...)
--   memset           a memset call without "Async" (cudaMemset, hipMemset, ...)
--   memcpy_pageable  an async memcpy call whose copy is from or to pageable memory: it blocks
--                    the host like a synchronous one (nsys cuda_memcpy_async)
-- Not included: cudaEventQuery / cudaStreamQuery (they poll, never block), cudaStreamWaitEvent
-- (makes a stream wait, not the host). nsys's cuda_api_sync rule covers only device and stream
-- synchronize; HTA's critical path treats cudaEventQuery and every cudaMemcpyAsync as blocking.
-- Columns: event_id (events.id of the call), tid of the calling thread, op_name / top_op_name
--   (innermost / outermost CPU op around the call), step (ProfilerStep N),
--   gpu_idle_ns  the part of the call's interval during which the GPU was idle (idle_gaps: no op on
--                any stream, inside the first..last GPU op span), added over the trace's devices
--   gpu_idle_pct gpu_idle_ns / dur x 100
WITH calls AS NOT MATERIALIZED (     -- (read once, by syncs: only the sync calls are kept)
  SELECT r.id, r.trace_id, r.tid, r.name, r.ts, r.dur, r.cpu_op_id, r.top_cpu_op_id, r.step,
         CASE
           -- the launch calls, nearly every runtime call: none of the kinds below (one lookup each
           -- instead of the name tests)
           WHEN r.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx',
                           'hipLaunchKernel', 'hipExtLaunchKernel', 'hipModuleLaunchKernel',
                           'hipExtModuleLaunchKernel', 'cudaGraphLaunch', 'hipGraphLaunch') THEN NULL
           WHEN r.name IN ('cudaDeviceSynchronize', 'hipDeviceSynchronize', 'cuCtxSynchronize')
             OR (r.cat = 'mtia_runtime' AND r.name = 'synchronize') THEN 'device'
           WHEN r.name IN ('cudaStreamSynchronize', 'hipStreamSynchronize', 'cuStreamSynchronize')
             OR (r.cat = 'mtia_runtime' AND r.name = 'synchronizeStream') THEN 'stream'
           WHEN r.name IN ('cudaEventSynchronize', 'hipEventSynchronize', 'cuEventSynchronize') THEN 'event'
           WHEN (r.name GLOB 'cudaMemcpy*' OR r.name GLOB 'hipMemcpy*' OR r.name GLOB 'cuMemcpy*')
             AND r.name NOT LIKE '%async%' THEN 'memcpy'
           WHEN (r.name GLOB 'cudaMemset*' OR r.name GLOB 'hipMemset*' OR r.name GLOB 'cuMemset*')
             AND r.name NOT LIKE '%async%' THEN 'memset'
           WHEN r.name LIKE '%memcpy%async%'
             AND EXISTS (SELECT 1 FROM op_kernel_links AS k  -- (the name by name_id: no event read)
                          JOIN gpu_op_names AS n ON n.id = k.name_id
                          WHERE k.launch_event_id = r.id AND k.gpu_kind = 'memcpy'
                            AND n.name LIKE '%pageable%') THEN 'memcpy_pageable'
         END AS sync_kind
  FROM runtime_calls AS r
  WHERE r.dur IS NOT NULL AND r.dur >= coalesce(:min_dur, 0)
    AND (:trace_id IS NULL OR r.trace_id = :trace_id)
),
syncs AS MATERIALIZED (               -- the :limit longest: only those need their idle overlap
  SELECT * FROM calls WHERE sync_kind IS NOT NULL
  ORDER BY dur DESC, trace_id, ts, id
  LIMIT coalesce(:limit, 100)
),
devices AS (                          -- per trace and device with idle gaps, the longest gap: lets
  SELECT trace_id, device, max(dur) AS max_gap  -- the overlap search use the (trace, device, ts)
  FROM idle_gaps                                 -- index over a window that one long gap in
  WHERE trace_id IN (SELECT trace_id FROM syncs) -- another trace does not widen
  GROUP BY trace_id, device
),
idle AS (
  SELECT s.id,
         sum(max(0, min(g.end_ts, s.ts + s.dur) - max(g.ts, s.ts))) AS idle_ns
  FROM syncs AS s                     -- (CROSS JOIN: per call, per device, a range of gaps)
  CROSS JOIN devices AS d ON d.trace_id = s.trace_id
  CROSS JOIN idle_gaps AS g
    ON g.trace_id = d.trace_id AND g.device IS d.device
   AND g.ts < s.ts + s.dur AND g.ts >= s.ts - d.max_gap
  GROUP BY s.id
)
SELECT
  s.trace_id,
  s.id AS event_id,
  s.name,
  s.sync_kind,
  s.tid,
  s.ts,
  s.dur,
  op.name AS op_name,
  top.name AS top_op_name,
  s.step,
  coalesce(i.idle_ns, 0) AS gpu_idle_ns,
  round(100.0 * coalesce(i.idle_ns, 0) / nullif(s.dur, 0), 2) AS gpu_idle_pct
FROM syncs AS s
LEFT JOIN idle AS i ON i.id = s.id
LEFT JOIN events AS op ON op.id = s.cpu_op_id
LEFT JOIN events AS top ON top.id = s.top_cpu_op_id
ORDER BY s.dur DESC, s.trace_id, s.ts, s.id
LIMIT coalesce(:limit, 100);
