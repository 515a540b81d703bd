-- op_kernels: which host work launched each GPU op. Exactly one row per GPU op (gpu_ops): the rows of
-- op_kernel_links (materialised at import) with the names of the GPU op, the launch call and the two
-- CPU ops read from events. Each name is a lookup by id, and SQLite leaves out the lookups of the names
-- a query does not use.
CREATE VIEW op_kernels AS
SELECT
  k.trace_id,                         -- trace
  k.gpu_event_id,                     -- the GPU op (events.id)
  g.name AS gpu_name,                 -- its name (kernel name, 'Memcpy HtoD (Pageable -> Device)', ...)
  k.gpu_kind,                         -- 'kernel' | 'memcpy' | 'memset'
  k.gpu_ts,                           -- GPU op start (ns)
  k.gpu_dur,                          -- GPU op duration (ns)
  k.device,                           -- device (args 'device', else the GPU track's pid)
  k.stream,                           -- stream (args 'stream', else the GPU track's tid)
  k.correlation,                      -- correlation id of the GPU op
  k.launch_event_id,                  -- the runtime call (cudaLaunchKernel, hipGraphLaunch, ...); NULL: none found
  l.name AS launch_name,              -- its name
  k.launch_ts,                        -- launch call start (ns)
  k.launch_dur,                       -- launch call duration (ns)
  k.launch_thread_id,                 -- host thread that launched it
  k.op_event_id,                      -- innermost CPU op enclosing the launch on its thread
  op.name AS op_name,                 -- its name
  k.top_op_event_id,                  -- outermost CPU op enclosing the launch
  top.name AS top_op_name,            -- its name
  k.step,                             -- N of the enclosing ProfilerStep#N (of the launch)
  k.launch_delay                      -- signed: GPU start minus launch-call end (ns)
FROM op_kernel_links AS k
LEFT JOIN events AS g ON g.id = k.gpu_event_id
LEFT JOIN events AS l ON l.id = k.launch_event_id
LEFT JOIN events AS op ON op.id = k.op_event_id
LEFT JOIN events AS top ON top.id = k.top_op_event_id;
