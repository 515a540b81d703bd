-- Category views: one name per kind of event, whatever generation of the format wrote it.
-- Legacy 2020-22 categories are folded in here; events.cat keeps what the file said.
-- Each view reads only the id ranges of its kinds (event_ranges), not every event; the conditions on
-- cat and name state the definition (they hold for every event in those ranges). The join's
-- e.trace_id = r.trace_id always holds too: it lets a filter on trace_id (WHERE trace_id = 3 on the
-- view) pick that trace's range by event_ranges' key instead of reading every trace's (12x faster
-- on a 16-trace database).

-- CPU operators: ATen ops, autograd nodes, record_param_comms, Triton launches (cpu_op; 2020-21 Operator,
-- except the ProfilerStep#N annotations those traces also write as Operator: they are in steps).
CREATE VIEW cpu_ops AS
SELECT e.* FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind = 'cpu_op' AND (e.cat = 'cpu_op' OR (e.cat = 'Operator' AND e.name NOT LIKE 'ProfilerStep#%'));

-- Host runtime calls: CUDA runtime and driver (cudaLaunchKernel, cuLaunchKernelEx, ...), HIP calls on ROCm
-- (which Kineto writes as cuda_runtime), 2020-22 Runtime, and MTIA's mtia_runtime.
CREATE VIEW runtime_calls AS
SELECT e.* FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind = 'runtime' AND e.cat IN ('cuda_runtime', 'cuda_driver', 'Runtime', 'mtia_runtime');

-- GPU kernels (kernel; 2020-22 Kernel).
CREATE VIEW kernels AS
SELECT e.* FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind = 'kernel' AND e.cat IN ('kernel', 'Kernel');

-- Everything a GPU executes: kernels, memcpys and memsets, with kind = 'kernel' | 'memcpy' | 'memset'.
-- device falls back to the pid of the GPU track when the args lack it.
CREATE VIEW gpu_ops AS
SELECT
  e.id, e.trace_id, e.thread_id, e.pid, e.tid, e.ph, e.cat, e.name, e.ts, e.dur,
  e.ts + e.dur AS end_ts,     -- end of the op (ns)
  CASE WHEN e.cat IN ('kernel', 'Kernel') THEN 'kernel'
       WHEN e.cat IN ('gpu_memcpy', 'Memcpy') THEN 'memcpy'
       ELSE 'memset' END AS kind,
  coalesce(e.device, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid END) AS device,
  coalesce(e.stream, CASE WHEN typeof(e.tid) = 'integer' THEN e.tid END) AS stream,
  e.correlation, e.external_id, e.step, e.arg_shape_id, e.arg_values
FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind IN ('kernel', 'memcpy', 'memset')
  AND e.cat IN ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset');

-- User annotations: record_function ranges on the host (user_annotation) and their GPU-side projections
-- (gpu_user_annotation, widened by 1 ns on each side by Kineto). side = 'cpu' | 'gpu'.
CREATE VIEW annotations AS
SELECT e.*, CASE WHEN e.cat = 'gpu_user_annotation' THEN 'gpu' ELSE 'cpu' END AS side
FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind IN ('user_annotation', 'gpu_user_annotation') AND e.cat IN ('user_annotation', 'gpu_user_annotation');

-- Python frames recorded with with_stack (python_function), with their ids as columns.
CREATE VIEW python_frames AS
SELECT
  e.id, e.trace_id, e.thread_id, e.pid, e.tid, e.name, e.ts, e.dur, e.depth, e.parent_id, e.stack_id,
  e.python_id,                -- args 'Python id'
  e.python_parent_id,         -- args 'Python parent id' (NULL at the root frame)
  (SELECT json_extract(e.arg_values, k.path) FROM arg_keys AS k
    WHERE k.shape_id = e.arg_shape_id AND k.key = 'Python module id') AS module_id  -- nn.Module frames only
FROM event_ranges AS r JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
WHERE r.kind = 'python_function' AND e.cat = 'python_function';

-- Allocator events ([memory] instants, cat cpu_instant_event or, in 2021 traces, no cat).
-- bytes is negative for frees. device_type 0 = CPU, 1 = CUDA (6 seen on ROCm); device_id -1 = CPU.
-- The values come from memory_args (integers promoted at import); one that is not an integer there
-- is read from the args (its key looked up in arg_keys only then: coalesce stops at the first non-NULL).
CREATE VIEW memory_events AS
SELECT
  e.id, e.trace_id, e.thread_id, e.pid, e.tid, e.ts, e.parent_id, e.cpu_op_id, e.step,
  coalesce(m.bytes, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                     WHERE k.key = 'Bytes' AND k.shape_id = e.arg_shape_id)) AS bytes,
  coalesce(m.addr, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                    WHERE k.key = 'Addr' AND k.shape_id = e.arg_shape_id)) AS addr,
  coalesce(m.total_allocated, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                               WHERE k.key = 'Total Allocated' AND k.shape_id = e.arg_shape_id))
    AS total_allocated,
  coalesce(m.total_reserved, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                              WHERE k.key = 'Total Reserved' AND k.shape_id = e.arg_shape_id))
    AS total_reserved,
  coalesce(m.device_type, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                           WHERE k.key = 'Device Type' AND k.shape_id = e.arg_shape_id)) AS device_type,
  coalesce(m.device_id, (SELECT json_extract(e.arg_values, max(k.path)) FROM arg_keys AS k
                         WHERE k.key = 'Device Id' AND k.shape_id = e.arg_shape_id)) AS device_id
FROM event_ranges AS r
JOIN events AS e ON e.id BETWEEN r.first_id AND r.last_id AND e.trace_id = r.trace_id
LEFT JOIN memory_args AS m ON m.event_id = e.id
WHERE r.kind = 'memory' AND e.name = '[memory]' AND e.ph IN ('i', 'I');
