-- Cross-check: the kernels view's count and total equal kernel_summary's instances and total_ns
-- summed over its rows (9 and 170000; see README.md).
SELECT count(*) AS kernels, sum(dur) AS total_ns FROM kernels;
