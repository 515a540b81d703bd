-- name: collectives
-- description: One row per collective (communication GPU op, matched across the ranks of the database): name, message sizes, process group, duration, and across ranks the start/end skew and the slowest (last-arriving) rank (TraceLens NcclAnalyser, HTA stragglers).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL (needed for the cross-rank columns)
-- param :limit -1 (integer) — number of rows (-1: all)
--
-- Collectives are the rows of the view collective_ops: GPU ops of class 'communication'
-- (kernel_class_rules) with their metadata, from the op's own args (Kineto copies
-- record_param_comms' args onto NCCL kernels) or else from the record_param_comms CPU op that
-- launched it: Collective name, Process Group Name / Description / Ranks, Group size, dtype, In msg
-- nelems, Out msg nelems.
-- Matching across ranks (TraceLens's collective_id): within each trace, the communication ops of a
-- process group (or, without one, of a stream: TraceLens's "simplified mode") are numbered in start
-- order (collective_ops.seq); ops with the same (group, seq) in different traces are one collective.
-- Columns:
--   process_group   'pg <Process Group Name>' or 'stream <N>' when the args have no group
--   seq             1.. within the group
--   collective      'Collective name' arg, else the word after the first '_' of the kernel name, up
--                   to the next '_' or '(' (ncclKernel_AllReduce_RING_LL_Sum_float -> AllReduce);
--                   for ncclDevKernel_Generic*, which runs any collective, the CPU slice around the
--                   launch (nccl:all_reduce -> all_reduce) or the op that launched it
--   kernel          the GPU op name (of the lowest trace id)
--   pg_desc, pg_ranks, group_size, dtype, in_nelems, out_nelems   args as written (lowest trace id)
--   msg_bytes       message size in bytes: Out msg nelems for all-gather (the full gathered
--                   message), In msg nelems otherwise, times the dtype size (TraceLens "Full msg")
--   ranks           traces holding this collective; rank ids are traces.rank (distributedInfo), or
--                   the trace id when the trace has no rank
--   first_ts        earliest start over the ranks (ns)
--   dur_min_ns      shortest duration over the ranks: the transfer itself (TraceLens comm_latency)
--   dur_max_ns, dur_avg_ns (integer)
--   start_skew_ns   latest start - earliest start (TraceLens "skew in start time")
--   end_skew_ns     latest end - earliest end
--   slowest_rank    the rank that started last: everybody else waited for it (a straggler)
--   algo_gb_per_s   msg_bytes / dur_min_ns (decimal GB/s; TraceLens uses MB = 2^20 bytes and GB = 1024 MB)
--   bus_gb_per_s    algo_gb_per_s x nccl-tests' bus factor for the collective and group size n:
--                   2(n-1)/n all-reduce; (n-1)/n all-gather, reduce-scatter, all-to-all; 1 broadcast,
--                   reduce, send/recv (collective_ops.bus_factor); NULL when n is needed and unknown
-- The skew columns need one trace per rank of one job (tracesql import rank*.json -o job.db) with
-- comparable clocks; with one trace they are 0 and slowest_rank is that trace's rank.
WITH ops AS (
  SELECT * FROM collective_ops WHERE :trace_id IS NULL OR trace_id = :trace_id
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
