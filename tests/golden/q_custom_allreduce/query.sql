-- Case: q_custom_allreduce. First, the rule that wins for kernel names of each all-reduce family, as
-- their source files declare them (demangled as the profiler writes them), chosen as gpu_op_classes
-- chooses (highest priority, then lowest id); then the bundled queries on the trace (README.md).
WITH names(name) AS (VALUES
  ('void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)'),
  ('void (anonymous namespace)::multimem_one_shot_all_reduce_kernel<float, 16>(float*, float*, unsigned long, unsigned int**, unsigned long, unsigned long)'),
  ('void (anonymous namespace)::multimem_all_gather_kernel<16>(char*, char*, unsigned long, unsigned int**, unsigned long, unsigned long)'),
  ('void (anonymous namespace)::one_shot_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16**, c10::BFloat16*, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)'),
  ('void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, 8>(c10::BFloat16**, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)'),
  ('void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)'),
  ('void aiter::cross_device_reduce_2stage<__hip_bfloat16, 8>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, __hip_bfloat16*, int, int)'),
  ('void trt_llm::oneShotAllReduceKernel<__nv_bfloat16, 8, true>(trt_llm::AllReduceParams)'),
  ('void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 4>(tensorrt_llm::kernels::AllReduceParams)'),
  ('void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_twoshot_sync<(tensorrt_llm::kernels::ar_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, false>(tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams, std::array<int, 8>, std::array<int, 8>)'),
  ('void tensorrt_llm::kernels::mnnvl::oneshotAllreduceFusionKernel<(unsigned char)8, __nv_bfloat16, true, float4>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16**, __nv_bfloat16*, int, int, float, int, unsigned int*)'),
  ('void tensorrt_llm::kernels::mnnvl::twoshotAllreduceKernel<(unsigned char)8, __nv_bfloat16, float4>(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16**, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, unsigned int*, bool)'),
  ('void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__half, quickreduce::CodecQ4<__half, 8>, true>, __half>(__half const*, __half*, unsigned int, unsigned int, int, unsigned char**, unsigned int, unsigned int)'),
  ('void sglang::allreduce_1shotLL_1node<__nv_bfloat16>(mscclpp::MemoryChannelDeviceHandle*, __nv_bfloat16*, __nv_bfloat16*, void*, int, int, unsigned long)'),
  ('ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),
  ('void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)'),
  ('void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)')
)
SELECT r.id AS rule_id, r.class, r.pattern, substr(n.name, 1, 60) AS name
FROM names AS n
JOIN kernel_class_rules AS r
  ON r.id = (SELECT x.id FROM kernel_class_rules AS x
             WHERE (x.kind IS NULL OR x.kind = 'kernel')
               AND CASE x.syntax WHEN 'like' THEN n.name LIKE x.pattern ELSE n.name GLOB x.pattern END
             ORDER BY x.priority DESC, x.id LIMIT 1);
