-- Case: nesting_out_of_order
-- Checks: events written in shuffled file order still nest by time, per thread track:
--   tid 1: ProfilerStep#1 [0,100) > aten::linear [10,40) > aten::mm [15,35) > cudaLaunchKernel [20,25)
--          ProfilerStep#1 [0,100) > aten::linear [50,80) > aten::mm [55,75) > [memory] instant @60
--   tid 2: aten::mm [16,18) is a root (it would fit in tid 1's aten::mm, but nesting is per thread).
-- The instant's parent is the innermost slice containing it; depth = parent depth + 1 = 3.
-- stacks: one row per distinct name path from a root; identical paths share a row (both
-- aten::linear share "ProfilerStep#1 > aten::linear"), so there are 6 rows; an event's stack_id is
-- the path ending at it (instants included). Paths are rebuilt from stacks.parent_id.
SELECT e.tid, e.name, e.ts, e.dur, e.depth, p.name AS parent_name, p.ts AS parent_ts
FROM events AS e LEFT JOIN events AS p ON p.id = e.parent_id
ORDER BY e.tid, e.ts, e.dur DESC;

WITH RECURSIVE path(id, depth, cat, p) AS (
  SELECT id, depth, cat, name FROM stacks WHERE parent_id IS NULL
  UNION ALL
  SELECT s.id, s.depth, s.cat, path.p || ' > ' || s.name
  FROM stacks AS s JOIN path ON s.parent_id = path.id
)
SELECT depth, cat, p AS path
FROM path
ORDER BY p;

WITH RECURSIVE path(id, p) AS (
  SELECT id, name FROM stacks WHERE parent_id IS NULL
  UNION ALL
  SELECT s.id, path.p || ' > ' || s.name FROM stacks AS s JOIN path ON s.parent_id = path.id
)
SELECT e.tid, e.ts, path.p AS stack_path
FROM events AS e JOIN path ON path.id = e.stack_id
ORDER BY e.tid, e.ts, e.dur DESC;

SELECT (SELECT count(*) FROM stacks) AS n_stacks,
       (SELECT count(DISTINCT stack_id) FROM events) AS n_event_stacks
ORDER BY 1;
