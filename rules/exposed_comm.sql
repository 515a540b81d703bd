-- title: Communication not hidden under compute
-- detects: per rank and device, GPU time in which a communication op (NCCL, RCCL, ... by
--   kernel_class_rules) runs and no compute op does (bundled query comm_overlap, per_step 0:
--   exposed_ns = comm_ns - overlapped_ns).
-- evidence: comm_overlap's figures for the device: communication ops, communication time and its
--   overlapped share; `tracesql run DB comm_overlap` lists them per step.
-- advice: Overlap communication with compute: DDP/FSDP bucketing (bucket_cap_mb), backward
--   prefetch, gradient accumulation with no_sync, fewer or larger collectives; check that the
--   collectives run on their own stream.
-- time lost: exposed_ns: communication that overlapped compute would not lengthen the step.
-- anchor: TraceLens exposed_comm; HTA get_comm_comp_overlap.
-- uses: comm_overlap per_step=0
-- param :min_share 0.05 — report a device when its exposed communication is at least this share of the trace's GPU span
SELECT
  c.trace_id,
  'exposed_comm' AS rule,
  CASE WHEN c.exposed_ns >= a.high_ns THEN 'high' WHEN c.exposed_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  c.exposed_ns AS time_lost_ns,
  printf('rank %s GPU %s: %.3f ms of communication exposed (%.1f %% of its %.3f ms; %.1f %% of the GPU span)',
         coalesce(c.rank, '?'), coalesce(c.device, '?'), c.exposed_ns / 1e6,
         100.0 * c.exposed_ns / nullif(c.comm_ns, 0), c.comm_ns / 1e6,
         100.0 * c.exposed_ns / nullif(a.span_ns, 0)) AS title,
  printf('comm_overlap: trace %d device %s: %d communication ops, %d ns overlapped with compute (%.2f %%); per step: `tracesql run DB comm_overlap -p trace_id=%d`',
         c.trace_id, coalesce(c.device, 'NULL'), c.comm_ops, c.overlapped_ns, coalesce(c.overlap_pct, 0), c.trace_id)
    AS evidence,
  'Hide communication under compute: tune DDP/FSDP bucketing (bucket_cap_mb) and prefetching, use no_sync '
  || 'with gradient accumulation, issue fewer larger collectives, and keep them on their own stream.' AS advice
FROM q_comm_overlap AS c
JOIN advise_traces AS a ON a.trace_id = c.trace_id
WHERE c.step IS NULL AND c.exposed_ns > 0 AND c.exposed_ns >= :min_share * a.span_ns
