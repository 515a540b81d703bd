-- kernel_class_rules: how the bundled queries (kernel_classes, kernel_summary, temporal_breakdown,
-- comm_overlap, collectives, step_breakdown) sort GPU ops into classes. Edit it to suit your code:
--   INSERT INTO kernel_class_rules(priority, class, kind, pattern, syntax, note)
--     VALUES (150, 'communication', 'kernel', '*my_all_reduce*', 'glob', 'our own all-reduce kernel');
-- A GPU op (a gpu_ops / op_kernels row) gets the class of the matching rule with the HIGHEST priority
-- (ties: the lowest id); an op that no rule matches is class 'other' (rule_id NULL in the queries).
--
-- The anchor tools disagree, so these defaults are a choice (see docs/queries.md):
--   * communication: names containing nccl / rccl (any case), as TraceLens does (it searches
--     (?i)nccl|rccl anywhere in the name). HTA matches ^nccl, ncclKernel, ^hccl and -- a quirk we do
--     not copy -- every name starting with 'hip', which makes hipMemcpy* and every other HIP op
--     "communication". Habana's hccl is kept; TraceLens's custom default 'cross_device_reduce' too.
--     Rules 12-23 add the all-reduce / all-gather kernels that inference engines run instead of NCCL
--     (peer-to-peer loads over NVLink or multicast memory), each named as in the source file its note
--     cites: PyTorch symmetric memory (which vLLM's symm-mem all-reduce calls), TensorRT-LLM (and
--     SGLang's copy of its custom all-reduce), vLLM's and SGLang's quick all-reduce and SGLang's
--     MSCCL++ all-reduce. Kernels that fuse the all-reduce with a residual add and RMSNorm count as
--     communication: the exchange and the wait for the other ranks are most of their time.
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
   'vLLM / SGLang custom all-reduce (cross_device_reduce_1stage, _2stage, _half_butterfly: vllm csrc/custom_all_reduce.cuh, sglang sgl-kernel/csrc/allreduce/custom_all_reduce.cuh): TraceLens''s default custom communication pattern'),
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
   'every other kernel is computation (HTA, TraceLens, nsys)'),
  -- PyTorch symmetric memory: pytorch torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu
  -- (kernels in an anonymous namespace: 'void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(...)').
  (12, 100, 'communication', 'kernel', '*multimem_all_reduce_kernel*', 'glob',
   'PyTorch symm_mem multimem_all_reduce_ (NVLink SHARP multicast), used by vLLM''s symm-mem all-reduce: torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu'),
  (13, 100, 'communication', 'kernel', '*multimem_one_shot_all_reduce_kernel*', 'glob',
   'PyTorch symm_mem multimem_one_shot_all_reduce: CUDASymmetricMemoryOps.cu'),
  (14, 100, 'communication', 'kernel', '*multimem_all_gather_kernel*', 'glob',
   'PyTorch symm_mem multimem_all_gather_out: CUDASymmetricMemoryOps.cu'),
  (15, 100, 'communication', 'kernel', '*one_shot_all_reduce_kernel*', 'glob',
   'PyTorch symm_mem one_shot_all_reduce(_copy)(_out): CUDASymmetricMemoryOps.cu'),
  (16, 100, 'communication', 'kernel', '*two_shot_all_reduce_kernel*', 'glob',
   'PyTorch symm_mem two_shot_all_reduce_ / _out and reduce_scatter_out (two_shot_all_reduce_kernel, _inplace): CUDASymmetricMemoryOps.cu'),
  -- TensorRT-LLM custom all-reduce (cpp/tensorrt_llm/kernels/customAllReduceKernels.cu), copied by
  -- SGLang (sgl-kernel/csrc/allreduce/trt_reduce_internal.cu, namespace trt_llm).
  (17, 100, 'communication', 'kernel', '*oneShotAllReduceKernel*', 'glob',
   'TensorRT-LLM one-shot all-reduce: cpp/tensorrt_llm/kernels/customAllReduceKernels.cu; SGLang sgl-kernel/csrc/allreduce/trt_reduce_internal.cu'),
  (18, 100, 'communication', 'kernel', '*twoShotAllReduceKernel*', 'glob',
   'TensorRT-LLM two-shot all-reduce: cpp/tensorrt_llm/kernels/customAllReduceKernels.cu; SGLang sgl-kernel/csrc/allreduce/trt_reduce_internal.cu'),
  (19, 100, 'communication', 'kernel', '*allreduce_fusion_kernel*', 'glob',
   'TensorRT-LLM all-reduce fused with residual + RMSNorm (+ quant): allreduce_fusion_kernel_oneshot_lamport, _twoshot_sync in cpp/tensorrt_llm/kernels/communicationKernels/allReduceFusionKernels.cu; FlashInfer include/flashinfer/comm/trtllm_allreduce_fusion.cuh (vLLM, SGLang)'),
  (20, 100, 'communication', 'kernel', '*oneshotAllreduceFusionKernel*', 'glob',
   'TensorRT-LLM multi-node NVLink one-shot all-reduce (+ RMSNorm): cpp/tensorrt_llm/kernels/communicationKernels/mnnvlAllreduceKernels.cu'),
  (21, 100, 'communication', 'kernel', '*twoshotAllreduceKernel*', 'glob',
   'TensorRT-LLM multi-node NVLink two-shot all-reduce: cpp/tensorrt_llm/kernels/communicationKernels/mnnvlAllreduceKernels.cu'),
  -- ROCm quick all-reduce and SGLang's MSCCL++ all-reduce.
  (22, 100, 'communication', 'kernel', '*allreduce_prototype_twoshot*', 'glob',
   'quick all-reduce (ROCm, quantized two-shot: quickreduce::allreduce_prototype_twoshot<...>): vllm csrc/quickreduce/quick_reduce.h; sglang sgl-kernel/csrc/allreduce/quick_all_reduce.h'),
  (23, 100, 'communication', 'kernel', '*allreduce_1shotLL_*', 'glob',
   'SGLang MSCCL++ all-reduce (allreduce_1shotLL_1node, allreduce_1shotLL_2node): sgl-kernel/csrc/allreduce/mscclpp_allreduce.cuh');
