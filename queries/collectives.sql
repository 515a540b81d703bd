-- name: collectives
-- description: One row per collective (communication GPU op, matched across the ranks of the database): name, message sizes, process group, duration, and across ranks the start/end skew and the slowest (last-arriving) rank (TraceLens NcclAnalyser, HTA stragglers).
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL (needed for the cross-rank columns)
-- param :limit -1 (integer) — number of rows (-1: all)
--
-- Collectives are GPU ops of class 'communication' (kernel_class_rules). Their metadata comes from
-- the op's own args (Kineto copies record_param_comms' args onto NCCL kernels) or else from the
-- record_param_comms CPU op that launched it: Collective name, Process Group Name / Description /
-- Ranks, Group size, dtype, In msg nelems, Out msg nelems.
-- Matching across ranks (TraceLens's collective_id): within each trace, the communication ops of a
-- process group (or, without one, of a stream: TraceLens's "simplified mode") are numbered in start
-- order (seq); ops with the same (group, seq) in different traces are one collective.
-- Columns:
--   process_group   'pg <Process Group Name>' or 'stream <N>' when the args have no group
--   seq             1.. within the group
--   collective      'Collective name' arg, else the word after the first '_' of the kernel name, up
--                   to the next '_' or '(' (ncclKernel_AllReduce_RING_LL_Sum_float -> AllReduce)
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
-- The skew columns need one trace per rank of one job (tracesql import rank*.json -o job.db) with
-- comparable clocks; with one trace they are 0 and slowest_rank is that trace's rank.
WITH names AS (                       -- the communication op names, from the rules
  SELECT name, kind FROM (
    SELECT n.name, n.kind,
           (SELECT r.class FROM kernel_class_rules AS r
             WHERE (r.kind IS NULL OR r.kind = n.kind)
               AND CASE r.syntax WHEN 'like' THEN n.name LIKE r.pattern ELSE n.name GLOB r.pattern END
             ORDER BY r.priority DESC, r.id LIMIT 1) AS class
    FROM (SELECT DISTINCT gpu_name AS name, gpu_kind AS kind FROM op_kernels
          WHERE gpu_dur IS NOT NULL AND (:trace_id IS NULL OR trace_id = :trace_id)) AS n)
  WHERE class = 'communication'
),
comm AS (                             -- the communication ops, with where to read their metadata
  SELECT o.trace_id, coalesce(t.rank, o.trace_id) AS rank, o.gpu_event_id AS id, o.gpu_name AS kernel,
         o.stream, o.gpu_ts AS ts, o.gpu_dur AS dur,
         CASE WHEN o.op_name = 'record_param_comms' THEN o.op_event_id END AS rpc_id
  FROM op_kernels AS o
  CROSS JOIN names AS n
  JOIN traces AS t ON t.id = o.trace_id
  WHERE n.name = o.gpu_name AND n.kind = o.gpu_kind
    AND o.gpu_dur IS NOT NULL AND (:trace_id IS NULL OR o.trace_id = :trace_id)
),
kv AS (                               -- metadata args: the op's own (src 0), then record_param_comms's
  SELECT c.id, k.key, e.arg_values ->> k.path AS value, 0 AS src
  FROM comm AS c JOIN events AS e ON e.id = c.id JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
  WHERE k.key IN ('Collective name', 'Process Group Name', 'Process Group Description',
                  'Process Group Ranks', 'Group size', 'dtype', 'In msg nelems', 'Out msg nelems')
  UNION ALL
  SELECT c.id, k.key, e.arg_values ->> k.path, 1
  FROM comm AS c JOIN events AS e ON e.id = c.rpc_id JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
  WHERE k.key IN ('Collective name', 'Process Group Name', 'Process Group Description',
                  'Process Group Ranks', 'Group size', 'dtype', 'In msg nelems', 'Out msg nelems')
),
meta AS (                             -- one row per op: the first source that has each key
  SELECT id,
         max(CASE WHEN key = 'Collective name' THEN value END) AS collective,
         max(CASE WHEN key = 'Process Group Name' THEN value END) AS pg_name,
         max(CASE WHEN key = 'Process Group Description' THEN value END) AS pg_desc,
         max(CASE WHEN key = 'Process Group Ranks' THEN value END) AS pg_ranks,
         max(CASE WHEN key = 'Group size' THEN value END) AS group_size,
         max(CASE WHEN key = 'dtype' THEN value END) AS dtype,
         max(CASE WHEN key = 'In msg nelems' THEN value END) AS in_nelems,
         max(CASE WHEN key = 'Out msg nelems' THEN value END) AS out_nelems
  FROM (SELECT kv.*, row_number() OVER (PARTITION BY id, key ORDER BY src) AS rn FROM kv)
  WHERE rn = 1
  GROUP BY id
),
inst AS (                             -- each op with its group and its number within the group
  SELECT c.*, m.pg_desc, m.pg_ranks, m.group_size, m.dtype, m.in_nelems, m.out_nelems,
         coalesce(m.collective, nullif(
                  -- the kernel name after its first '_', up to the next '_' or '('
                  rtrim(substr(substr(c.kernel, instr(c.kernel, '_') + 1), 1,
                               instr(replace(substr(c.kernel, instr(c.kernel, '_') + 1), '(', '_') || '_', '_') - 1)),
                  '')) AS collective,
         CASE WHEN m.pg_name IS NOT NULL THEN 'pg ' || m.pg_name ELSE 'stream ' || c.stream END AS grp
  FROM comm AS c
  LEFT JOIN meta AS m ON m.id = c.id
),
numbered AS (
  SELECT i.*,
         row_number() OVER (PARTITION BY trace_id, grp ORDER BY ts, id) AS seq
  FROM inst AS i
),
ranked AS (                           -- order of arrival within each collective, and the first trace
  SELECT n.*,
         row_number() OVER (PARTITION BY grp, seq ORDER BY ts DESC, rank, trace_id) AS last_arrival,
         row_number() OVER (PARTITION BY grp, seq ORDER BY trace_id) AS first_trace
  FROM numbered AS n
),
coll AS (
  SELECT grp, seq,
         max(CASE WHEN first_trace = 1 THEN collective END) AS collective,
         max(CASE WHEN first_trace = 1 THEN kernel END) AS kernel,
         max(CASE WHEN first_trace = 1 THEN pg_desc END) AS pg_desc,
         max(CASE WHEN first_trace = 1 THEN pg_ranks END) AS pg_ranks,
         max(CASE WHEN first_trace = 1 THEN group_size END) AS group_size,
         max(CASE WHEN first_trace = 1 THEN dtype END) AS dtype,
         max(CASE WHEN first_trace = 1 THEN in_nelems END) AS in_nelems,
         max(CASE WHEN first_trace = 1 THEN out_nelems END) AS out_nelems,
         count(*) AS ranks,
         min(ts) AS first_ts,
         min(dur) AS dur_min_ns,
         max(dur) AS dur_max_ns,
         sum(dur) / count(*) AS dur_avg_ns,
         max(ts) - min(ts) AS start_skew_ns,
         max(ts + dur) - min(ts + dur) AS end_skew_ns,
         max(CASE WHEN last_arrival = 1 THEN rank END) AS slowest_rank
  FROM ranked
  GROUP BY grp, seq
),
sized AS (
  SELECT c.*,
         CASE WHEN lower(c.collective) GLOB '*all*gather*' OR lower(c.collective) GLOB '*allgather*'
              THEN c.out_nelems ELSE c.in_nelems END
         * CASE lower(c.dtype)
             WHEN 'float' THEN 4 WHEN 'float32' THEN 4 WHEN 'int' THEN 4 WHEN 'int32' THEN 4
             WHEN 'uint32' THEN 4
             WHEN 'double' THEN 8 WHEN 'float64' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8
             WHEN 'uint64' THEN 8 WHEN 'complexfloat' THEN 8
             WHEN 'bfloat16' THEN 2 WHEN 'half' THEN 2 WHEN 'float16' THEN 2 WHEN 'short' THEN 2
             WHEN 'int16' THEN 2 WHEN 'uint16' THEN 2
             WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1 WHEN 'int8' THEN 1
             WHEN 'uint8' THEN 1
             WHEN 'complexdouble' THEN 16
             ELSE CASE WHEN lower(c.dtype) GLOB 'float8*' THEN 1 END
           END AS msg_bytes
  FROM coll AS c
)
SELECT
  grp AS process_group,
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
  round(1.0 * msg_bytes / nullif(dur_min_ns, 0), 3) AS algo_gb_per_s
FROM sized
ORDER BY first_ts, process_group, seq
LIMIT coalesce(:limit, -1);
