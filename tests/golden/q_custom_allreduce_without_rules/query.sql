-- Case: q_custom_allreduce_without_rules. The trace of q_custom_allreduce with kernel_class_rules as
-- it was before rules 12-23 (PyTorch symmetric memory, TensorRT-LLM, quick and MSCCL++ all-reduce):
-- the multimem and fused all-reduce kernels fall to the compute catch-all, and exposed communication
-- shrinks to the vLLM cross_device_reduce kernel (see ../q_custom_allreduce/README.md).
DELETE FROM kernel_class_rules WHERE id BETWEEN 12 AND 23;
SELECT count(*) AS rules FROM kernel_class_rules;
