-- name: kernel_overlap
-- description: Per device and kernel class (kernel_class_rules): how much of the class's GPU time runs while another GPU op runs on another stream of the same device (multi-stream concurrency), and how much runs alone.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
--
-- GPU ops are kernels, memcpys and memsets with a duration; their class comes from
-- kernel_class_rules (view gpu_op_classes: compute, communication, memory, ...). Read from
-- gpu_segments, each device's busy time cut into pieces during which the same GPU op names run:
-- a piece in which two or more names run is concurrent time, and since a stream runs its ops one
-- after another, two different ops running at once are on two streams. Per (device, class):
--   time_ns     sum over pieces of length x the number of the class's names running in it
--               (= the summed durations of the class's GPU ops, unless two ops of one name overlap)
--   overlap_ns  the same sum over the pieces in which at least two names run: the class's time
--               during which a GPU op runs on another stream
--   pct_overlap 100 x overlap_ns / time_ns;  exposed_ns = time_ns - overlap_ns (nothing else ran)
--   names       distinct GPU op names of the class on the device
-- Limits (of reading names, not streams): two ops of the same name running at once on two streams
-- count as one (no overlap); ops of one stream that overlap each other (programmatic dependent
-- launch) count as overlap.
WITH
classes AS MATERIALIZED (SELECT name_id, class FROM gpu_op_classes),
-- time per (device, set of names running together); the sets are few
combos AS (
  SELECT trace_id, device, name_ids, sum(dur) AS dur
  FROM gpu_segments
  WHERE :trace_id IS NULL OR trace_id = :trace_id
  GROUP BY trace_id, device, name_ids
),
-- each set's names with their class (CROSS JOIN: each set's list parsed once, its names' classes
-- looked up; the planner otherwise parsed every list once per class row)
members AS (
  SELECT b.trace_id, b.device, b.dur, instr(b.name_ids, ',') > 0 AS concurrent,
         CAST(j.value AS INTEGER) AS name_id, c.class
  FROM combos AS b
  CROSS JOIN json_each('[' || b.name_ids || ']') AS j
  CROSS JOIN classes AS c
  WHERE c.name_id = CAST(j.value AS INTEGER)
)
SELECT
  trace_id,
  device,
  class,
  count(DISTINCT name_id) AS names,
  sum(dur) AS time_ns,
  sum(CASE WHEN concurrent THEN dur ELSE 0 END) AS overlap_ns,
  round(100.0 * sum(CASE WHEN concurrent THEN dur ELSE 0 END) / sum(dur), 2) AS pct_overlap,
  sum(CASE WHEN concurrent THEN 0 ELSE dur END) AS exposed_ns
FROM members
GROUP BY trace_id, device, class
ORDER BY trace_id, device, time_ns DESC, class;
