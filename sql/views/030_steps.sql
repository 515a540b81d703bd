-- steps: one row per ProfilerStep#N annotation on the host, with the GPU extent of the ops launched
-- inside it (first GPU start, last GPU end; NULL when it launched nothing).
-- The importer computes its rows (src/import/analysis.cc, beside op_kernel_links'); this SELECT is
-- their definition, the tests compare the two, and it fills the table for traces left to the SQL.
-- @materialize
-- @computed
CREATE VIEW steps AS
SELECT
  e.trace_id,
  e.step,                             -- N
  e.id AS event_id,                   -- the annotation (events.id)
  e.thread_id,
  e.ts,                               -- CPU start (ns)
  e.dur,                              -- CPU duration (ns)
  e.ts + e.dur AS end_ts,             -- CPU end (ns)
  g.gpu_ts,                           -- first start of a GPU op launched in the step
  g.gpu_end_ts,                       -- last end of a GPU op launched in the step
  coalesce(g.gpu_ops, 0) AS gpu_ops   -- number of GPU ops launched in the step
-- host annotations (legacy Operator steps are 'other'); e.trace_id = r.trace_id, always true, lets a
-- filter on trace_id pick that trace's ranges by event_ranges' key
FROM event_ranges AS r
JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
LEFT JOIN (
  SELECT trace_id, step, min(gpu_ts) AS gpu_ts, max(gpu_ts + gpu_dur) AS gpu_end_ts, count(*) AS gpu_ops
  FROM op_kernel_links WHERE step IS NOT NULL GROUP BY trace_id, step
) AS g ON g.trace_id = e.trace_id AND g.step = e.step
WHERE r.kind IN ('user_annotation', 'other')
  AND e.name LIKE 'ProfilerStep#%' AND e.cat IN ('user_annotation', 'Operator') AND e.step IS NOT NULL;
