-- combine: collective_ranks
-- partitions: every
-- Collectives matched across the partitions' traces by (process_group, seq), as the query matches
-- them across the traces of one database: the per-rank rows of collective_ranks.partial.sql, then
-- the query's own cross-rank step (waits, :top, -p trace_id's rows: the job's trace id).
WITH ops AS (
  SELECT o.process_group, o.seq, o.collective, coalesce(o.trace_rank, o.trace_id) AS rank, o.trace_id, o.ts,
         o.dur, o.msg_bytes, o.group_size, o.bus_factor,
         max(o.ts) OVER c - o.ts AS wait_ns,
         min(o.ts) OVER c AS first_ts,
         count(*) OVER c AS ranks
  FROM partial AS o
  WINDOW c AS (PARTITION BY o.process_group, o.seq)
),
picked AS (                           -- the collectives shown (:top), with their first start
  SELECT process_group, seq, min(first_ts) AS first_ts
  FROM ops
  GROUP BY process_group, seq
  ORDER BY sum(wait_ns) DESC, max(dur) DESC, min(first_ts), process_group, seq
  LIMIT coalesce(:top, -1)
)
SELECT
  o.process_group,
  o.seq,
  o.collective,
  o.rank,
  o.trace_id,
  o.ts,
  o.dur,
  o.wait_ns,
  o.ranks,
  o.msg_bytes,
  o.group_size,
  round(1.0 * o.msg_bytes / nullif(o.dur, 0), 3) AS algo_gb_per_s,
  round(1.0 * o.msg_bytes * o.bus_factor / nullif(o.dur, 0), 3) AS bus_gb_per_s
FROM ops AS o
JOIN picked AS p ON p.process_group = o.process_group AND p.seq = o.seq
WHERE :trace_id IS NULL OR o.trace_id = :trace_id
ORDER BY p.first_ts, o.process_group, o.seq, o.rank, o.trace_id;
