-- op_gpu_totals: one row per CPU op that launched GPU ops itself (op_kernel_links.op_event_id: the
-- innermost CPU op around the launch call), with its name and shape and those GPU ops counted and
-- timed, so that the per-op-name summaries (op_summary, op_roofline, top_ops) read one narrow row
-- per op instead of grouping op_kernel_links by op and reading each op's name from events. Its index
-- op_gpu_totals_name holds every column they group or sum, in name order: a GROUP BY op_name (and
-- shape, device, trace) reads the index alone, without a sort.
-- Computed by the importer as it writes each trace (same rows as this SELECT; tests compare them).
-- @materialize always
-- @computed
-- @table CREATE TABLE op_gpu_totals (op_event_id INTEGER PRIMARY KEY, trace_id INT, op_name, input_shape_id INT, top_op_event_id INT, top_op_name, gpu_ops INT, timed_gpu_ops INT, gpu_time INT, gpu_union INT, device, name_id);
CREATE VIEW op_gpu_totals AS
WITH per_op AS (
  SELECT op_event_id, min(trace_id) AS trace_id, min(top_op_event_id) AS top_op_event_id,
         count(*) AS gpu_ops, count(gpu_dur) AS timed_gpu_ops, sum(gpu_dur) AS gpu_time,
         min(CASE WHEN gpu_dur IS NOT NULL THEN gpu_event_id END) AS first_timed
  FROM op_kernel_links
  WHERE op_event_id IS NOT NULL
  GROUP BY op_event_id
),
-- each op's timed GPU ops in start order, with the latest end of those before it
timed AS (
  SELECT op_event_id, gpu_ts AS ts, gpu_ts + gpu_dur AS end_ts,
         max(gpu_ts + gpu_dur) OVER (PARTITION BY op_event_id ORDER BY gpu_ts, gpu_event_id
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM op_kernel_links
  WHERE op_event_id IS NOT NULL AND gpu_dur IS NOT NULL
),
-- the union of their intervals: each adds the part of it beyond the end of every earlier one
unions AS (
  SELECT op_event_id, sum(max(0, end_ts - max(ts, coalesce(prev_end, ts)))) AS gpu_union
  FROM timed
  GROUP BY op_event_id
)
SELECT
  p.op_event_id,                      -- the CPU op (events.id)
  p.trace_id,                         -- trace
  o.name AS op_name,                  -- its name
  o.input_shape_id,                   -- its events.input_shape_id (Input Dims / Input type)
  p.top_op_event_id,                  -- outermost CPU op enclosing it (op_kernel_links.top_op_event_id)
  t.name AS top_op_name,              -- its name
  p.gpu_ops,                          -- GPU ops (kernels, memcpys, memsets) it launched itself
  p.timed_gpu_ops,                    -- those with a duration
  p.gpu_time,                         -- their summed duration (ns); NULL when none has one
  CASE WHEN p.timed_gpu_ops = 1 THEN p.gpu_time ELSE u.gpu_union END AS gpu_union,
                                      -- time at least one of them ran (ns): the union of their
                                      -- intervals (one GPU op: its duration); NULL when none is timed
  k.device,                           -- device of the first GPU op with a duration (lowest id)
  k.name_id                           -- its gpu_op_names.id
FROM per_op AS p
JOIN events AS o ON o.id = p.op_event_id
LEFT JOIN events AS t ON t.id = p.top_op_event_id
LEFT JOIN op_kernel_links AS k ON k.gpu_event_id = p.first_timed
LEFT JOIN unions AS u ON u.op_event_id = p.op_event_id;
-- @index CREATE INDEX op_gpu_totals_name ON op_gpu_totals(op_name, input_shape_id, device, trace_id, timed_gpu_ops, gpu_ops, gpu_time, gpu_union, name_id);
