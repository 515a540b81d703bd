-- device_peaks: published peak throughput of common accelerators, for "% of peak" figures
-- (bundled queries gemm_flops and op_roofline). A row applies to every devices row whose name is LIKE its
-- pattern (case-insensitive); when several patterns match, the highest priority wins.
-- All compute figures are DENSE (without 2:4 structured sparsity, i.e. half of the datasheet's
-- starred sparse figure). NULL = the device has no such mode or no published figure.
-- Users may INSERT their own rows (e.g. a different clock or a GPU missing here).

CREATE TABLE device_peaks (
  pattern TEXT NOT NULL,      -- LIKE pattern matched against devices.name ('NVIDIA H100%')
  priority INTEGER NOT NULL,  -- the matching row with the highest priority wins (specific > generic)
  model TEXT NOT NULL,        -- the product the figures are for ('H100 SXM5 80GB')
  bf16_tflops REAL,           -- peak dense BF16 tensor/matrix TFLOP/s (1e12 FLOP per second)
  fp16_tflops REAL,           -- peak dense FP16 tensor/matrix TFLOP/s
  tf32_tflops REAL,           -- peak dense TF32 tensor/matrix TFLOP/s (fp32 GEMMs with allow_tf32)
  fp32_tflops REAL,           -- peak FP32 TFLOP/s without TF32 (NVIDIA: CUDA cores; AMD: FP32 matrix)
  hbm_gbps REAL,              -- peak device-memory bandwidth, GB/s (1e9 bytes per second)
  source TEXT NOT NULL        -- where the figures come from
);

INSERT INTO device_peaks VALUES
  ('NVIDIA H100%', 1, 'H100 SXM5 80GB', 989.4, 989.4, 494.7, 66.9, 3350,
   'NVIDIA H100 Tensor Core GPU datasheet, SXM5 column; dense = half of sparse figures'),
  ('NVIDIA H100 PCIe%', 2, 'H100 PCIe 80GB', 756.5, 756.5, 378.0, 51.2, 2000,
   'NVIDIA H100 Tensor Core GPU datasheet, PCIe column; dense = half of sparse figures'),
  ('NVIDIA H100 NVL%', 2, 'H100 NVL 94GB', 835.5, 835.5, 417.5, 60.0, 3900,
   'NVIDIA H100 Tensor Core GPU datasheet, H100 NVL column; dense = half of sparse figures'),
  ('NVIDIA H200%', 1, 'H200 SXM 141GB', 989.4, 989.4, 494.7, 66.9, 4800,
   'NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column; dense = half of sparse figures'),
  ('NVIDIA H200 NVL%', 2, 'H200 NVL 141GB', 835.5, 835.5, 417.5, 60.0, 4800,
   'NVIDIA H200 Tensor Core GPU datasheet, H200 NVL column; dense = half of sparse figures'),
  ('NVIDIA A100%', 1, 'A100 40GB (SXM4/PCIe)', 312.0, 312.0, 156.0, 19.5, 1555,
   'NVIDIA A100 Tensor Core GPU datasheet, 40GB columns; dense = half of sparse figures'),
  ('NVIDIA A100%80GB%', 2, 'A100 80GB SXM4', 312.0, 312.0, 156.0, 19.5, 2039,
   'NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column'),
  ('NVIDIA A100 80GB PCIe%', 3, 'A100 80GB PCIe', 312.0, 312.0, 156.0, 19.5, 1935,
   'NVIDIA A100 Tensor Core GPU datasheet, A100 80GB PCIe column'),
  ('NVIDIA B200%', 1, 'B200 (HGX B200, 1000 W)', 2250.0, 2250.0, 1100.0, 75.0, 7700,
   'NVIDIA HGX B200 datasheet, per-GPU figures; dense = half of sparse figures'),
  ('NVIDIA B300%', 1, 'B300 (HGX B300)', 2250.0, 2250.0, 1125.0, 75.0, 8000,
   'NVIDIA HGX B300 specifications, 8-GPU figures / 8 (FP16/BF16 36 PF, TF32 18 PF sparse; FP32 600 TF); dense = half of sparse figures; HBM3e up to 8 TB/s per GPU'),
  ('AMD Instinct MI300X%', 1, 'MI300X OAM 192GB', 1307.4, 1307.4, 653.7, 163.4, 5300,
   'AMD Instinct MI300X data sheet (peak matrix FP16/BF16/TF32/FP32, dense)'),
  ('Tesla V100-SXM2%', 1, 'V100 SXM2', NULL, 125.0, NULL, 15.7, 900,
   'NVIDIA Tesla V100 datasheet, SXM2 column (FP16 = tensor performance; no BF16/TF32)'),
  ('Tesla V100-DGXS%', 1, 'V100 (DGX Station, SXM2 part)', NULL, 125.0, NULL, 15.7, 900,
   'NVIDIA Tesla V100 datasheet, SXM2 column (DGX Station uses SXM2 V100s)');
