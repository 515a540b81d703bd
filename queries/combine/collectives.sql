-- combine: collectives
-- Collectives matched across the partitions' traces by (process_group, seq), as the query matches
-- them across the traces of one database: the per-rank rows of collectives.partial.sql, then the
-- query's own cross-rank step (first trace's metadata, skews, the last rank to arrive).
WITH ops AS (
  SELECT process_group, seq, trace_id, coalesce(trace_rank, trace_id) AS rank, ts, dur, collective, kernel,
         pg_desc, pg_ranks, group_size, dtype, in_nelems, out_nelems, msg_bytes, bus_factor
  FROM partial
),
ranked AS (                           -- order of arrival within each collective, and the first trace
  SELECT o.*,
         row_number() OVER (PARTITION BY process_group, seq ORDER BY ts DESC, rank, trace_id) AS last_arrival,
         row_number() OVER (PARTITION BY process_group, seq ORDER BY trace_id) AS first_trace
  FROM ops AS o
),
coll AS (
  SELECT process_group, seq,
         max(CASE WHEN first_trace = 1 THEN collective END) AS collective,
         max(CASE WHEN first_trace = 1 THEN kernel END) AS kernel,
         max(CASE WHEN first_trace = 1 THEN pg_desc END) AS pg_desc,
         max(CASE WHEN first_trace = 1 THEN pg_ranks END) AS pg_ranks,
         max(CASE WHEN first_trace = 1 THEN group_size END) AS group_size,
         max(CASE WHEN first_trace = 1 THEN dtype END) AS dtype,
         max(CASE WHEN first_trace = 1 THEN in_nelems END) AS in_nelems,
         max(CASE WHEN first_trace = 1 THEN out_nelems END) AS out_nelems,
         max(CASE WHEN first_trace = 1 THEN msg_bytes END) AS msg_bytes,
         max(CASE WHEN first_trace = 1 THEN bus_factor END) AS bus_factor,
         count(*) AS ranks,
         min(ts) AS first_ts,
         min(dur) AS dur_min_ns,
         max(dur) AS dur_max_ns,
         sum(dur) / count(*) AS dur_avg_ns,
         max(ts) - min(ts) AS start_skew_ns,
         max(ts + dur) - min(ts + dur) AS end_skew_ns,
         max(CASE WHEN last_arrival = 1 THEN rank END) AS slowest_rank
  FROM ranked
  GROUP BY process_group, seq
)
SELECT
  process_group,
  seq,
  collective,
  kernel,
  pg_desc,
  pg_ranks,
  group_size,
  dtype,
  in_nelems,
  out_nelems,
  msg_bytes,
  ranks,
  first_ts,
  dur_min_ns,
  dur_max_ns,
  dur_avg_ns,
  start_skew_ns,
  end_skew_ns,
  slowest_rank,
  round(1.0 * msg_bytes / nullif(dur_min_ns, 0), 3) AS algo_gb_per_s,
  round(1.0 * msg_bytes * bus_factor / nullif(dur_min_ns, 0), 3) AS bus_gb_per_s
FROM coll
ORDER BY first_ts, process_group, seq
LIMIT coalesce(:limit, -1);
