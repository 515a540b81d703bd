-- title: Peak memory close to the device's capacity
-- detects: a GPU whose peak reserved memory (bundled query memory_peak: peak_reserved, else
--   peak_allocated; needs profile_memory=True, and traces whose allocator events carry totals:
--   a running sum of Bytes has an unknown base) reaches at least :min_fraction of its memory
--   (devices.total_memory). The rule runs only when a [memory] event's integer total
--   (memory_args) reaches that much of a device of that id (one scan: each device id's largest
--   total, then the devices of that id; joining every event to every device of its id grows with
--   the traces squared: 53 s of CPU on 256 traces).
-- evidence: the peak's event and time (memory_peak.peak_event_id, peak_ts) and the op running then.
-- advice: Near the limit the allocator frees its cache and retries (cudaFree, synchronising) and an
--   out-of-memory error is a batch away: activation checkpointing, smaller micro-batches with
--   gradient accumulation, bf16, FSDP/ZeRO sharding, expandable_segments.
-- time lost: 0: a risk, not time spent (the allocator's retries show up in allocator_churn).
-- anchor: TensorBoard plugin memory view; PyTorch memory snapshot.
-- when: EXISTS (SELECT 1 FROM (SELECT device_id, max(coalesce(total_reserved, total_allocated)) AS top
--                             FROM memory_args WHERE device_type IN (1, 6) GROUP BY device_id) AS m
--   JOIN devices AS d ON d.device = m.device_id
--   WHERE d.total_memory > 0 AND m.top >= :min_fraction * d.total_memory)
-- uses: memory_peak
-- param :min_fraction 0.9 — report a device whose peak reaches this fraction of its memory
SELECT
  m.trace_id,
  'memory_near_limit' AS rule,
  CASE WHEN 1.0 * coalesce(m.peak_reserved, m.peak_allocated) / d.total_memory >= 0.97 THEN 'high' ELSE 'medium' END
    AS severity,
  0 AS time_lost_ns,
  printf('GPU %d peaks at %.2f GB %s of its %.2f GB (%.1f %%)', m.device_id,
         coalesce(m.peak_reserved, m.peak_allocated) / 1e9,
         CASE WHEN m.peak_reserved IS NOT NULL THEN 'reserved' ELSE 'allocated' END,
         d.total_memory / 1e9, 100.0 * coalesce(m.peak_reserved, m.peak_allocated) / d.total_memory) AS title,
  printf('memory_peak: peak allocated at event %d (ts %d, step %s) under %s',
         m.peak_event_id, m.peak_ts, coalesce(m.step, '-'), coalesce(m.top_op_name, m.op_name, '(no CPU op)'))
    AS evidence,
  'Leave headroom: activation checkpointing, smaller micro-batches with gradient accumulation, bf16, '
  || 'FSDP/ZeRO sharding, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.' AS advice
FROM q_memory_peak AS m
JOIN devices AS d ON d.trace_id = m.trace_id AND d.device = m.device_id
WHERE m.device_type IN (1, 6) AND d.total_memory > 0 AND m.source = 'trace'
  AND coalesce(m.peak_reserved, m.peak_allocated) >= :min_fraction * d.total_memory
