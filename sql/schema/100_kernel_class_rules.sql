-- kernel_class_rules: how the bundled queries (kernel_classes, kernel_summary, temporal_breakdown,
-- comm_overlap, collectives, step_breakdown) sort GPU ops into classes. Edit it to suit your code:
--   INSERT INTO kernel_class_rules(priority, class, kind, pattern, syntax, note)
--     VALUES (150, 'communication', 'kernel', '*cross_device_reduce*', 'glob', 'vLLM custom all-reduce');
-- A GPU op (a gpu_ops / op_kernels row) gets the class of the matching rule with the HIGHEST priority
-- (ties: the lowest id); an op that no rule matches is class 'other' (rule_id NULL in the queries).
--
-- The anchor tools disagree, so these defaults are a choice (see docs/queries.md):
--   * communication: names containing nccl / rccl (any case), as TraceLens does (it searches
--     (?i)nccl|rccl anywhere in the name). HTA matches ^nccl, ncclKernel, ^hccl and -- a quirk we do
--     not copy -- every name starting with 'hip', which makes hipMemcpy* and every other HIP op
--     "communication". Habana's hccl is kept; TraceLens's custom default 'cross_device_reduce' too.
--   * memory: every memcpy and memset (by kind, whatever the name), ROCm 7.1 copy/fill kernels
--     (MEMORY_COPY_*, __amd_rocclr_copyBuffer*, __amd_rocclr_fillBuffer*) and MTIA's dma* ops.
--     HTA (^Memcpy, ^Memset, ^dma), nsys and the TensorBoard plugin agree that memsets are memory;
--     TraceLens counts gpu_memset and the ROCm fill kernels as computation and only memcpy (plus
--     the ROCm copy kernels) as memory.
--   * compute: every other kernel. HTA's own computation rule is a negative list (no Memcpy, Memset,
--     Sync, LaunchKernel, dma, ...) that only matters for rows which are not kernels (cuda_sync);
--     tracesql's gpu_ops holds only kernels, memcpys and memsets, so "every other kernel" is the same.
-- Changing a rule changes what those queries report; the table is plain data (DELETE/UPDATE freely).

CREATE TABLE kernel_class_rules (
  id INTEGER PRIMARY KEY,     -- rule id, reported as rule_id by the queries that say which rule matched
  priority INTEGER NOT NULL,  -- the matching rule with the highest priority wins (ties: lowest id)
  class TEXT NOT NULL,        -- 'compute', 'communication', 'memory' or 'other' (any text works; the
                              -- bundled queries give meaning to these four)
  kind TEXT,                  -- only GPU ops of this gpu_ops.kind: 'kernel', 'memcpy', 'memset';
                              -- NULL: any kind
  pattern TEXT NOT NULL,      -- pattern matched against the whole GPU op name (gpu_ops.name)
  syntax TEXT NOT NULL DEFAULT 'glob'
    CHECK (syntax IN ('glob', 'like')),
                              -- 'glob': name GLOB pattern (case-sensitive; * ? [..]);
                              -- 'like': name LIKE pattern (ASCII case-insensitive; % _)
  note TEXT                   -- why the rule exists / which tool it follows
);

INSERT INTO kernel_class_rules (id, priority, class, kind, pattern, syntax, note) VALUES
  (1, 100, 'communication', NULL, '%nccl%', 'like',
   'NCCL kernels (ncclKernel_*, ncclDevKernel_*), any case: TraceLens (?i)nccl; HTA ^nccl / ncclKernel'),
  (2, 100, 'communication', NULL, '%rccl%', 'like',
   'RCCL (ROCm) kernels, any case: TraceLens (?i)rccl'),
  (3, 100, 'communication', NULL, 'hccl*', 'glob',
   'Habana HCCL: HTA ^hccl'),
  (4, 100, 'communication', 'kernel', '*cross_device_reduce*', 'glob',
   'vLLM custom all-reduce kernels: TraceLens''s default custom communication pattern'),
  (5, 90, 'memory', 'memcpy', '*', 'glob',
   'every memcpy (gpu_memcpy / legacy Memcpy): all tools'),
  (6, 90, 'memory', 'memset', '*', 'glob',
   'every memset (gpu_memset / legacy Memset): HTA, nsys, TB plugin; TraceLens counts memsets as computation'),
  (7, 90, 'memory', 'kernel', 'MEMORY_COPY_*', 'glob',
   'ROCm 7.1 copy kernels (MEMORY_COPY_HOST_TO_DEVICE, ...): TraceLens memcpy'),
  (8, 90, 'memory', 'kernel', '__amd_rocclr_copyBuffer*', 'glob',
   'ROCm blit copy kernels: TraceLens memcpy'),
  (9, 90, 'memory', 'kernel', '__amd_rocclr_fillBuffer*', 'glob',
   'ROCm blit fill kernels (memset on the shader engine): TraceLens counts them as computation'),
  (10, 90, 'memory', NULL, 'dma*', 'glob',
   'DMA ops (MTIA): HTA ^dma'),
  (11, 0, 'compute', 'kernel', '*', 'glob',
   'every other kernel is computation (HTA, TraceLens, nsys)');
