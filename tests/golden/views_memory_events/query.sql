-- Case: views_memory_events
-- memory_events (DESIGN category views): the "[memory]" instants (cat cpu_instant_event, or no cat in
-- 2021 files) with columns bytes, addr, total_allocated, total_reserved, device_type, device_id from
-- the args 'Bytes', 'Addr', 'Total Allocated', 'Total Reserved', 'Device Type', 'Device Id' (integers;
-- NULL when the arg is absent; bytes negative for a free), plus the enclosing slice (parent_id), the
-- enclosing cpu_op (cpu_op_id) and the ProfilerStep N containing ts. other_instant is not one.
--   120  alloc 12 MiB on CUDA device 0 inside aten::empty (step 2)
--   210  CPU alloc (device type 0, id -1) inside aten::add
--   300  the free of the first block, directly inside ProfilerStep#2 (no cpu_op)
--   600  2021-style: no cat, only Device Type / Device Id / Bytes; outside any slice and step
--   700  values that are not int64 integers (never seen; not in memory_args, read from the args):
--        Bytes 2.5 (real), Total Allocated beyond int64 (its digits as text), Total Reserved a
--        string '12' (text); Device Type / Device Id are integers as usual
SELECT m.ts, m.tid, p.name AS parent, o.name AS cpu_op, m.step, m.bytes, m.addr, m.total_allocated,
       m.total_reserved, m.device_type, m.device_id, typeof(m.bytes) AS bytes_type
FROM memory_events AS m
LEFT JOIN events AS p ON p.id = m.parent_id
LEFT JOIN events AS o ON o.id = m.cpu_op_id
ORDER BY m.ts;

SELECT device_id, max(total_allocated) AS peak_allocated, sum(bytes) AS net_bytes
FROM memory_events GROUP BY device_id ORDER BY device_id;
