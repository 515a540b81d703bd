-- collective_ops: one row per communication GPU op (class 'communication' under kernel_class_rules,
-- view gpu_op_classes) with its collective's metadata and its number within its process group, the
-- key that matches it with the same collective on the other ranks (TraceLens's collective_id). The
-- bundled queries collectives (one row per collective) and collective_ranks (one row per collective
-- and rank) read it. A plain view: edits to kernel_class_rules apply to the next query.
-- Metadata comes from the op's own args (Kineto copies record_param_comms' args onto NCCL kernels),
-- else from the record_param_comms CPU op that launched it: Collective name, Process Group Name /
-- Description / Ranks, Group size, dtype, In msg nelems, Out msg nelems.
-- Numbering: within each trace, the ops of a process group (or, without one, of a stream: TraceLens's
-- "simplified mode") are numbered in start order; the same (process_group, seq) in different traces
-- is one collective.
CREATE VIEW collective_ops AS
WITH comm AS (                        -- the communication ops (ops with a duration)
  SELECT o.trace_id, coalesce(t.rank, o.trace_id) AS rank, o.gpu_event_id, o.name_id, o.device,
         o.stream, o.gpu_ts AS ts, o.gpu_dur AS dur, o.launch_event_id, o.op_event_id,
         (SELECT e.name FROM events AS e WHERE e.id = o.op_event_id) AS op_name
  FROM op_kernel_links AS o
  JOIN traces AS t ON t.id = o.trace_id
  WHERE o.gpu_dur IS NOT NULL
    AND o.name_id IN (SELECT name_id FROM gpu_op_classes WHERE class = 'communication')
),
kv AS (                               -- metadata args: the op's own (src 0), then record_param_comms's
  SELECT c.gpu_event_id AS id, k.key, json_extract(e.arg_values, k.path) AS value, 0 AS src
  FROM comm AS c JOIN events AS e ON e.id = c.gpu_event_id JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
  WHERE k.key IN ('Collective name', 'Process Group Name', 'Process Group Description',
                  'Process Group Ranks', 'Group size', 'dtype', 'In msg nelems', 'Out msg nelems')
  UNION ALL
  SELECT c.gpu_event_id, k.key, json_extract(e.arg_values, k.path), 1
  FROM comm AS c JOIN events AS e ON e.id = c.op_event_id JOIN arg_keys AS k ON k.shape_id = e.arg_shape_id
  WHERE c.op_name = 'record_param_comms'
    AND k.key IN ('Collective name', 'Process Group Name', 'Process Group Description',
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
named AS (                            -- the kernel's name, the name parsed from it, the CPU ops around
  SELECT c.*, m.collective AS meta_collective, m.pg_name, m.pg_desc, m.pg_ranks, m.group_size,
         m.dtype, m.in_nelems, m.out_nelems, g.name AS kernel,
         -- the kernel name after its first '_', up to the next '_' or '(' (ncclKernel_AllReduce_RING_LL_Sum_float -> AllReduce)
         nullif(rtrim(substr(substr(g.name, instr(g.name, '_') + 1), 1,
                             instr(replace(substr(g.name, instr(g.name, '_') + 1), '(', '_') || '_', '_') - 1)),
                '') AS kernel_collective
  FROM comm AS c
  JOIN gpu_op_names AS g ON g.id = c.name_id
  LEFT JOIN meta AS m ON m.id = c.gpu_event_id
),
inst AS (                             -- each op's collective name and group
  SELECT n.*,
         coalesce(n.meta_collective,
                  CASE WHEN n.kernel_collective IS NOT 'Generic' THEN n.kernel_collective END,
                  -- ncclDevKernel_Generic* runs any collective: name it after the slice around its
                  -- launch (nccl:all_reduce -> all_reduce) unless that is record_param_comms, else
                  -- after the op around that record_param_comms (c10d::allgather_ -> allgather)
                  (SELECT rtrim(substr(p.name, length(rtrim(p.name, replace(p.name, ':', ''))) + 1), '_')
                     FROM events AS l JOIN events AS p ON p.id = l.parent_id
                    WHERE l.id = n.launch_event_id AND p.name <> 'record_param_comms'),
                  (SELECT rtrim(substr(p.name, length(rtrim(p.name, replace(p.name, ':', ''))) + 1), '_')
                     FROM events AS r JOIN events AS p ON p.id = r.parent_id
                    WHERE r.id = n.op_event_id AND n.op_name = 'record_param_comms'),
                  n.kernel_collective) AS collective,
         CASE WHEN n.pg_name IS NOT NULL THEN 'pg ' || n.pg_name ELSE 'stream ' || n.stream END AS process_group
  FROM named AS n
),
sized AS (                            -- message size and the bus bandwidth factor of nccl-tests
  SELECT i.*,
         CASE WHEN lower(i.collective) GLOB '*all*gather*' OR lower(i.collective) GLOB '*allgather*'
              THEN i.out_nelems ELSE i.in_nelems END
         * CASE lower(i.dtype)
             WHEN 'float' THEN 4 WHEN 'float32' THEN 4 WHEN 'int' THEN 4 WHEN 'int32' THEN 4
             WHEN 'uint32' THEN 4
             WHEN 'double' THEN 8 WHEN 'float64' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8
             WHEN 'uint64' THEN 8 WHEN 'complexfloat' THEN 8
             WHEN 'bfloat16' THEN 2 WHEN 'half' THEN 2 WHEN 'float16' THEN 2 WHEN 'short' THEN 2
             WHEN 'int16' THEN 2 WHEN 'uint16' THEN 2
             WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1 WHEN 'int8' THEN 1
             WHEN 'uint8' THEN 1
             WHEN 'complexdouble' THEN 16
             ELSE CASE WHEN lower(i.dtype) GLOB 'float8*' THEN 1 END
           END AS msg_bytes,
         lower(replace(replace(i.collective, '_', ''), ' ', '')) AS kind,
         CASE WHEN CAST(i.group_size AS INTEGER) > 0 THEN CAST(i.group_size AS INTEGER) END AS n
  FROM inst AS i
)
SELECT
  trace_id,                           -- trace
  rank,                               -- traces.rank (distributedInfo), else the trace id
  gpu_event_id,                       -- the GPU op (events.id)
  kernel,                             -- its name
  device,                             -- its device
  stream,                             -- its stream
  ts,                                 -- its start (ns)
  dur,                                -- its duration (ns)
  collective,                         -- 'Collective name' arg; else parsed from the kernel name; for
                                      -- ncclDevKernel_Generic*, from the CPU slices around the launch
  process_group,                      -- 'pg <Process Group Name>', or 'stream <N>' without one
  row_number() OVER (PARTITION BY trace_id, process_group ORDER BY ts, gpu_event_id) AS seq,  -- 1.. within the group
  pg_desc,                            -- 'Process Group Description' arg
  pg_ranks,                           -- 'Process Group Ranks' arg
  group_size,                         -- 'Group size' arg
  dtype,                              -- 'dtype' arg
  in_nelems,                          -- 'In msg nelems' arg
  out_nelems,                         -- 'Out msg nelems' arg
  msg_bytes,                          -- Out nelems for all-gather, In nelems otherwise, x dtype size
  CASE                                -- bus bandwidth / algorithm bandwidth, as nccl-tests defines
    WHEN kind GLOB '*allreduce*' THEN 2.0 * (n - 1) / n                     -- it (n = group_size):
    WHEN kind GLOB '*reducescatter*' OR kind GLOB '*allgather*' OR kind GLOB '*alltoall*'
      OR kind GLOB '*gather*' OR kind GLOB '*scatter*' THEN 1.0 * (n - 1) / n
    WHEN kind GLOB '*broadcast*' OR kind GLOB '*reduce*' OR kind GLOB '*sendrecv*'
      OR kind IN ('send', 'recv') THEN 1.0
  END AS bus_factor
FROM sized;
