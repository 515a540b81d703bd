-- name: collective_ranks
-- description: One row per collective and rank: when the rank started it, how long it took there, how long it waited for the last rank to arrive (implicit synchronisation), and its algorithm and bus bandwidth as nccl-tests defines them (TraceLens NcclAnalyser per-rank wait_time and bus bw).
-- param :trace_id NULL (integer) — only this trace's rows (traces.id); the waits still compare it with every trace
-- param :top -1 (integer) — only the N collectives with the most waiting summed over their ranks (ties: the longest, then the earliest); -1: all
--
-- Collectives are matched across ranks as in collectives: the rows of the view collective_ops with
-- the same (process_group, seq) in different traces are one collective.
-- Columns:
--   process_group, seq, collective   the collective (collective_ops; collective is this rank's name)
--   rank            traces.rank (distributedInfo), or the trace id when the trace has no rank
--   trace_id
--   ts, dur         this rank's op: start and duration (ns)
--   wait_ns         latest start over the ranks - this rank's start: the time this rank's op waited
--                   for the last rank to arrive (TraceLens wait_time); 0 on the last rank
--   ranks           traces holding this collective
--   msg_bytes, group_size   as in collectives (this rank's args)
--   algo_gb_per_s   msg_bytes / dur (decimal GB/s, nccl-tests algbw); dur includes wait_ns, so the
--                   last rank to arrive shows the transfer's own bandwidth
--   bus_gb_per_s    algo_gb_per_s x collective_ops.bus_factor (nccl-tests busbw: 2(n-1)/n all-reduce;
--                   (n-1)/n all-gather, reduce-scatter, all-to-all; 1 broadcast, reduce, send/recv)
-- Rows: by the collective's first start over the ranks, then process_group, seq, rank. The waits
-- need one trace per rank of one job (tracesql import rank*.json -o job.db) with comparable clocks.
WITH ops AS (
  SELECT o.*,
         max(o.ts) OVER c - o.ts AS wait_ns,
         min(o.ts) OVER c AS first_ts,
         count(*) OVER c AS ranks
  FROM collective_ops AS o
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
