-- Case: views_dtype_sizes
-- dtype_sizes: bytes per element of each 'Input type' text, as op_costs reads them. aten::copy_
-- (family copy, main input 1) of a 4x4 source of every type shipped into a 4x4 float: bpe is the
-- source's size, bytes = 16 x source size + 16 x 4. A Scalar source has no size: bpe and bytes
-- NULL. c10::complex<float> is not shipped; the user adds it (8 bytes), and op_costs counts it at
-- once, as a source (bpe 8, bytes 192) and as a destination (bytes 192).
INSERT INTO dtype_sizes VALUES ('c10::complex<float>', 8);
SELECT e.ts, json_extract(s.input_type, '$[1]') AS source_type, json_extract(s.input_type, '$[0]') AS dest_type,
       c.dtype, c.bpe, c.bytes, z.bytes AS table_bytes
FROM op_costs AS c
JOIN events AS e ON e.id = c.op_event_id
LEFT JOIN input_shapes AS s ON s.id = e.input_shape_id
LEFT JOIN dtype_sizes AS z ON z.type = json_extract(s.input_type, '$[1]')
ORDER BY e.ts;
