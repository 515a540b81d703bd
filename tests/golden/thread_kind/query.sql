-- Case: thread_kind
-- Checks threads.kind, decided by the categories a track carries (not by pid):
--   'gpu'  : GPU categories (kernel, gpu_memcpy, gpu_memset, gpu_user_annotation, cuda_sync, Kernel,
--            Memcpy, Memset, mtia_ccp_events) and no CPU category;
--   'cpu'  : any CPU category (cpu_op, Operator, user_annotation, cuda_runtime, cuda_driver, Runtime,
--            python_function, cpu_instant_event, mtia_runtime, and a "[memory]" instant without cat);
--            (1,5) carries cpu_op AND kernel -> cpu; pid 0 tid 0 python_function -> cpu although pid 0
--            is GPU 0's process;
--   'other': neither (overhead on pid -1, Trace span, a cat-less instant that is not "[memory]").
SELECT t.pid, t.tid, t.kind
FROM threads AS t
WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.thread_id = t.id)
ORDER BY t.pid, t.tid;
