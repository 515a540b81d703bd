-- title: A straggler rank the others wait for
-- detects: in a database holding several ranks of one job, the rank that starts collectives last
--   (bundled query collectives: slowest_rank, the last rank to start; start_skew_ns, latest start -
--   earliest start) in at least :min_fraction of the collectives that ran on two ranks or more.
-- evidence: the rank's trace, how many collectives it was last at, and the process group and seq of
--   the three with the largest skew (collectives' process_group, seq).
-- advice: Find what delays that rank before its collectives: its own slower steps (data loading,
--   host work, uneven shapes or load), a slower GPU or link; compare its trace with another rank's
--   (`tracesql run DB trace_diff`).
-- time lost: the summed start skew of the collectives it was last at: each time, the earliest rank
--   waited that long for it.
-- anchor: HTA stragglers (straggler analysis); TraceLens NcclAnalyser (skew in start time).
-- when: (SELECT count(*) FROM traces) >= 2
-- uses: collectives limit=-1
-- param :min_fraction 0.5 — report a rank last at at least this fraction of the multi-rank collectives
-- param :min_skew_ns 100000 — ... with at least this much summed skew (ns)
WITH c AS (
  SELECT * FROM q_collectives WHERE ranks >= 2
),
per_rank AS (
  SELECT slowest_rank AS rank, count(*) AS last_at, sum(start_skew_ns) AS skew_ns, max(start_skew_ns) AS max_skew,
         min(first_ts) AS first_ts, max(first_ts) AS last_ts
  FROM c GROUP BY slowest_rank
),
top AS (
  SELECT slowest_rank AS rank, process_group, seq,
         row_number() OVER (PARTITION BY slowest_rank ORDER BY start_skew_ns DESC, first_ts) AS rn
  FROM c
),
found AS (
  SELECT r.*, (SELECT count(*) FROM c) AS multi,
         (SELECT t.id FROM traces AS t WHERE coalesce(t.rank, t.id) = r.rank ORDER BY t.id LIMIT 1) AS trace_id
  FROM per_rank AS r
  WHERE r.skew_ns >= :min_skew_ns AND r.last_at >= :min_fraction * (SELECT count(*) FROM c)
)
SELECT
  f.trace_id,
  'stragglers' AS rule,
  CASE WHEN f.skew_ns >= a.high_ns THEN 'high' WHEN f.skew_ns >= a.medium_ns THEN 'medium' ELSE 'low' END
    AS severity,
  f.skew_ns AS time_lost_ns,
  printf('rank %d starts %d of %d collectives last; the others wait %.3f ms for it (at most %.3f ms at once)',
         f.rank, f.last_at, f.multi, f.skew_ns / 1e6, f.max_skew / 1e6) AS title,
  printf('collectives WHERE slowest_rank = %d; largest skews at %s; first_ts %d..%d',
         f.rank,
         (SELECT group_concat(printf('%s seq %d', t.process_group, t.seq), ', ')
          FROM (SELECT * FROM top AS t WHERE t.rank = f.rank AND t.rn <= 3 ORDER BY t.rn) AS t),
         f.first_ts, f.last_ts) AS evidence,
  'Find what delays this rank before its collectives (data loading, host work, uneven batch shapes or '
  || 'load, a slower GPU or link): compare its trace with another rank''s (`tracesql run DB trace_diff`).'
    AS advice
FROM found AS f
LEFT JOIN advise_traces AS a ON a.trace_id = f.trace_id
