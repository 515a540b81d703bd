-- Case: views_gap_host_tie
-- Rule (DESIGN idle_gaps): host_event_id = the INNERMOST CPU op running on the launching thread when
-- the gap began. The gap [150,240) us after k1 begins exactly when aten::outer [150,200) and its child
-- aten::inner [150,180) start (equal ts: the longer slice is the parent, per the nesting rule). The
-- child is written first in the file, so it has the smaller event id; the answer must not depend on
-- that: host_op = aten::inner (depth 1, parent aten::outer). cause 'host': k2's launch (215) > 150.
SELECT g.ts, g.dur, p.name AS prev_name, n.name AS next_name, g.next_launch_ts, g.cause,
       h.name AS host_op, h.depth AS host_depth, hp.name AS host_parent
FROM idle_gaps AS g
JOIN events AS p ON p.id = g.prev_event_id
JOIN events AS n ON n.id = g.next_event_id
LEFT JOIN events AS h ON h.id = g.host_event_id
LEFT JOIN events AS hp ON hp.id = h.parent_id
ORDER BY g.ts;
