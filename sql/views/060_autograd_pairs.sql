-- autograd_pairs: forward op and its backward op. Linked by the fwdbwd flow (link = 'flow'); in a trace
-- without fwdbwd flows, by Sequence number (link = 'seq'): the backward node
-- 'autograd::engine::evaluate_function: XBackward0' (in 2020-21 traces, which lack those wrappers, the
-- node itself: 'XBackward', 'XBackward0') carries the forward op's Sequence number; the forward op is
-- the CPU op with that number on another thread of the trace, the latest one when several nested ops
-- match (TraceLens's rule, and the op Kineto's fwdbwd flows start from). *_gpu_time sums the GPU ops launched inside each op's subtree (launch call
-- contained in the op on its thread).
-- When materialised, the importer computes the rows of traces that have fwdbwd flows
-- (src/import/analysis.cc; the tests compare them with this SELECT); traces linked by Sequence
-- number get theirs from this SELECT.
-- @materialize
-- @computed
CREATE VIEW autograd_pairs AS
WITH flow_pairs AS (
  SELECT f.trace_id, f.src_event_id AS fwd_id, f.dst_event_id AS bwd_id, 'flow' AS link
  FROM flows AS f
  WHERE f.cat = 'fwdbwd' AND f.src_event_id IS NOT NULL AND f.dst_event_id IS NOT NULL
),
seq_traces AS (                       -- traces without fwdbwd flows: only these are linked by number
  SELECT t.id AS trace_id,
         EXISTS (SELECT 1 FROM event_ranges AS r    -- the trace's own CPU ops (cpu_ops reads every
                  JOIN events AS c                  -- trace's range and filters by trace_id)
                    ON c.id BETWEEN r.first_id AND r.last_id
                  WHERE r.kind = 'cpu_op' AND r.trace_id = t.id AND c.cat IN ('cpu_op', 'Operator')
                    AND c.name LIKE 'autograd::engine::evaluate_function: %') AS has_eval
  FROM traces AS t
  WHERE t.id NOT IN (SELECT f.trace_id FROM flows AS f WHERE f.cat = 'fwdbwd')  -- one scan of flows
),
seq_bwd AS (                          -- backward nodes of the traces linked by number
  SELECT b.trace_id, b.id, b.seq_num, b.thread_id
  FROM cpu_ops AS b
  WHERE EXISTS (SELECT 1 FROM seq_traces)  -- constant: when every trace has flows, nothing is read
    AND b.trace_id IN (SELECT trace_id FROM seq_traces)
    AND b.seq_num IS NOT NULL
    AND (b.name LIKE 'autograd::engine::evaluate_function: %'
         OR (b.name GLOB '*Backward*' AND b.name NOT GLOB 'aten::*'
             AND b.trace_id IN (SELECT trace_id FROM seq_traces WHERE NOT has_eval)))
  LIMIT -1                            -- not flattened into the join (see seq_fwd)
),
seq_fwd AS (                          -- the forward ops they may point at
  SELECT f.trace_id, f.id, f.seq_num, f.thread_id, f.ts
  FROM cpu_ops AS f
  WHERE EXISTS (SELECT 1 FROM seq_traces)
    AND f.trace_id IN (SELECT trace_id FROM seq_traces)
    AND f.seq_num IS NOT NULL
    AND f.name NOT LIKE 'autograd::engine::evaluate_function: %'
    AND NOT (f.name GLOB '*Backward*' AND f.name NOT GLOB 'aten::*')
  LIMIT -1                            -- LIMIT keeps the two sides from being flattened into one
),                                    -- join over cpu_ops: each is read once and joined through an
                                      -- automatic index (flattened, one side was rescanned for every
                                      -- trace: 4.8 s instead of 0.4 s on a 19-trace database)
seq_candidates AS (
  SELECT b.trace_id, f.id AS fwd_id, b.id AS bwd_id,
         row_number() OVER (PARTITION BY b.id ORDER BY f.ts DESC, f.id DESC) AS rn
  FROM seq_bwd AS b
  JOIN seq_fwd AS f ON f.trace_id = b.trace_id AND f.seq_num = b.seq_num AND f.thread_id <> b.thread_id
),
pairs AS (
  SELECT * FROM flow_pairs
  UNION ALL
  SELECT trace_id, fwd_id, bwd_id, 'seq' FROM seq_candidates WHERE rn = 1
)
SELECT
  p.trace_id,
  fw.id AS fwd_event_id,
  fw.name AS fwd_name,
  bw.id AS bwd_event_id,
  bw.name AS bwd_name,
  coalesce(fw.seq_num, bw.seq_num) AS seq_num,
  fw.dur AS fwd_dur,
  bw.dur AS bwd_dur,
  (SELECT coalesce(sum(k.gpu_dur), 0) FROM op_kernel_links AS k
    WHERE k.launch_thread_id = fw.thread_id AND k.launch_ts >= fw.ts
      AND k.launch_ts <= fw.ts + fw.dur AND k.launch_ts + k.launch_dur <= fw.ts + fw.dur) AS fwd_gpu_time,
  (SELECT coalesce(sum(k.gpu_dur), 0) FROM op_kernel_links AS k
    WHERE k.launch_thread_id = bw.thread_id AND k.launch_ts >= bw.ts
      AND k.launch_ts <= bw.ts + bw.dur AND k.launch_ts + k.launch_dur <= bw.ts + bw.dur) AS bwd_gpu_time,
  p.link                              -- 'flow' | 'seq'
FROM pairs AS p
JOIN events AS fw ON fw.id = p.fwd_id
JOIN events AS bw ON bw.id = p.bwd_id;
