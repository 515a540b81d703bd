-- name: trace_diff
-- description: Compare two traces (A = baseline, B = new): CPU ops matched by name and shapes, GPU ops by kind and name; counts and total time on each side, the change, and whether each one was added, removed, got slower or faster. Two traces of one database, or two databases (see below).
-- param :a_trace NULL (integer) — trace id of A in this database; the lowest trace id when NULL
-- param :b_trace NULL (integer) — trace id of B; when NULL the next trace id after A on the B side, else B's lowest (so one trace is compared with itself)
-- param :shapes 1 {0|1} — 0: match CPU ops by name only, as HTA's TraceDiff
-- param :per_step 0 {0|1} — 1: divide counts and times by each side's number of ProfilerStep#N (runs of different length compare)
-- param :tolerance_pct 5 (number) — time changes within this share of A's time count as unchanged
-- param :min_delta 0 (number) — time changes smaller than this (ns; per step with :per_step) count as unchanged
-- param :all 0 {0|1} — 1: list unchanged rows too
-- param :limit 100 (integer) — number of rows
--
-- A is read from this database (main.cpu_op_groups, main.events, main.event_ranges,
-- main.input_shapes, main.stacks, main.arg_keys, main.traces). B is read from the unqualified
-- cpu_op_groups, events, event_ranges, input_shapes, stacks, arg_keys and traces, which are this
-- database's own unless temporary views of those names point elsewhere. So:
--   * two traces in one database (tracesql import a.json b.json -o ab.db): run it as it is;
--     a_trace / b_trace pick them (defaults: trace 1 against trace 2, or a single trace against
--     itself, which reports no change);
--   * two databases: tracesql run a.db trace_diff --against b.db (also on query and shell)
--     attaches b.db read-only as b and points a temporary view of each of its tables and views
--     at it. By hand (e.g. in sqlite3 on a.db) the same is:
--       ATTACH 'b.db' AS b;
--       CREATE TEMP VIEW events AS SELECT * FROM b.events;
--       CREATE TEMP VIEW event_ranges AS SELECT * FROM b.event_ranges;
--       CREATE TEMP VIEW input_shapes AS SELECT * FROM b.input_shapes;
--       CREATE TEMP VIEW stacks AS SELECT * FROM b.stacks;
--       CREATE TEMP VIEW arg_keys AS SELECT * FROM b.arg_keys;
--       CREATE TEMP VIEW traces AS SELECT * FROM b.traces;
--       CREATE TEMP VIEW cpu_op_groups AS SELECT * FROM b.cpu_op_groups;
--     then the query, then DROP VIEW temp.events; ... (each of the seven); DETACH b;
--     (SQLite cannot take a schema name from a parameter; temporary objects come first in name
--     lookup, and only temporary views may read another attached database.)
-- Rows:
--   kind     'cpu_op' (cpu_ops rows with a duration: cat cpu_op / legacy Operator, without the
--            ProfilerStep#N that 2020-21 traces write as Operator), or the GPU op kind 'kernel',
--            'memcpy', 'memset'
--   name     op or GPU op name
--   shapes   for CPU ops [Input Dims, Input type] as one JSON array
--            ('[[[141,512],[512,512]],["float","float"]]'); NULL without record_shapes or with
--            :shapes 0
--   a_count, b_count, a_time, b_time (ns: summed duration, inclusive for CPU ops), and the changes
--            delta_count = b - a, delta_time = b - a, delta_pct = 100 x delta_time / a_time
--   status   'added' (only in B), 'removed' (only in A), 'slower' / 'faster' (time changed by more
--            than :tolerance_pct and :min_delta), 'more_calls' / 'fewer_calls' (time within
--            tolerance, count changed), 'unchanged'
-- Sorted by the size of the time change. HTA's TraceDiff compares op and kernel names only; here CPU
-- ops with different shapes are different rows (TraceLens' perf-report comparison matches name and
-- args the same way).
WITH
sides AS (
  SELECT
    coalesce(:a_trace, (SELECT min(id) FROM main.traces)) AS a_id,
    coalesce(:b_trace,
             (SELECT min(id) FROM traces
               WHERE id > coalesce(:a_trace, (SELECT min(id) FROM main.traces))),
             (SELECT min(id) FROM traces)) AS b_id
),
-- Every CPU op and GPU op of each side, grouped. CPU ops (the cpu_ops rows with a duration, as in
-- op_summary) by name and input_shape_id, summed from cpu_op_groups, where the importer counted
-- them (a few thousand rows, not a million ops; the shapes text is built once per group from
-- input_shapes; 2020-21 'Input dims' included). GPU ops (each side's GPU op rows only:
-- event_ranges) by stack_id (an integer: the (name, cat) of a root GPU op, or its path under a GPU
-- annotation), named once per stack. The shapes text is what json_extract(args, Input Dims,
-- Input type) gives: '[' || dims || ',' || type || ']', or the dims alone without a type.
-- One branch per case (:shapes 0; shapes).
a_cpu AS (
  SELECT name, NULL AS sid, sum(calls) AS n, sum(total_ns) AS t
  FROM main.cpu_op_groups
  WHERE trace_id = (SELECT a_id FROM sides)
    AND name NOT GLOB 'ProfilerStep#*'
    AND NOT coalesce(:shapes, 1)
  GROUP BY name
  UNION ALL
  SELECT name, input_shape_id, sum(calls), sum(total_ns)
  FROM main.cpu_op_groups
  WHERE trace_id = (SELECT a_id FROM sides)
    AND name NOT GLOB 'ProfilerStep#*'
    AND coalesce(:shapes, 1)
  GROUP BY name, input_shape_id
),
a_gpu AS (                          -- (a GPU op without a stack_id: a group of its own)
  SELECT coalesce(e.stack_id, -e.id) AS sk,
         min(e.id) AS rep,
         count(*) AS n,
         sum(e.dur) AS t
  FROM main.event_ranges AS r
  JOIN main.events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE r.kind IN ('kernel', 'memcpy', 'memset') AND r.trace_id = (SELECT a_id FROM sides)
    AND e.cat IN ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset')
  GROUP BY 1
),
a_rows AS MATERIALIZED (
  SELECT
    'cpu_op' AS kind,
    c.name,
    CASE WHEN s.input_type IS NOT NULL
           THEN '[' || coalesce(s.input_dims, 'null') || ',' || s.input_type || ']'
         ELSE s.input_dims END AS shapes,
    sum(c.n) AS n,
    sum(c.t) AS t
  FROM a_cpu AS c
  LEFT JOIN main.input_shapes AS s ON s.id = c.sid
  GROUP BY c.name, shapes
  UNION ALL
  SELECT
    CASE WHEN g.cat IN ('kernel', 'Kernel') THEN 'kernel'
         WHEN g.cat IN ('gpu_memcpy', 'Memcpy') THEN 'memcpy' ELSE 'memset' END,
    g.name, NULL, sum(g.n), sum(g.t)
  FROM (SELECT CASE WHEN x.sk > 0 THEN st.cat ELSE (SELECT cat FROM main.events WHERE id = x.rep) END AS cat,
               CASE WHEN x.sk > 0 THEN st.name ELSE (SELECT name FROM main.events WHERE id = x.rep) END
                 AS name,
               x.n, x.t
          FROM a_gpu AS x
          LEFT JOIN main.stacks AS st ON st.id = x.sk) AS g
  GROUP BY 1, 2
),
-- B: when B is this database's own trace A again (no temporary views in the way), A's rows.
same AS (
  SELECT (SELECT a_id = b_id FROM sides)
         AND NOT EXISTS (SELECT 1 FROM sqlite_temp_master
                          WHERE name IN ('events', 'arg_keys', 'traces', 'event_ranges',
                                         'input_shapes', 'stacks', 'cpu_op_groups')) AS yes
),
b_cpu AS (
  SELECT name, NULL AS sid, sum(calls) AS n, sum(total_ns) AS t
  FROM cpu_op_groups
  WHERE NOT (SELECT yes FROM same)
    AND trace_id = (SELECT b_id FROM sides)
    AND name NOT GLOB 'ProfilerStep#*'
    AND NOT coalesce(:shapes, 1)
  GROUP BY name
  UNION ALL
  SELECT name, input_shape_id, sum(calls), sum(total_ns)
  FROM cpu_op_groups
  WHERE NOT (SELECT yes FROM same)
    AND trace_id = (SELECT b_id FROM sides)
    AND name NOT GLOB 'ProfilerStep#*'
    AND coalesce(:shapes, 1)
  GROUP BY name, input_shape_id
),
b_gpu AS (                          -- (a GPU op without a stack_id: a group of its own)
  SELECT coalesce(e.stack_id, -e.id) AS sk,
         min(e.id) AS rep,
         count(*) AS n,
         sum(e.dur) AS t
  FROM event_ranges AS r
  JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id
  WHERE NOT (SELECT yes FROM same)
    AND r.kind IN ('kernel', 'memcpy', 'memset') AND r.trace_id = (SELECT b_id FROM sides)
    AND e.cat IN ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset')
  GROUP BY 1
),
b_rows AS (
  SELECT * FROM a_rows WHERE (SELECT yes FROM same)
  UNION ALL
  SELECT
    'cpu_op',
    c.name,
    CASE WHEN s.input_type IS NOT NULL
           THEN '[' || coalesce(s.input_dims, 'null') || ',' || s.input_type || ']'
         ELSE s.input_dims END AS shapes,
    sum(c.n),
    sum(c.t)
  FROM b_cpu AS c
  LEFT JOIN input_shapes AS s ON s.id = c.sid
  GROUP BY c.name, shapes
  UNION ALL
  SELECT
    CASE WHEN g.cat IN ('kernel', 'Kernel') THEN 'kernel'
         WHEN g.cat IN ('gpu_memcpy', 'Memcpy') THEN 'memcpy' ELSE 'memset' END,
    g.name, NULL, sum(g.n), sum(g.t)
  FROM (SELECT CASE WHEN x.sk > 0 THEN st.cat ELSE (SELECT cat FROM events WHERE id = x.rep) END AS cat,
               CASE WHEN x.sk > 0 THEN st.name ELSE (SELECT name FROM events WHERE id = x.rep) END
                 AS name,
               x.n, x.t
          FROM b_gpu AS x
          LEFT JOIN stacks AS st ON st.id = x.sk) AS g
  GROUP BY 1, 2
),
-- Number of profiler steps per side (1 when per_step is off or a side has none): host
-- ProfilerStep#N annotations, read from the user_annotation and other (legacy Operator) rows.
steps AS (
  SELECT
    CASE WHEN coalesce(:per_step, 0) THEN max(1, (
      SELECT count(*) FROM main.event_ranges AS r
      JOIN main.events AS e ON e.id BETWEEN r.first_id AND r.last_id
      WHERE r.kind IN ('user_annotation', 'other') AND r.trace_id = (SELECT a_id FROM sides)
        AND e.name GLOB 'ProfilerStep#*' AND e.cat IN ('user_annotation', 'Operator')))
    ELSE 1 END AS a_steps,
    CASE WHEN coalesce(:per_step, 0) THEN max(1, (
      SELECT count(*) FROM event_ranges AS r
      JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id
      WHERE r.kind IN ('user_annotation', 'other') AND r.trace_id = (SELECT b_id FROM sides)
        AND e.name GLOB 'ProfilerStep#*' AND e.cat IN ('user_annotation', 'Operator')))
    ELSE 1 END AS b_steps
),
joined AS (
  SELECT kind, name, shapes, sum(an) AS an, sum(at) AS at, sum(bn) AS bn, sum(bt) AS bt
  FROM (
    SELECT kind, name, shapes, n AS an, t AS at, 0 AS bn, 0 AS bt FROM a_rows
    UNION ALL
    SELECT kind, name, shapes, 0, 0, n, t FROM b_rows
  )
  GROUP BY kind, name, shapes
),
scaled AS (
  -- Per step when asked: counts to 2 decimals, times in whole ns.
  SELECT
    j.kind, j.name, j.shapes, j.an, j.bn,
    CASE WHEN coalesce(:per_step, 0) THEN round(1.0 * j.an / s.a_steps, 2) ELSE j.an END AS a_count,
    CASE WHEN coalesce(:per_step, 0) THEN round(1.0 * j.bn / s.b_steps, 2) ELSE j.bn END AS b_count,
    j.at / s.a_steps AS a_time,
    j.bt / s.b_steps AS b_time
  FROM joined AS j, steps AS s
),
classified AS (
  SELECT
    *,
    b_time - a_time AS delta_time,
    CASE
      WHEN an = 0 THEN 'added'
      WHEN bn = 0 THEN 'removed'
      WHEN abs(b_time - a_time) >= coalesce(:min_delta, 0)
           AND b_time > a_time * (1 + coalesce(:tolerance_pct, 5) / 100.0) THEN 'slower'
      WHEN abs(b_time - a_time) >= coalesce(:min_delta, 0)
           AND b_time < a_time * (1 - coalesce(:tolerance_pct, 5) / 100.0) THEN 'faster'
      WHEN b_count > a_count THEN 'more_calls'
      WHEN b_count < a_count THEN 'fewer_calls'
      ELSE 'unchanged'
    END AS status
  FROM scaled
)
SELECT
  kind,
  name,
  shapes,
  a_count,
  b_count,
  b_count - a_count AS delta_count,
  a_time,
  b_time,
  delta_time,
  round(100.0 * delta_time / nullif(a_time, 0), 2) AS delta_pct,
  status
FROM classified
WHERE coalesce(:all, 0) OR status <> 'unchanged'
ORDER BY abs(delta_time) DESC, kind, name, shapes
LIMIT coalesce(:limit, 100);
