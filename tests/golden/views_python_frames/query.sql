-- Case: views_python_frames
-- python_frames (DESIGN category views; view comment): every python_function event (not the cpu_op
-- aten::linear), with python_id / python_parent_id from args 'Python id' / 'Python parent id' (NULL at
-- the root, where the file writes null) and module_id from 'Python module id', present only on
-- "nn.Module: ..." frames (NULL elsewhere). Nesting (depth) comes from the thread's slices.
SELECT name, depth, python_id, python_parent_id, module_id, typeof(module_id) AS module_id_type, ts, dur
FROM python_frames ORDER BY ts;
