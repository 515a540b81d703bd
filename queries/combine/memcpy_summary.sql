-- combine: memcpy_summary
-- The traces' per-(op, direction, memory kinds) counts, sums and extremes (memcpy_summary.partial.sql)
-- summed; the average and GB/s computed from the integer sums as the query computes them.
SELECT
  op,
  direction,
  src_kind,
  dst_kind,
  sum(ops) AS ops,
  sum(bytes) AS bytes,
  sum(ops_without_bytes) AS ops_without_bytes,
  sum(total_ns) AS total_ns,
  sum(total_ns) / sum(ops) AS avg_ns,
  min(min_ns) AS min_ns,
  max(max_ns) AS max_ns,
  round(1.0 * sum(bytes) / nullif(sum(bytes_ns), 0), 3) AS gb_per_s,
  sum(pageable_async) AS pageable_async,
  sum(sync_launches) AS sync_launches
FROM partial
GROUP BY op, direction, src_kind, dst_kind
ORDER BY total_ns DESC, op, direction, src_kind, dst_kind;
