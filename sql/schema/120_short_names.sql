-- short_names: a readable name for each distinct GPU op name (kernel names are often 1,000+
-- characters of templates): namespaces, return type, template arguments and parameter list dropped
-- ('void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)' -> 'vectorized_elementwise_kernel';
-- a CUTLASS wrapper 'cutlass::Kernel2<cutlass_80_..._align4>(...)' -> its first template argument;
-- 'internal::gemvx::kernel<int, ...>(...)' -> 'gemvx::kernel').
-- Filled at the end of the import by tracesql's short-name function (src/names/short_name.cc), so
-- any SQLite tool can join it:
--   SELECT s.short_name, sum(k.dur) FROM kernels AS k JOIN short_names AS s USING (name) GROUP BY 1
CREATE TABLE short_names (
  name TEXT PRIMARY KEY,      -- a GPU op name as written (gpu_op_names.name)
  short_name TEXT NOT NULL    -- its short name (the name itself when it is not a C++ signature)
) WITHOUT ROWID;
