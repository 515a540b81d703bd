-- Case: cp_sync_bound. op_a launches k1 [5,205) at [1,4); aten::item [12,210) blocks in
-- cudaStreamSynchronize [14,208) until k1 ends; op_c [215,230). Back from op_c's end: op_c
-- [215,230), the gap before it [210,215) (a dependency edge, cpu: HTA counts it 0), aten::item
-- [208,210), the sync call's return after k1's end [205,208) (sync), k1 [5,205), its launch [1,5),
-- op_a [0,1). The host's 194 µs in the call are not on the path: the GPU work it waited for is.
SELECT c.window, c.seq, e.name, c.ts, c.dur, c.edge_kind, c.bound_by
FROM critical_path AS c LEFT JOIN events AS e ON e.id = c.event_id
ORDER BY c.trace_id, c.window, c.seq;
