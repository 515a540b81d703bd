-- Case: views_op_models_edited
-- op_models is plain data: the user models an op of their own (mylib::cast, an out-of-place copy:
-- family copy, main input 1) and op_costs costs it at once as it costs aten::copy_ (32 bf16
-- elements read, 32 float elements written: 64 + 128 bytes, no FLOPs). An op without a row
-- (mylib::unknown) has no op_costs row.
INSERT INTO op_models (name, family, category, i_main, uses_concrete)
VALUES ('mylib::cast', 'copy', 'memory', 1, 0);
SELECT e.ts, c.name, c.family, c.category, c.dtype, c.bpe, c.unit, c.flops, c.bytes
FROM op_costs AS c
JOIN events AS e ON e.id = c.op_event_id
ORDER BY e.ts;
