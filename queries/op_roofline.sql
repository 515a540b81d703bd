-- name: op_roofline
-- description: Roofline of every op that launched GPU work: FLOPs and bytes moved from its shapes (GEMM, conv, attention, elementwise, reduction, softmax, norm, embedding, copy), achieved TFLOP/s and TB/s, arithmetic intensity and % of the device's roofline, with a category per op; per shape, per op or per category.
-- param :trace_id NULL (integer) — only this trace (traces.id); all traces when NULL
-- param :group shape {shape|op|category} — 'shape': one row per (op, Input Dims, Input type); 'op': one row per op name; 'category': one row per category (GEMM, conv, attention, elementwise, reduction, norm, communication, memory, other)
-- param :limit 50 (integer) — number of rows (-1: all)
--
-- Needs record_shapes for FLOPs and bytes (args 'Input Dims', 'Input type', 'Concrete Inputs').
-- Which ops: each GPU op (kernel, memcpy, memset) belongs to the CPU op that launched it directly,
-- the innermost CPU op around its launch call (op_kernels.op_event_id, as op_summary and
-- TraceLens's ops summary count them), so every GPU op is counted once and the rows add up to the
-- GPU time of the trace; GPU ops that no CPU op launched are one row per (trace, device, category)
-- with op_name NULL. An op that launched nothing itself (aten::linear around aten::addmm,
-- aten::layer_norm around aten::native_layer_norm) has no row: the op inside it has.
-- category: the op's in op_models (GEMM, conv, attention, elementwise, reduction (softmax too),
-- norm, memory (copy_, fill_, embedding, index_select)); for other ops, the category of the first
-- GPU op of its first call: communication or memory by kernel_class_rules, else elementwise or
-- reduction for 'void at::native...' kernels whose name says 'elementwise' or 'reduce' (TraceLens's
-- fallback), else other.
-- FLOPs and bytes per call: view op_costs (formulas in docs/queries.md). Columns: calls (calls that
-- launched GPU ops), gpu_ops, gpu_time (summed durations, ns), pct_gpu_time (of the trace's GPU op
-- time), flops and bytes per call, total_flops, total_bytes, intensity (FLOP/byte), tflops
-- (total_flops / modelled_ns, TFLOP/s), tb_s (total_bytes / modelled_ns, TB/s), device,
-- peak_tflops (GEMM, conv, attention: the dtype's matrix peak; other ops: the FP32 peak),
-- peak_tb_s (device_peaks.hbm_gbps / 1000), pct_roofline = 100 x roofline time / gpu_time with
-- roofline time = max(FLOPs / peak FLOP/s, bytes / peak bytes/s) (TraceLens's Pct Roofline),
-- bound = 'compute' when the FLOPs' time at peak is at least the bytes' time, else 'memory';
-- modelled_ns = the GPU time of the rows with FLOPs and bytes. Ops whose GPU ops copy from or to
-- host memory (memcpy HtoD/DtoH) have no roofline (pct_roofline and bound NULL): the link is not
-- device memory. Aggregated rows ('op', 'category') add the shapes up: pct_roofline = 100 x (sum of
-- roofline times) / (GPU time of the rows that have one).
WITH
-- per GPU op name: the category of an op without a model, and whether it copies host memory
kcat AS MATERIALIZED (
  SELECT name_id,
         CASE WHEN class = 'communication' THEN 'communication'
              WHEN class = 'memory' THEN 'memory'
              WHEN name LIKE 'void at::native%' AND instr(name, 'elementwise') THEN 'elementwise'
              WHEN name LIKE 'void at::native%' AND instr(name, 'reduce') THEN 'reduction'
              ELSE 'other' END AS cat,
         kind = 'memcpy' AND (name LIKE '%HtoD%' OR name LIKE '%DtoH%' OR name LIKE '%HostToDevice%'
                              OR name LIKE '%DeviceToHost%') AS host_copy
  FROM gpu_op_classes
),
models AS MATERIALIZED (SELECT name FROM op_models WHERE uses_concrete),
-- per (op name, shape, Concrete Inputs where the model reads them, device), from op_gpu_totals
-- (one row per CPU op that launched GPU ops itself: its name, shape, timed GPU ops and the device
-- and GPU op name of the first of them); rep: one of its ops; name_id: a GPU op name of the group
-- (for the category of ops without a model). Ops whose model reads no Concrete Inputs are grouped
-- in the order of the index op_gpu_totals_name (no sort, no event read); those of the models that
-- read them (a few) get them from events first. The groups come out in (shape, trace, name,
-- Concrete Inputs, device) order.
plain AS (
  SELECT trace_id, op_name AS name, input_shape_id, NULL AS concrete, device,
         count(*) AS calls, sum(timed_gpu_ops) AS gpu_ops, sum(gpu_time) AS gpu_time,
         min(op_event_id) AS rep, name_id
  FROM op_gpu_totals
  WHERE timed_gpu_ops > 0 AND (:trace_id IS NULL OR trace_id = :trace_id)
    AND NOT coalesce(op_name IN (SELECT name FROM models), 0)  -- (an op without a name too)
  GROUP BY op_name, input_shape_id, device, trace_id
),
concrete_ops AS MATERIALIZED (
  SELECT d.op_event_id, d.trace_id, d.op_name, d.input_shape_id, d.device, d.timed_gpu_ops,
         d.gpu_time, d.name_id,
         (SELECT o.arg_values -> k.path FROM events AS o
            JOIN arg_keys AS k ON k.shape_id = o.arg_shape_id AND k.key = 'Concrete Inputs'
           WHERE o.id = d.op_event_id) AS concrete
  FROM op_gpu_totals AS d
  WHERE d.timed_gpu_ops > 0 AND (:trace_id IS NULL OR d.trace_id = :trace_id)
    AND d.op_name IN (SELECT name FROM models)
),
groups AS MATERIALIZED (
  SELECT trace_id, name, input_shape_id, concrete, device, calls, gpu_ops, gpu_time, rep, name_id
  FROM (
    SELECT * FROM plain
    UNION ALL
    SELECT trace_id, op_name, input_shape_id, concrete, device,
           count(*), sum(timed_gpu_ops), sum(gpu_time), min(op_event_id), name_id
    FROM concrete_ops
    GROUP BY input_shape_id, trace_id, op_name, concrete, device)
  ORDER BY input_shape_id, trace_id, name, concrete, device
),
-- Costs per (op name, shape, Concrete Inputs), from one op of each over all traces: ops with the
-- same name and args cost the same (view op_costs), and the ranks of a job share their shapes.
-- Materialized: flattened into rows_, each use of flops or bytes would evaluate the view's
-- expressions again.
costs AS MATERIALIZED (
  SELECT r.name, r.input_shape_id, r.concrete, c.family, c.category, c.dtype, c.unit, c.flops, c.bytes
  FROM (SELECT name, input_shape_id, concrete, min(rep) AS rep FROM groups
        GROUP BY name, input_shape_id, concrete) AS r
  JOIN op_costs AS c ON c.op_event_id = r.rep
),
rows_ AS (
  SELECT g.trace_id,
         coalesce(c.category, n.cat) AS category,
         g.name AS op_name, c.family AS model, sh.input_dims, sh.input_type, c.dtype, c.unit,
         g.calls, g.gpu_ops, g.gpu_time, c.flops, c.bytes, g.device, n.host_copy
  FROM kcat AS n                      -- (this order: by GPU op name, then the groups' order)
  CROSS JOIN groups AS g ON g.name_id = n.name_id
  LEFT JOIN costs AS c
    ON c.name IS g.name AND c.input_shape_id IS g.input_shape_id AND c.concrete IS g.concrete
  LEFT JOIN input_shapes AS sh ON sh.id = g.input_shape_id
  UNION ALL
  -- GPU ops that no CPU op launched
  SELECT k.trace_id, n.cat, NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*), sum(k.gpu_dur),
         NULL, NULL, k.device, max(n.host_copy)
  FROM op_kernel_links AS k
  JOIN kcat AS n ON n.name_id = k.name_id
  WHERE k.op_event_id IS NULL AND k.gpu_dur IS NOT NULL
    AND (:trace_id IS NULL OR k.trace_id = :trace_id)
  GROUP BY k.trace_id, k.device, n.cat
),
-- The device the GPU ops ran on: devices.device equal to the GPU op's device, else (ROCm GPU pids
-- are offset from the 0-based deviceProperties ids) the trace's first device; its peaks.
dev AS (
  SELECT p.trace_id, p.device, dv.name AS device_name,
         pk.bf16_tflops, pk.fp16_tflops, pk.fp32_tflops, pk.hbm_gbps / 1000.0 AS peak_tb_s
  FROM (SELECT DISTINCT trace_id, device FROM rows_) AS p
  LEFT JOIN devices AS dv
    ON dv.rowid = coalesce(
         (SELECT d.rowid FROM devices AS d WHERE d.trace_id = p.trace_id AND d.device = p.device),
         (SELECT d.rowid FROM devices AS d WHERE d.trace_id = p.trace_id ORDER BY d.device LIMIT 1))
  LEFT JOIN device_peaks AS pk
    ON pk.rowid = (SELECT x.rowid FROM device_peaks AS x WHERE dv.name LIKE x.pattern
                   ORDER BY x.priority DESC LIMIT 1)
),
-- Each row's peaks and its time at peak: FLOPs (compute_ns), bytes (memory_ns), ns for all calls
timed AS (
  SELECT r.*, d.device_name,
         CASE r.unit
           WHEN 'matrix' THEN CASE r.dtype WHEN 'bf16' THEN d.bf16_tflops WHEN 'fp16' THEN d.fp16_tflops
                                           WHEN 'fp32' THEN d.fp32_tflops END
           WHEN 'vector' THEN d.fp32_tflops END AS peak_tflops,
         d.peak_tb_s,
         CASE WHEN r.host_copy THEN NULL WHEN r.flops = 0 THEN 0
              ELSE 1.0 * r.flops * r.calls / (CASE r.unit
                WHEN 'matrix' THEN CASE r.dtype WHEN 'bf16' THEN d.bf16_tflops
                                                WHEN 'fp16' THEN d.fp16_tflops
                                                WHEN 'fp32' THEN d.fp32_tflops END
                WHEN 'vector' THEN d.fp32_tflops END * 1000.0) END AS compute_ns,
         CASE WHEN r.host_copy THEN NULL
              ELSE 1.0 * r.bytes * r.calls / (d.peak_tb_s * 1000.0) END AS memory_ns
  FROM rows_ AS r
  LEFT JOIN dev AS d ON d.trace_id = r.trace_id AND d.device IS r.device
),
grouped AS (
  SELECT
    trace_id, category,
    CASE WHEN coalesce(:group, 'shape') = 'category' THEN '*' ELSE op_name END AS op_name,
    CASE WHEN coalesce(:group, 'shape') = 'category' THEN '*'
         ELSE group_concat(DISTINCT model) END AS model,
    CASE WHEN coalesce(:group, 'shape') = 'shape' THEN input_dims ELSE '*' END AS input_dims,
    CASE WHEN coalesce(:group, 'shape') = 'shape' THEN input_type ELSE '*' END AS input_type,
    group_concat(DISTINCT dtype) AS dtype,
    sum(calls) AS calls,
    sum(gpu_ops) AS gpu_ops,
    sum(gpu_time) AS gpu_time,
    count(flops) = count(*) AND count(calls) = count(*) AS all_flops,
    count(bytes) = count(*) AND count(calls) = count(*) AS all_bytes,
    sum(flops * calls) AS total_flops,
    sum(bytes * calls) AS total_bytes,
    sum(CASE WHEN flops IS NOT NULL AND bytes IS NOT NULL THEN gpu_time END) AS modelled_ns,
    sum(CASE WHEN flops IS NOT NULL AND bytes IS NOT NULL THEN flops * calls END) AS m_flops,
    sum(CASE WHEN flops IS NOT NULL AND bytes IS NOT NULL THEN bytes * calls END) AS m_bytes,
    group_concat(DISTINCT device_name) AS device,
    min(peak_tflops) AS peak_min, max(peak_tflops) AS peak_max,
    min(peak_tb_s) AS bw_min, max(peak_tb_s) AS bw_max,
    sum(max(compute_ns, memory_ns)) AS roofline_ns,
    sum(CASE WHEN compute_ns IS NOT NULL AND memory_ns IS NOT NULL THEN gpu_time END) AS roofline_gpu_ns,
    sum(CASE WHEN memory_ns IS NOT NULL THEN compute_ns END) AS compute_ns,
    sum(CASE WHEN compute_ns IS NOT NULL THEN memory_ns END) AS memory_ns
  FROM timed
  GROUP BY trace_id, category, 3, 5, 6
)
SELECT
  trace_id,
  category,
  op_name,
  model,
  input_dims,
  input_type,
  dtype,
  calls,
  gpu_ops,
  gpu_time,
  round(100.0 * gpu_time / sum(gpu_time) OVER (PARTITION BY trace_id), 2) AS pct_gpu_time,
  CASE WHEN all_flops THEN total_flops / calls END AS flops,
  CASE WHEN all_bytes THEN total_bytes / calls END AS bytes,
  CASE WHEN all_flops THEN total_flops END AS total_flops,
  CASE WHEN all_bytes THEN total_bytes END AS total_bytes,
  round(1.0 * m_flops / nullif(m_bytes, 0), 2) AS intensity,
  round(m_flops / 1000.0 / nullif(modelled_ns, 0), 3) AS tflops,
  round(m_bytes / 1000.0 / nullif(modelled_ns, 0), 3) AS tb_s,
  device,
  CASE WHEN peak_min = peak_max THEN peak_min END AS peak_tflops,
  CASE WHEN bw_min = bw_max THEN bw_min END AS peak_tb_s,
  round(100.0 * roofline_ns / nullif(roofline_gpu_ns, 0), 2) AS pct_roofline,
  CASE WHEN compute_ns IS NOT NULL
       THEN CASE WHEN compute_ns >= memory_ns THEN 'compute' ELSE 'memory' END END AS bound,
  modelled_ns
FROM grouped
ORDER BY gpu_time DESC, trace_id, category, op_name, input_dims
LIMIT coalesce(:limit, 50);
