-- dtype_sizes: bytes per element of each tensor type as PyTorch's profiler writes it in an op's
-- 'Input type' arg (record_shapes), for the bytes the view op_costs counts (and its bpe column).
-- A type not listed (a Scalar, a list, a string, a type of one's own) has no size: the op_costs
-- formulas that need it give NULL. Users may INSERT rows (a new dtype's text and size).
-- A table rather than CASE expressions in op_costs: SQLite copies a column's expression into every
-- use when it flattens the view's nested SELECTs, and the sizes of the main input and inputs 0..4
-- are used often enough that their CASE expressions made up 6.7 k of the 17.8 k instructions of a
-- statement reading op_costs' flops and bytes (9 ms on a new connection, 7.5 with the table).
CREATE TABLE dtype_sizes (
  type TEXT NOT NULL PRIMARY KEY,     -- 'Input type' text ('c10::BFloat16', 'float', ...)
  bytes INTEGER NOT NULL              -- bytes per element (Float4_e2m1fn_x2: two 4-bit values in one)
);

INSERT INTO dtype_sizes VALUES
  ('c10::BFloat16', 2), ('c10::Half', 2), ('short', 2),
  ('float', 4), ('int', 4), ('unsigned int', 4),
  ('double', 8), ('long int', 8),
  ('c10::Float8_e4m3fn', 1), ('c10::Float8_e5m2', 1), ('c10::Float8_e4m3fnuz', 1),
  ('c10::Float8_e5m2fnuz', 1), ('unsigned char', 1), ('signed char', 1),
  ('c10::Float4_e2m1fn_x2', 1), ('bool', 1);
