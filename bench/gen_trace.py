#!/usr/bin/env python3
"""Deterministic generator of a large synthetic PyTorch-profiler (Kineto) trace.

Models a data-parallel transformer training run profiled with
record_shapes/profile_memory/with_stack on (PyTorch 2.4+ style): per training
step a ``ProfilerStep#N`` annotation, Python frames, ATen ``cpu_op`` trees with shapes, CUDA runtime launches,
kernels/memcpy/memset on GPU streams, ``ac2g`` and ``fwdbwd`` flows, a
backward pass on the autograd thread, DDP all-reduces (NCCL kernels),
``[memory]`` instants, and ``M`` metadata at the end of ``traceEvents``.
``baseTimeNanoseconds`` is written after ``traceEvents``; ``ts``/``dur`` are
relative microseconds with 3 decimals (``1419247332972.313``).

``--ranks N`` writes every rank of one job (one file per rank, ``{rank}`` in
the output name): the ranks agree with each other, as the ranks of a real
job do: the same steps, ops and collectives in the same order, on one
timeline (one seed for all); only the rank's own values differ (rank, GPU,
pid, ``distributedInfo``) and the start of each NCCL kernel: rank r reaches
collective c ``arrival(r, c)`` ns after the earliest possible start, uniform in
``[0, --skew-us]`` (seeded by the collective), plus ``--slow-us`` on the slow
rank (``--slow-rank``, default the last), and every rank's kernel ends when the
last one has arrived (plus the transfer), so the slow rank is the last to
start every collective: the straggler that ``collectives`` (``slowest_rank``)
and ``tracesql advise`` (rule ``stragglers``) must name.

``--cpu-only`` writes what a CPU-only profile (``ProfilerActivity.CPU``) of the
same run holds: the host events (ops, Python frames, annotations, ``[memory]``,
``fwdbwd`` flows) without runtime calls, GPU activity or ``ac2g`` flows.

Output is streamed one training step at a time (memory use is flat), pretty
printed like Kineto by default, or as one single line with ``--compact`` (like
Python re-serialised traces).  A name ending in ``.gz`` writes gzip.

    bench/gen_trace.py --target-mb 500 -o bench/out/trace_500mb.json
    bench/gen_trace.py --target-mb 20 --compact -o /tmp/t.json.gz
    bench/gen_trace.py --target-mb 534 --cpu-only -o bench/out/trace_cpu_534mb.json
    bench/gen_trace.py --ranks 8 --target-mb 20 -o bench/out/job8/rank{rank}.json.gz

Python 3 standard library only.  Prints bytes/events/arg pairs to stderr.
"""

import argparse
import gzip
import json
import os
import random
import sys
import time

BASE_TIME_NS = 1751410836000000000      # quarter-aligned, like real files
START_REL_NS = 1419247332972313         # first ts: 1419247332972.313 us

BF16 = "c10::BFloat16"
F32 = "float"
I64 = "long int"


# --------------------------------------------------------------------------
# small formatting helpers (precomputed per op spec, never per event)

def fmt_shape(shape):
    return "[" + ", ".join(str(x) for x in shape) + "]"


def contig_strides(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= d
    return list(reversed(st))


def fmt_inputs(inputs):
    """inputs: list of (kind, value[, dtype]).  Returns the 4-key fragment
    (Concrete Inputs, Input type, Input Strides, Input Dims) ending in ', '."""
    if inputs is None:
        return "", 0
    dims, types, strides, conc = [], [], [], []
    for inp in inputs:
        kind = inp[0]
        if kind == "T":
            shape = inp[1]
            dtype = inp[2] if len(inp) > 2 else BF16
            dims.append(fmt_shape(shape))
            types.append('"%s"' % dtype)
            strides.append(fmt_shape(contig_strides(shape)))
            conc.append('""')
        elif kind == "TL":
            shapes = inp[1]
            dtype = inp[2] if len(inp) > 2 else F32
            dims.append("[" + ", ".join(fmt_shape(s) for s in shapes) + "]")
            types.append('"TensorList"')
            strides.append("[" + ", ".join(fmt_shape(contig_strides(s)) for s in shapes) + "]")
            conc.append('""')
        elif kind == "S":
            dims.append("[]")
            types.append('"Scalar"')
            strides.append("[]")
            conc.append('"%s"' % inp[1])
        elif kind == "SL":
            dims.append("[]")
            types.append('"ScalarList"')
            strides.append("[]")
            conc.append('"%s"' % fmt_shape(inp[1]))
        else:  # "N": None / optional
            dims.append("[]")
            types.append('""')
            strides.append("[]")
            conc.append('""')
    frag = ('"Concrete Inputs": [%s], "Input type": [%s], "Input Strides": [%s], '
            '"Input Dims": [%s], ') % (", ".join(conc), ", ".join(types),
                                       ", ".join(strides), ", ".join(dims))
    return frag, 4


class Kernel(object):
    """A GPU activity launched by one runtime call."""
    __slots__ = ("cat", "name", "rt_name", "cbid", "stream", "dur", "tail", "ntail", "rt_dur", "_init")

    def __init__(self, name, dur, grid=(1, 1, 1), block=(128, 1, 1), regs=32, smem=0,
                 bpsm=1, wpsm=4, occ=0, stream=7, cat="kernel", rt_name="cudaLaunchKernel",
                 cbid=211, nbytes=0, extra=None, nextra=0, rt_dur=(3000, 11000)):
        self.cat = cat
        self.name = name
        self.rt_name = rt_name
        self.cbid = cbid
        self.stream = stream
        self.dur = dur
        self.rt_dur = rt_dur
        self.tail = None
        self._init = (grid, block, regs, smem, bpsm, wpsm, occ, nbytes, extra, nextra)

    def finalize(self, pretty):
        grid, block, regs, smem, bpsm, wpsm, occ, nbytes, extra, nextra = self._init
        sep = ",      " if pretty else ", "
        if self.cat == "kernel":
            parts = ['"registers per thread": %d' % regs, '"shared memory": %d' % smem,
                     '"blocks per SM": %s' % bpsm, '"warps per SM": %s' % wpsm,
                     '"grid": %s' % fmt_shape(grid), '"block": %s' % fmt_shape(block),
                     '"est. achieved occupancy %%": %d' % occ]
            self.ntail = len(parts) + nextra
            if extra:
                parts.extend(extra)
            self.tail = sep.join(parts)
        else:  # gpu_memcpy / gpu_memset
            mid = (self.dur[0] + self.dur[1]) // 2
            bw = nbytes / float(mid) if mid else 0.0
            self.tail = '"bytes": %d, "memory bandwidth (GB/s)": %r' % (nbytes, bw)
            self.ntail = 2


class Op(object):
    """A cpu_op node: children ops and launches, optional backward spec."""
    __slots__ = ("name", "inputs", "frag", "nfrag", "children", "launches", "bwd", "mem",
                 "cat", "extra", "nextra", "seqnum")

    def __init__(self, name, inputs=None, children=(), launches=(), bwd=None, mem=0,
                 cat="cpu_op", extra=None, seqnum=False):
        self.name = name
        self.frag, self.nfrag = fmt_inputs(inputs)
        self.children = list(children)
        self.launches = list(launches)
        self.bwd = bwd          # name of the backward node (XBackward0) or None
        self.mem = mem          # bytes allocated for the output
        self.cat = cat
        self.extra = extra or []  # extra preformatted '"key": value' strings
        self.nextra = len(self.extra)
        # composite ops (aten::linear, aten::conv2d ...) carry the current autograd
        # sequence number without a backward node / fwdbwd flow of their own
        self.seqnum = seqnum


# --------------------------------------------------------------------------
# kernel catalogue (names modelled on real H100 traces)

def K_GEMM(variant, flops_ns):
    names = {
        "tn": "nvjet_hsh_256x128_64x4_2x1_v_bz_coopB_TNT",
        "nn": "nvjet_hsh_192x192_64x4_2x1_v_bz_coopA_NNT",
        "nt": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
    }
    return Kernel(names[variant], flops_ns, grid=(132, 1, 1), block=(384, 1, 1), regs=168,
                  smem=231424, bpsm=1, wpsm=12, occ=19)


def elementwise(functor, nin, dtype="c10::BFloat16"):
    return ("void at::native::vectorized_elementwise_kernel<4, %s, std::array<char*, %dul> >"
            "(int, %s, std::array<char*, %dul>)" % (functor, nin, functor, nin))


def build_catalogue(B, S, H, F, V, NH):
    k = {}
    tok = B * S
    k["ln_fwd"] = Kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
                         (28000, 36000), grid=(tok, 1, 1), block=(128, 1, 1), regs=30, smem=0,
                         bpsm=62.060608, wpsm=248.242432, occ=84)
    k["ln_bwd_in"] = Kernel("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
                            (40000, 52000), grid=(tok, 1, 1), block=(128, 1, 1), regs=40, smem=0,
                            bpsm=62.060608, wpsm=248.242432, occ=77)
    k["ln_bwd_gb"] = Kernel("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)",
                            (30000, 41000), grid=(H // 32, 1, 1), block=(32, 32, 1), regs=64, smem=8448,
                            bpsm=0.242424, wpsm=7.757576, occ=12)
    k["gemm_qkv"] = K_GEMM("tn", (210000, 260000))
    k["gemm_o"] = K_GEMM("tn", (70000, 90000))
    k["gemm_fc1"] = K_GEMM("tn", (280000, 330000))
    k["gemm_fc2"] = K_GEMM("tn", (280000, 330000))
    k["gemm_head"] = K_GEMM("tn", (1900000, 2300000))
    k["gemm_bwd_nn"] = K_GEMM("nn", (80000, 340000))
    k["gemm_bwd_nt"] = K_GEMM("nt", (80000, 340000))
    k["flash_fwd"] = Kernel("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
                            (380000, 450000), grid=(S // 128, B, NH), block=(128, 1, 1), regs=255,
                            smem=49152, bpsm=7.757576, wpsm=31.030304, occ=6)
    bwd_traits = "pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >"
    k["flash_bwd_dot"] = Kernel("void pytorch_flash::flash_bwd_dot_do_o_kernel<true, %s>(pytorch_flash::Flash_bwd_params)" % bwd_traits,
                                (20000, 26000), grid=(S // 128, B, NH), block=(256, 1, 1), regs=32,
                                smem=0, bpsm=7.757576, wpsm=62.060608, occ=71)
    k["flash_bwd_memset"] = Kernel("Memset (Device)", (3000, 6000), cat="gpu_memset",
                                   rt_name="cudaMemsetAsync", cbid=51, nbytes=B * S * NH * 64 * 4)
    k["flash_bwd_main"] = Kernel("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<%s, false, true, false, false, false, true, false>(pytorch_flash::Flash_bwd_params)" % bwd_traits,
                                 (900000, 1100000), grid=(S // 128, B, NH), block=(256, 1, 1), regs=255,
                                 smem=98304, bpsm=7.757576, wpsm=62.060608, occ=12)
    k["flash_bwd_cvt"] = Kernel("void pytorch_flash::flash_bwd_convert_dq_kernel<%s>(pytorch_flash::Flash_bwd_params, int)" % bwd_traits,
                                (18000, 24000), grid=(S // 128, B, NH), block=(256, 1, 1), regs=46,
                                smem=16384, bpsm=7.757576, wpsm=62.060608, occ=68)
    k["copy"] = Kernel("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})",
                       (30000, 38000), grid=(tok * H // 512, 1, 1), block=(128, 1, 1), regs=28,
                       smem=0, bpsm=248.242432, wpsm=992.969727, occ=88)
    k["dropout"] = Kernel("void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, float, unsigned int, 1, 8, bool>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
                          (24000, 30000), grid=(1056, 1, 1), block=(256, 1, 1), regs=38, smem=0,
                          bpsm=8, wpsm=64, occ=90)
    k["dropout_bwd"] = Kernel(elementwise("at::native::(anonymous namespace)::masked_scale_kernel<bool, c10::BFloat16, float>(at::Tensor&, at::Tensor const&, at::Tensor const&, float)::{lambda(c10::BFloat16, bool)#1}", 3),
                              (22000, 28000), grid=(tok * H // 512, 1, 1), block=(128, 1, 1), regs=24,
                              smem=0, bpsm=248.242432, wpsm=992.969727, occ=86)
    k["add"] = Kernel(elementwise("at::native::CUDAFunctor_add<c10::BFloat16>", 3),
                      (22000, 28000), grid=(tok * H // 512, 1, 1), block=(128, 1, 1), regs=24,
                      smem=0, bpsm=248.242432, wpsm=992.969727, occ=87)
    k["add_f32"] = Kernel(elementwise("at::native::CUDAFunctor_add<float>", 3),
                          (3000, 9000), grid=(H * 4 // 512, 1, 1), block=(128, 1, 1), regs=20,
                          smem=0, bpsm=15.515152, wpsm=62.060608, occ=52)
    gelu_l = ("at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}")
    k["gelu"] = Kernel(elementwise(gelu_l, 2), (60000, 72000), grid=(tok * F // 512, 1, 1),
                       block=(128, 1, 1), regs=26, smem=0, bpsm=992.969727, wpsm=3971.878906, occ=89)
    gelub_l = ("at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}")
    k["gelu_bwd"] = Kernel(elementwise(gelub_l, 3), (90000, 105000), grid=(tok * F // 512, 1, 1),
                           block=(128, 1, 1), regs=30, smem=0, bpsm=992.969727, wpsm=3971.878906, occ=85)
    k["sum"] = Kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)",
                      (14000, 30000), grid=(8, 128, 1), block=(32, 16, 1), regs=32, smem=16,
                      bpsm=7.757576, wpsm=124.121216, occ=94)
    k["index_select"] = Kernel("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
                               (26000, 33000), grid=(tok * H // 128 // 16, 1, 1), block=(128, 1, 1),
                               regs=22, smem=0, bpsm=31.030304, wpsm=124.121216, occ=91)
    k["emb_bwd_sort"] = Kernel("void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, long, int, int, at_cuda_detail::cub::detail::identity_decomposer_t>(int*, int*, long const*, long*, long const*, long*, int, int, int, at_cuda_detail::cub::detail::identity_decomposer_t)",
                               (12000, 16000), grid=(8, 1, 1), block=(384, 1, 1), regs=90, smem=31232,
                               bpsm=0.060606, wpsm=0.727273, occ=1)
    k["emb_bwd"] = Kernel("void at::native::(anonymous namespace)::compute_grad_weight<c10::BFloat16, long>(long const*, c10::BFloat16 const*, long const*, long, long, long, long, at::GenericPackedTensorAccessor<float, 2ul, at::DefaultPtrTraits, long>)",
                          (40000, 52000), grid=(tok // 4, 1, 1), block=(64, 4, 1), regs=40, smem=0,
                          bpsm=15.515152, wpsm=124.121216, occ=80)
    k["logsoftmax"] = Kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::BFloat16 const*, int)",
                             (900000, 1000000), grid=(tok, 1, 1), block=(1024, 1, 1), regs=28,
                             smem=0, bpsm=62.060608, wpsm=1985.939331, occ=97)
    k["logsoftmax_bwd"] = Kernel("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(c10::BFloat16*, float const*, float const*, int)",
                                 (1400000, 1600000), grid=(tok, 1, 1), block=(1024, 1, 1), regs=30,
                                 smem=0, bpsm=62.060608, wpsm=1985.939331, occ=96)
    k["nll"] = Kernel("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
                      (9000, 12000), grid=(1, 1, 1), block=(32, 1, 1), regs=30, smem=2048,
                      bpsm=0.007576, wpsm=0.007576, occ=2)
    k["nll_memset"] = Kernel("Memset (Device)", (1500, 2500), cat="gpu_memset", rt_name="cudaMemsetAsync",
                             cbid=51, nbytes=tok * V * 4)
    k["nll_bwd"] = Kernel("void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                          (8000, 11000), grid=(1, 1, 1), block=(32, 1, 1), regs=24, smem=0,
                          bpsm=0.007576, wpsm=0.007576, occ=2)
    k["h2d"] = Kernel("Memcpy HtoD (Pageable -> Device)", (14000, 19000), cat="gpu_memcpy",
                      rt_name="cudaMemcpyAsync", cbid=41, nbytes=tok * 8, rt_dur=(25000, 45000))
    k["d2h"] = Kernel("Memcpy DtoH (Device -> Pageable)", (1500, 2500), cat="gpu_memcpy",
                      rt_name="cudaMemcpyAsync", cbid=41, nbytes=4, rt_dur=(8000, 15000))
    mta = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<%d>, at::native::(anonymous namespace)::%s<float, %d, %d, %d>, %s, float>(at::native::(anonymous namespace)::TensorListMetadata<%d>, at::native::(anonymous namespace)::%s<float, %d, %d, %d>, %s, float)")
    k["foreach_mul"] = Kernel(mta % (1, "BinaryOpScalarFunctor", 1, 1, 0, "std::multiplies<float>", 1, "BinaryOpScalarFunctor", 1, 1, 0, "std::multiplies<float>"),
                              (20000, 40000), grid=(320, 1, 1), block=(512, 1, 1), regs=32, smem=0,
                              bpsm=2.424242, wpsm=38.787880, occ=60)
    k["foreach_lerp"] = Kernel(mta % (2, "PointwiseOpScalarFunctor", 2, 2, 0, "std::plus<float>", 2, "PointwiseOpScalarFunctor", 2, 2, 0, "std::plus<float>"),
                               (30000, 60000), grid=(320, 1, 1), block=(512, 1, 1), regs=38, smem=0,
                               bpsm=2.424242, wpsm=38.787880, occ=58)
    k["foreach_addcmul"] = Kernel(mta % (3, "PointwiseOpScalarFunctor", 3, 3, 0, "std::multiplies<float>", 3, "PointwiseOpScalarFunctor", 3, 3, 0, "std::multiplies<float>"),
                                  (35000, 70000), grid=(320, 1, 1), block=(512, 1, 1), regs=40, smem=0,
                                  bpsm=2.424242, wpsm=38.787880, occ=57)
    k["foreach_sqrt"] = Kernel(mta % (2, "UnaryOpFunctor", 2, 2, 1, "at::native::Sqrt<float>", 2, "UnaryOpFunctor", 2, 2, 1, "at::native::Sqrt<float>"),
                               (25000, 45000), grid=(320, 1, 1), block=(512, 1, 1), regs=30, smem=0,
                               bpsm=2.424242, wpsm=38.787880, occ=61)
    k["foreach_addcdiv"] = Kernel(mta % (3, "PointwiseOpScalarListFunctor", 3, 3, 0, "std::divides<float>", 3, "PointwiseOpScalarListFunctor", 3, 3, 0, "std::divides<float>"),
                                  (35000, 70000), grid=(320, 1, 1), block=(512, 1, 1), regs=42, smem=0,
                                  bpsm=2.424242, wpsm=38.787880, occ=55)
    return k


# --------------------------------------------------------------------------

class Gen(object):
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.pretty = not a.compact
        p = self.pretty
        if p:
            self.T_X = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s,\n'
                        '    "ts": %d.%03d, "dur": %d.%03d,\n    "args": {\n      %s\n    }\n  }')
            self.T_S = ('  {\n    "ph": "s", "id": %d, "pid": %s, "tid": %s, "ts": %d.%03d,\n'
                        '    "cat": "%s", "name": "%s"\n  }')
            self.T_F = ('  {\n    "ph": "f", "id": %d, "pid": %s, "tid": %s, "ts": %d.%03d,\n'
                        '    "cat": "%s", "name": "%s", "bp": "e"\n  }')
            self.T_MEM = ('  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n'
                          '    "pid": %s, "tid": %s,\n    "ts": %d.%03d,\n    "args": {\n      %s\n    }\n  }')
            self.T_M = ('  {\n    "name": "%s", "ph": "M", "ts": %d.%03d, "pid": %s, "tid": %s,\n'
                        '    "args": {\n      "%s": %s\n    }\n  }')
            self.T_GI = ('  {\n    "name": "%s", "ph": "i", "s": "g",\n    "pid": %s, "tid": %s, "ts": %d.%03d\n  }')
            self.SEP = ",\n"
            self.KSEP = "      "
        else:
            self.T_X = ('{"ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s, '
                        '"ts": %d.%03d, "dur": %d.%03d, "args": {%s}}')
            self.T_S = '{"ph": "s", "id": %d, "pid": %s, "tid": %s, "ts": %d.%03d, "cat": "%s", "name": "%s"}'
            self.T_F = ('{"ph": "f", "id": %d, "pid": %s, "tid": %s, "ts": %d.%03d, "cat": "%s", '
                        '"name": "%s", "bp": "e"}')
            self.T_MEM = ('{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", '
                          '"pid": %s, "tid": %s, "ts": %d.%03d, "args": {%s}}')
            self.T_M = '{"name": "%s", "ph": "M", "ts": %d.%03d, "pid": %s, "tid": %s, "args": {"%s": %s}}'
            self.T_GI = '{"name": "%s", "ph": "i", "s": "g", "pid": %s, "tid": %s, "ts": %d.%03d}'
            self.SEP = ", "
            self.KSEP = " "

        self.ngpu = a.gpus
        self.rank = a.rank
        self.dev = a.rank % a.gpus
        self.pid = 2910249 + self.rng.randint(0, 9000)
        if a.ranks:
            self.pid += 11 * a.rank    # one process per rank; the seed (and so the rest) is the job's
        self.tid_main = self.pid
        self.tid_bwd = self.pid + 9503
        self.dev_s = str(self.dev)
        self.pid_s = str(self.pid)
        self.tmain_s = str(self.tid_main)
        self.tbwd_s = str(self.tid_bwd)

        self.gpu = []
        self.gpu_args = 0
        # counters
        self.n_events = 0
        self.n_args = 0
        self.ext = 1
        self.rfid = 0
        self.evidx = 0
        self.pyid = 3           # 1, 2 are the root frames written at the end
        self.pyev = 0
        self.corr = 1000 + self.rng.randint(0, 5000)
        self.seq = 0
        self.fwdbwd = 1
        self.comm_seq = 0
        self.module_ids = {}
        self.t = START_REL_NS
        self.stream_free = {}
        self.streams_used = set()
        self.alloc_total = 400 * 1024 * 1024
        self.reserved = 2 * 1024 * 1024 * 1024
        self.addr_next = 0x7f3a00000000 + self.rng.randint(0, 1 << 20) * 512
        self.sync_row = False

        B, S, H, F, V, NH = a.batch, a.seqlen, a.hidden, 4 * a.hidden, a.vocab, a.hidden // 64
        self.dims = (B, S, H, F, V, NH)
        self.K = build_catalogue(B, S, H, F, V, NH)
        for kk in self.K.values():
            kk.finalize(self.pretty)
        self._build_model()

    # ---------------------------------------------------------------- model
    def _linear(self, n_in, n_out, kern, tok3):
        B, S = tok3[0], tok3[1]
        x = ("T", (B, S, n_in))
        w = ("T", (n_out, n_in))
        b = ("T", (n_out,))
        t = Op("aten::t", [w], children=[
            Op("aten::transpose", [w, ("S", 0), ("S", 1)], children=[
                Op("aten::as_strided", [w, ("SL", (n_in, n_out)), ("SL", (1, n_in)), ("N",)])])],
            bwd="TBackward0")
        view1 = Op("aten::view", [x, ("SL", (B * S, n_in))])
        addmm = Op("aten::addmm", [b, ("T", (B * S, n_in)), ("T", (n_in, n_out)), ("S", 1), ("S", 1)],
                   launches=[kern], bwd="AddmmBackward0", mem=B * S * n_out * 2)
        view2 = Op("aten::view", [("T", (B * S, n_out)), ("SL", (B, S, n_out))], bwd="ViewBackward0")
        return Op("aten::linear", [x, w, b], children=[t, view1, addmm, view2], seqnum=True)

    def _layer_norm(self, B, S, H):
        x = ("T", (B, S, H))
        return Op("aten::layer_norm", [x, ("SL", (H,)), ("T", (H,)), ("T", (H,)), ("S", "1e-05"), ("S", "True")], seqnum=True,
                  children=[Op("aten::native_layer_norm", [x, ("SL", (H,)), ("T", (H,)), ("T", (H,)), ("S", "1e-05")],
                               launches=[self.K["ln_fwd"]], bwd="NativeLayerNormBackward0",
                               mem=B * S * H * 2)])

    def _dropout(self, B, S, H):
        x = ("T", (B, S, H))
        return Op("aten::dropout", [x, ("S", "0.1"), ("S", "True")], seqnum=True,
                  children=[Op("aten::native_dropout", [x, ("S", "0.1"), ("S", "True")],
                               launches=[self.K["dropout"]], bwd="NativeDropoutBackward0",
                               mem=B * S * H * 3)])

    def _build_model(self):
        B, S, H, F, V, NH = self.dims
        K = self.K
        x = ("T", (B, S, H))
        self.m_ln1 = self._layer_norm(B, S, H)
        self.m_qkv = self._linear(H, 3 * H, K["gemm_qkv"], (B, S))
        hd = H // NH
        qkv5 = ("T", (B, S, 3, NH, hd))
        q4 = ("T", (B, NH, S, hd))
        self.m_split = [
            Op("aten::view", [("T", (B, S, 3 * H)), ("SL", (B, S, 3, NH, hd))], bwd="ViewBackward0"),
            Op("aten::permute", [qkv5, ("SL", (2, 0, 3, 1, 4))], bwd="PermuteBackward0",
               children=[Op("aten::as_strided", [qkv5, ("SL", (3, B, NH, S, hd)), ("SL", (H, 3 * H * S, hd, 3 * H, 1)), ("N",)])]),
            Op("aten::unbind", [("T", (3, B, NH, S, hd)), ("S", 0)], bwd="UnbindBackward0",
               children=[Op("aten::select", [("T", (3, B, NH, S, hd)), ("S", 0), ("S", i)],
                            children=[Op("aten::as_strided", [("T", (3, B, NH, S, hd)), ("SL", (B, NH, S, hd)), ("SL", (3 * H * S, hd, 3 * H, 1)), ("N",)])])
                         for i in range(3)]),
        ]
        self.m_attn = Op("aten::scaled_dot_product_attention", [q4, q4, q4, ("N",), ("S", "0.0"), ("S", "True"), ("N",), ("S", "False")], seqnum=True,
                         children=[Op("aten::_scaled_dot_product_flash_attention", [q4, q4, q4, ("S", "0.0"), ("S", "True"), ("S", "False"), ("N",)],
                                      bwd="ScaledDotProductFlashAttentionBackward0",
                                      children=[Op("aten::transpose", [q4, ("S", 1), ("S", 2)],
                                                   children=[Op("aten::as_strided", [q4, ("SL", (B, S, NH, hd)), ("SL", (S * H, hd, H, 1)), ("N",)])]),
                                                Op("aten::_flash_attention_forward", [("T", (B, S, NH, hd)), ("T", (B, S, NH, hd)), ("T", (B, S, NH, hd)), ("N",), ("N",), ("S", S), ("S", S), ("S", "0.0"), ("S", "True"), ("S", "False"), ("N",)],
                                                   children=[Op("aten::empty_like", [("T", (B, S, NH, hd)), ("N",), ("N",), ("N",), ("N",), ("N",)],
                                                                children=[Op("aten::empty_strided", [("SL", (B, S, NH, hd)), ("SL", (S * H, H, hd, 1)), ("S", "15"), ("S", "0"), ("S", "cuda:%d" % self.dev), ("N",)], mem=B * S * H * 2)]),
                                                             Op("aten::empty", [("SL", (B, NH, S)), ("S", "6"), ("N",), ("S", "cuda:%d" % self.dev), ("N",), ("N",)], mem=B * NH * S * 4)],
                                                   launches=[K["flash_fwd"]])])])
        self.m_merge = [
            Op("aten::transpose", [q4, ("S", 1), ("S", 2)], bwd="TransposeBackward0",
               children=[Op("aten::as_strided", [q4, ("SL", (B, S, NH, hd)), ("SL", (S * H, hd, H, 1)), ("N",)])]),
            Op("aten::reshape", [("T", (B, S, NH, hd)), ("SL", (B, S, H))], seqnum=True,
               children=[Op("aten::clone", [("T", (B, S, NH, hd)), ("S", "0")], bwd="CloneBackward0",
                            children=[Op("aten::empty_like", [("T", (B, S, NH, hd)), ("N",), ("N",), ("N",), ("N",), ("S", "0")],
                                         children=[Op("aten::empty", [("SL", (B, S, NH, hd)), ("S", "15"), ("S", "0"), ("S", "cuda:%d" % self.dev), ("N",), ("S", "0")], mem=B * S * H * 2)]),
                                      Op("aten::copy_", [("T", (B, S, NH, hd)), ("T", (B, S, NH, hd)), ("S", "False")],
                                         launches=[K["copy"]])]),
                         Op("aten::_unsafe_view", [("T", (B, S, NH, hd)), ("SL", (B, S, H))], bwd="UnsafeViewBackward0")]),
        ]
        self.m_o = self._linear(H, H, K["gemm_o"], (B, S))
        self.m_drop = self._dropout(B, S, H)
        self.m_add = Op("aten::add", [x, x, ("S", 1)], launches=[K["add"]], bwd="AddBackward0", mem=B * S * H * 2)
        self.m_ln2 = self._layer_norm(B, S, H)
        self.m_fc1 = self._linear(H, F, K["gemm_fc1"], (B, S))
        self.m_gelu = Op("aten::gelu", [("T", (B, S, F)), ("S", "none")], launches=[K["gelu"]],
                         bwd="GeluBackward0", mem=B * S * F * 2)
        self.m_fc2 = self._linear(F, H, K["gemm_fc2"], (B, S))
        self.m_emb = Op("aten::embedding", [("T", (V, H)), ("T", (B, S), I64), ("S", -1), ("S", "False"), ("S", "False")],
                        bwd="EmbeddingBackward0",
                        children=[Op("aten::reshape", [("T", (B, S), I64), ("SL", (-1,))],
                                     children=[Op("aten::view", [("T", (B, S), I64), ("SL", (-1,))])]),
                                  Op("aten::index_select", [("T", (V, H)), ("S", 0), ("T", (B * S,), I64)],
                                     launches=[K["index_select"]], mem=B * S * H * 2),
                                  Op("aten::view", [("T", (B * S, H)), ("SL", (B, S, H))])])
        self.m_lnf = self._layer_norm(B, S, H)
        self.m_head = self._linear(H, V, K["gemm_head"], (B, S))
        logits2 = ("T", (B * S, V))
        self.m_loss = Op("aten::cross_entropy_loss", [("T", (B * S, V)), ("T", (B * S,), I64), ("N",), ("S", 1), ("S", -100), ("S", "0.0")], seqnum=True,
                         children=[Op("aten::log_softmax", [logits2, ("S", 1), ("N",)], seqnum=True,
                                      children=[Op("aten::_log_softmax", [logits2, ("S", 1), ("S", "False")],
                                                   launches=[K["logsoftmax"]], bwd="LogSoftmaxBackward0",
                                                   mem=B * S * V * 4)]),
                                   Op("aten::nll_loss_nd", [("T", (B * S, V), F32), ("T", (B * S,), I64), ("N",), ("S", 1), ("S", -100)], seqnum=True,
                                      children=[Op("aten::nll_loss", [("T", (B * S, V), F32), ("T", (B * S,), I64), ("N",), ("S", 1), ("S", -100)], seqnum=True,
                                                   children=[Op("aten::nll_loss_forward", [("T", (B * S, V), F32), ("T", (B * S,), I64), ("N",), ("S", 1), ("S", -100)],
                                                                launches=[K["nll"]], bwd="NllLossBackward0", mem=512)])])])
        tok = ("T", (B, S), I64)
        self.m_to = Op("aten::to", [tok, ("S", "cuda:%d" % self.dev), ("N",), ("S", "True"), ("S", "False"), ("N",)], seqnum=True,
                       children=[Op("aten::_to_copy", [tok, ("N",), ("N",), ("S", "cuda:%d" % self.dev), ("N",), ("S", "True"), ("N",)], seqnum=True,
                                    children=[Op("aten::empty_strided", [("SL", (B, S)), ("SL", (S, 1)), ("S", "4"), ("S", "0"), ("S", "cuda:%d" % self.dev), ("S", "False")], mem=B * S * 8),
                                              Op("aten::copy_", [("T", (B, S), I64), tok, ("S", "True")],
                                                 launches=[K["h2d"]])])])
        self.m_item = Op("aten::item", [("T", (), F32)],
                         children=[Op("aten::_local_scalar_dense", [("T", (), F32)], launches=[K["d2h"]])])

        # backward node specs: name -> list of child ops (run under the inner node)
        t_hs = ("T", (H, 3 * H))
        bt = lambda shape: Op("aten::t", [("T", shape)], children=[Op("aten::transpose", [("T", shape), ("S", 0), ("S", 1)], children=[Op("aten::as_strided", [("T", shape), ("SL", (shape[1], shape[0])), ("SL", (1, shape[1])), ("N",)])])])
        mm = lambda a, b, kk: Op("aten::mm", [("T", a), ("T", b)], launches=[kk], mem=a[0] * b[1] * 2)
        g = ("T", (B * S, H))
        self.bwd_specs = {
            "TBackward0": ([("T", (H, 3 * H))], [bt((H, 3 * H))]),
            "ViewBackward0": ([("T", (B, S, H))], [Op("aten::reshape", [("T", (B, S, H)), ("SL", (B * S, H))], children=[Op("aten::view", [("T", (B, S, H)), ("SL", (B * S, H))])])]),
            "AddmmBackward0": ([g], [bt((H, H)), mm((B * S, H), (H, H), K["gemm_bwd_nn"]), bt((B * S, H)),
                                     mm((H, B * S), (B * S, H), K["gemm_bwd_nt"]), bt((H, H)),
                                     Op("aten::sum", [g, ("SL", (0,)), ("S", "True"), ("N",)], launches=[K["sum"]], mem=H * 2),
                                     Op("aten::view", [("T", (1, H)), ("SL", (H,))])]),
            "NativeLayerNormBackward0": ([("T", (B, S, H)), ("T", (B, S, H)), ("SL", (H,)), ("T", (B, S, 1), F32), ("T", (B, S, 1), F32), ("T", (H,)), ("T", (H,))],
                                         [Op("aten::native_layer_norm_backward", [("T", (B, S, H)), ("T", (B, S, H)), ("SL", (H,)), ("T", (B, S, 1), F32), ("T", (B, S, 1), F32), ("T", (H,)), ("T", (H,)), ("SL", (1, 1, 1))],
                                             launches=[K["ln_bwd_in"], K["ln_bwd_gb"]], mem=B * S * H * 2)]),
            "NativeDropoutBackward0": ([("T", (B, S, H)), ("T", (B, S, H), "bool")],
                                       [Op("aten::native_dropout_backward", [("T", (B, S, H)), ("T", (B, S, H), "bool"), ("S", "1.1111111111111112")],
                                           launches=[K["dropout_bwd"]], mem=B * S * H * 2)]),
            "AddBackward0": ([("T", (B, S, H))], []),
            "GeluBackward0": ([("T", (B, S, F)), ("T", (B, S, F))],
                              [Op("aten::gelu_backward", [("T", (B, S, F)), ("T", (B, S, F)), ("S", "none")],
                                  launches=[K["gelu_bwd"]], mem=B * S * F * 2)]),
            "PermuteBackward0": ([("T", (3, B, NH, S, hd))], [Op("aten::permute", [("T", (3, B, NH, S, hd)), ("SL", (1, 3, 0, 2, 4))], children=[Op("aten::as_strided", [("T", (3, B, NH, S, hd)), ("SL", (B, S, 3, NH, hd)), ("SL", (3 * H * S, 3 * H, H, hd, 1)), ("N",)])])]),
            "UnbindBackward0": ([q4, q4, q4], [Op("aten::stack", [("TL", [(B, NH, S, hd)] * 3, BF16), ("S", 0)],
                                                  children=[Op("aten::cat", [("TL", [(1, B, NH, S, hd)] * 3, BF16), ("S", 0)], launches=[K["copy"]], mem=B * S * 3 * H * 2)])]),
            "TransposeBackward0": ([("T", (B, S, NH, hd))], [Op("aten::transpose", [("T", (B, S, NH, hd)), ("S", 1), ("S", 2)], children=[Op("aten::as_strided", [("T", (B, S, NH, hd)), ("SL", (B, NH, S, hd)), ("SL", (S * H, hd, H, 1)), ("N",)])])]),
            "CloneBackward0": ([("T", (B, S, NH, hd))], []),
            "UnsafeViewBackward0": ([("T", (B, S, H))], [Op("aten::view", [("T", (B, S, H)), ("SL", (B, S, NH, hd))])]),
            "ScaledDotProductFlashAttentionBackward0": ([q4, q4, q4, q4, q4, ("T", (B, NH, S), F32)],
                                                        [Op("aten::_scaled_dot_product_flash_attention_backward", [q4, q4, q4, q4, q4, ("T", (B, NH, S), F32), ("N",), ("N",), ("S", S), ("S", S), ("S", "0.0"), ("S", "True"), ("T", (), I64), ("T", (), I64), ("S", "0.125")],
                                                            children=[Op("aten::_flash_attention_backward", [("T", (B, S, NH, hd))] * 5 + [("T", (B, NH, S), F32), ("N",), ("N",), ("S", S), ("S", S), ("S", "0.0"), ("S", "True"), ("T", (), I64), ("T", (), I64), ("S", "0.125")],
                                                                         children=[Op("aten::empty_like", [("T", (B, S, NH, hd)), ("N",), ("N",), ("N",), ("N",), ("N",)], mem=B * S * H * 2),
                                                                                   Op("aten::empty_like", [("T", (B, S, NH, hd)), ("N",), ("N",), ("N",), ("N",), ("N",)], mem=B * S * H * 2),
                                                                                   Op("aten::empty_like", [("T", (B, S, NH, hd)), ("N",), ("N",), ("N",), ("N",), ("N",)], mem=B * S * H * 2),
                                                                                   Op("aten::zeros", [("SL", (B, S, NH, hd)), ("S", "6"), ("N",), ("S", "cuda:%d" % self.dev), ("N",)],
                                                                                      children=[Op("aten::empty", [("SL", (B, S, NH, hd)), ("S", "6"), ("N",), ("S", "cuda:%d" % self.dev), ("N",), ("N",)], mem=B * S * H * 2),
                                                                                                Op("aten::zero_", [("T", (B, S, NH, hd), F32)], launches=[K["flash_bwd_memset"]])])],
                                                                         launches=[K["flash_bwd_dot"], K["flash_bwd_main"], K["flash_bwd_cvt"]])])]),
            "EmbeddingBackward0": ([("T", (B, S, H))],
                                   [Op("aten::embedding_backward", [("T", (B, S, H)), ("T", (B, S), I64), ("S", V), ("S", -1), ("S", "False"), ("S", "False")],
                                       children=[Op("aten::embedding_dense_backward", [("T", (B, S, H)), ("T", (B, S), I64), ("S", V), ("S", -1), ("S", "False")],
                                                    launches=[K["emb_bwd_sort"], K["emb_bwd"]], mem=V * H * 2)])]),
            "LogSoftmaxBackward0": ([("T", (B * S, V), F32), ("T", (B * S, V), F32)],
                                    [Op("aten::_log_softmax_backward_data", [("T", (B * S, V), F32), ("T", (B * S, V), F32), ("S", 1), ("S", "6")],
                                        launches=[K["logsoftmax_bwd"]], mem=B * S * V * 2)]),
            "NllLossBackward0": ([("T", (), F32)],
                                 [Op("aten::nll_loss_backward", [("T", (), F32), ("T", (B * S, V), F32), ("T", (B * S,), I64), ("N",), ("S", 1), ("S", -100), ("T", (), F32)],
                                     children=[Op("aten::zero_", [("T", (B * S, V), F32)], launches=[K["nll_memset"]])],
                                     launches=[K["nll_bwd"]], mem=B * S * V * 4)]),
        }
        # precompute backward node arg fragments
        self.bwd_frag = {}
        for name, (ins, kids) in self.bwd_specs.items():
            frag, n = fmt_inputs(ins)
            self.bwd_frag[name] = (frag, n, kids)
        acc_in = [("T", (H, H), F32)]
        self.acc_frag = fmt_inputs(acc_in)
        self.acc_kids = [Op("aten::add_", [("T", (H, H), F32), ("T", (H, H), F32), ("S", 1)], launches=[K["add_f32"]])]

        # optimizer: one foreach op group per layer
        L = self.a.layers
        plist = [(3 * H, H), (3 * H,), (H, H), (H,), (H,), (H,), (F, H), (F,), (H, F), (H,), (H,), (H,)]
        self.m_opt = []
        for name, kern, nlists, extra in (
                ("aten::_foreach_lerp_", "foreach_lerp", 2, [("S", "0.1")]),
                ("aten::_foreach_mul_", "foreach_mul", 1, [("S", "0.999")]),
                ("aten::_foreach_addcmul_", "foreach_addcmul", 3, [("S", "0.001")]),
                ("aten::_foreach_sqrt", "foreach_sqrt", 1, []),
                ("aten::_foreach_div_", "foreach_mul", 1, [("S", "0.9995")]),
                ("aten::_foreach_add_", "foreach_mul", 1, [("S", "1e-08")]),
                ("aten::_foreach_addcdiv_", "foreach_addcdiv", 3, [("SL", (-0.001,) * 4)])):
            ins = [("TL", plist, F32)] * nlists + extra
            self.m_opt.append(Op(name, ins, launches=[K[kern]], mem=0))

    # ---------------------------------------------------------------- emit
    def X(self, buf, cat, name, pid, tid, ts, dur, args, nargs):
        buf.append(self.T_X % (cat, name, pid, tid, ts // 1000, ts % 1000, dur // 1000, dur % 1000, args))
        self.n_events += 1
        self.n_args += nargs
        if buf is self.gpu:
            self.gpu_args += nargs

    def flow(self, buf, ph, fid, pid, tid, ts, cat):
        tpl = self.T_S if ph == "s" else self.T_F
        buf.append(tpl % (fid, pid, tid, ts // 1000, ts % 1000, cat, cat))
        self.n_events += 1

    def mem_event(self, buf, tid, ts, nbytes, addr):
        self.alloc_total += nbytes
        if self.alloc_total > self.reserved - (256 << 20):
            self.reserved += 2 << 30
        args = ('"Total Reserved": %d, "Total Allocated": %d, "Bytes": %d, "Addr": %d, '
                '"Device Id": %d, "Device Type": 1, "Ev Idx": %d') % (
                    self.reserved, self.alloc_total, nbytes, addr, self.dev, self.evidx)
        self.evidx += 1
        buf.append(self.T_MEM % (self.pid_s, tid, ts // 1000, ts % 1000, args))
        self.n_events += 1
        self.n_args += 7

    def alloc(self, buf, tid, ts, nbytes):
        nbytes = (nbytes + 511) // 512 * 512
        addr = self.addr_next
        self.addr_next += nbytes
        if self.addr_next > 0x7f3f00000000:
            self.addr_next = 0x7f3a00000000
        self.mem_event(buf, tid, ts, nbytes, addr)
        return (addr, nbytes)

    def launch(self, buf, kern, t, tid_s, ext):
        rng = self.rng
        rt_start = t + rng.randint(1500, 6000)
        corr = self.corr
        self.corr += rng.choice((1, 1, 1, 2, 3, 5))
        rt_dur = rng.randint(kern.rt_dur[0], kern.rt_dur[1])
        stream = kern.stream
        free = self.stream_free.get(stream, 0)
        k_start = rt_start + rng.randint(4000, 12000)
        if k_start < free:
            k_start = free + rng.randint(900, 2500)
        k_dur = rng.randint(kern.dur[0], kern.dur[1])
        if self.a.ranks and stream == self.a.nccl_stream:
            # One collective of the job: this rank starts when it arrives; every rank ends together.
            arrivals = self.arrivals()
            k_dur += max(arrivals) - arrivals[self.rank]
            k_start += arrivals[self.rank]
        self.stream_free[stream] = k_start + k_dur
        if stream == 7:
            if self.step_gpu_first is None:
                self.step_gpu_first = k_start
            self.step_gpu_last = k_start + k_dur
        if not self.a.cpu_only:
            self.streams_used.add(stream)
        ks = self.KSEP
        if kern.cat == "kernel":
            args = ('"External id": %d,%s"queued": 0, "device": %d, "context": 1,%s"stream": %d, '
                    '"correlation": %d,%s%s') % (ext, ks, self.dev, ks, stream, corr, ks, kern.tail)
            nargs = 6 + kern.ntail
        else:
            args = ('"External id": %d,%s"device": %d, "context": 1,%s"stream": %d, '
                    '"correlation": %d,%s%s') % (ext, ks, self.dev, ks, stream, corr, ks, kern.tail)
            nargs = 5 + kern.ntail
        g = self.gpu
        self.X(g, kern.cat, kern.name, self.dev_s, stream, k_start, k_dur, args, nargs)
        self.flow(g, "f", corr, self.dev_s, stream, k_start, "ac2g")
        self.X(g, "cuda_runtime", kern.rt_name, self.pid_s, tid_s, rt_start, rt_dur,
               '"External id": %d,%s"cbid": %d, "correlation": %d' % (ext, ks, kern.cbid, corr), 3)
        self.flow(g, "s", corr, self.pid_s, tid_s, rt_start, "ac2g")
        return rt_start + rt_dur

    def arrivals(self):
        """--ranks: when each rank of the job reaches the current collective (self.comm_seq), in ns
        after the earliest possible start; the same list on every rank."""
        a = self.a
        r = random.Random(a.seed * 1000003 + self.comm_seq)
        out = [r.randint(0, int(a.skew_us * 1000)) for _ in range(a.ranks)]
        out[a.slow_rank] += int(a.slow_us * 1000)
        return out

    def runtime_only(self, name, cbid, t, dur, tid_s, ext):
        """Runtime call without GPU activity: Kineto puts an f on the call itself."""
        corr = self.corr
        self.corr += 1
        g = self.gpu
        self.X(g, "cuda_runtime", name, self.pid_s, tid_s, t, dur,
               '"External id": %d,%s"cbid": %d, "correlation": %d' % (ext, self.KSEP, cbid, corr), 3)
        self.flow(g, "f", corr, self.pid_s, tid_s, t, "ac2g")
        return t + dur

    def op(self, buf, node, t, tid_s, fwd, bwd_stack=None, layer=-1):
        rng = self.rng
        t0 = t + rng.randint(800, 4000)
        ext = self.ext
        self.ext += 1
        rfid = self.rfid
        self.rfid += 1
        seqpart = ""
        nargs = 3 + node.nfrag + node.nextra
        if fwd and node.bwd is not None:
            seq = self.seq
            self.seq += 1
            seqpart = '"Sequence number": %d, "Fwd thread id": 0, ' % seq
            nargs += 2
            fid = self.fwdbwd
            self.fwdbwd += 1
            self.flow(buf, "s", fid, self.pid_s, tid_s, t0, "fwdbwd")
            bwd_stack.append((node.bwd, seq, fid, layer, node.mem))
        elif fwd and node.seqnum:
            seqpart = '"Sequence number": %d, "Fwd thread id": 0, ' % self.seq
            nargs += 2
        slot = len(buf)
        buf.append(None)
        evidx = self.evidx
        self.evidx += 1
        cur = t0 + rng.randint(1500, 6000)
        if node.mem and fwd:
            a = self.alloc(buf, tid_s, cur, node.mem)
            self.live.append(a)
            cur += rng.randint(300, 1200)
        for c in node.children:
            cur = self.op(buf, c, cur, tid_s, fwd, bwd_stack, layer)
        for k in node.launches:
            cur = self.launch(buf, k, cur, tid_s, ext)
        if node.mem and not fwd:
            a = self.alloc(buf, tid_s, cur, node.mem)
            self.grad_live.append(a)
        end = cur + rng.randint(800, 5000)
        extra = (", ".join(node.extra) + ", ") if node.extra else ""
        args = '"External id": %d,"Record function id": %d, %s%s%s"Ev Idx": %d' % (
            ext, rfid, seqpart, node.frag, extra, evidx)
        buf[slot] = self.T_X % (node.cat, node.name, self.pid_s, tid_s, t0 // 1000, t0 % 1000,
                                (end - t0) // 1000, (end - t0) % 1000, args)
        self.n_events += 1
        self.n_args += nargs
        return end

    def span(self, buf, cat, name, t, tid_s, body, nargs_extra=""):
        """user_annotation around body(t) -> end."""
        t0 = t + self.rng.randint(500, 2000)
        ext = self.ext
        self.ext += 1
        rfid = self.rfid
        self.rfid += 1
        slot = len(buf)
        buf.append(None)
        evidx = self.evidx
        self.evidx += 1
        end = body(t0 + self.rng.randint(1000, 3000)) + self.rng.randint(1000, 3000)
        args = '"External id": %d,"Record function id": %d, "Ev Idx": %d' % (ext, rfid, evidx)
        buf[slot] = self.T_X % (cat, name, self.pid_s, tid_s, t0 // 1000, t0 % 1000,
                                (end - t0) // 1000, (end - t0) % 1000, args)
        self.n_events += 1
        self.n_args += 3
        return end

    def py(self, buf, name, t, body, module=None):
        """python_function frame on the main thread around body(t) -> end."""
        t0 = t + self.rng.randint(200, 1500)
        pid_ = self.pyid
        self.pyid += 1
        parent = self.pystack[-1]
        slot = len(buf)
        buf.append(None)
        ev = self.pyev
        self.pyev += 1
        if module is not None:
            mid = self.module_ids.setdefault(module, len(self.module_ids))
        self.pystack.append(pid_)
        end = body(t0 + self.rng.randint(300, 1500)) + self.rng.randint(300, 2000)
        self.pystack.pop()
        if module is not None:
            args = ('"Python parent id": %d, "Python id": %d, "Python module id": %d, "Ev Idx": %d'
                    % (parent, pid_, mid, ev))
            n = 4
            name = "nn.Module: " + module
        else:
            args = '"Python parent id": %d, "Python id": %d, "Ev Idx": %d' % (parent, pid_, ev)
            n = 3
        buf[slot] = self.T_X % ("python_function", name, self.pid_s, self.tmain_s, t0 // 1000,
                                t0 % 1000, (end - t0) // 1000, (end - t0) % 1000, args)
        self.n_events += 1
        self.n_args += n
        return end

    # ------------------------------------------------------------- one step
    def module_call(self, buf, t, module, fwd_frame, body):
        return self.py(buf, "torch/nn/modules/module.py(1747): _call_impl", t,
                       lambda t1: self.py(buf, None, t1,
                                          lambda t2: self.py(buf, fwd_frame, t2, body),
                                          module=module))

    def step(self, n):
        a = self.a
        buf = []           # main thread CPU events
        bbuf = []          # autograd thread CPU events
        self.gpu = []      # runtime + GPU activity, written after the CPU buffer (like Kineto)
        self.gpu_args = 0
        self.live = []
        self.grad_live = []
        self.step_gpu_first = None
        self.step_gpu_last = None
        self.pystack = [2]
        bwd_stack = []
        m = self.tmain_s
        L = a.layers

        def fwd_op(node, layer=-1):
            return lambda t: self.op(buf, node, t, m, True, bwd_stack, layer)

        def seq_ops(nodes, layer):
            def body(t):
                for nd in nodes:
                    t = self.op(buf, nd, t, m, True, bwd_stack, layer)
                return t
            return body

        def layer_body(i):
            def body(t):
                t = self.module_call(buf, t, "LayerNorm_%d" % (2 * i), "torch/nn/modules/normalization.py(217): forward", fwd_op(self.m_ln1, i))
                t = self.module_call(buf, t, "Linear_%d" % (4 * i), "torch/nn/modules/linear.py(125): forward", fwd_op(self.m_qkv, i))
                t = seq_ops(self.m_split, i)(t)
                t = self.py(buf, "<built-in function scaled_dot_product_attention>", t, fwd_op(self.m_attn, i))
                t = seq_ops(self.m_merge, i)(t)
                t = self.module_call(buf, t, "Linear_%d" % (4 * i + 1), "torch/nn/modules/linear.py(125): forward", fwd_op(self.m_o, i))
                t = self.module_call(buf, t, "Dropout_%d" % (2 * i), "torch/nn/modules/dropout.py(70): forward", fwd_op(self.m_drop, i))
                t = self.op(buf, self.m_add, t, m, True, bwd_stack, i)
                t = self.module_call(buf, t, "LayerNorm_%d" % (2 * i + 1), "torch/nn/modules/normalization.py(217): forward", fwd_op(self.m_ln2, i))
                t = self.module_call(buf, t, "Linear_%d" % (4 * i + 2), "torch/nn/modules/linear.py(125): forward", fwd_op(self.m_fc1, i))
                t = self.module_call(buf, t, "GELU_%d" % i, "torch/nn/modules/activation.py(734): forward", fwd_op(self.m_gelu, i))
                t = self.module_call(buf, t, "Linear_%d" % (4 * i + 3), "torch/nn/modules/linear.py(125): forward", fwd_op(self.m_fc2, i))
                t = self.module_call(buf, t, "Dropout_%d" % (2 * i + 1), "torch/nn/modules/dropout.py(70): forward", fwd_op(self.m_drop, i))
                t = self.op(buf, self.m_add, t, m, True, bwd_stack, i)
                return t
            return body

        def forward(t):
            t = self.module_call(buf, t, "Embedding_0", "torch/nn/modules/sparse.py(190): forward", fwd_op(self.m_emb, L))
            for i in range(L):
                t = self.module_call(buf, t, "TransformerBlock_%d" % i, "model.py(142): forward", layer_body(i))
            t = self.module_call(buf, t, "LayerNorm_%d" % (2 * L), "torch/nn/modules/normalization.py(217): forward", fwd_op(self.m_lnf, -1))
            t = self.module_call(buf, t, "Linear_%d" % (4 * L), "torch/nn/modules/linear.py(125): forward", fwd_op(self.m_head, -1))
            return t

        def data(t):
            t = self.py(buf, "<built-in method to of Tensor object>", t, fwd_op(self.m_to))
            t = self.py(buf, "<built-in method to of Tensor object>", t, fwd_op(self.m_to))
            return t

        def loss(t):
            return self.py(buf, "torch/nn/functional.py(3479): cross_entropy", t, fwd_op(self.m_loss, -1))

        def backward(t):
            # the main thread blocks in run_backward while the autograd thread works
            return self.backward(bbuf, t, bwd_stack)

        def optimizer(t):
            def body(t1):
                def inner(t2):
                    for i in range(L):
                        for nd in self.m_opt:
                            t2 = self.op(buf, nd, t2, m, False)
                    return t2
                return self.py(buf, "torch/optim/optimizer.py(487): wrapper", t1,
                               lambda t2: self.py(buf, "torch/optim/adamw.py(209): step", t2,
                                                  lambda t3: self.py(buf, "torch/optim/adamw.py(556): _multi_tensor_adamw", t3, inner)))
            return self.span(buf, "user_annotation", "Optimizer.step#AdamW.step", t, m, body)

        def sync(t):
            t = self.py(buf, "<method 'item' of 'torch._C.TensorBase' objects>", t, fwd_op(self.m_item))
            # loss.item(): cudaStreamSynchronize blocks until the GPU is done
            ext = self.ext - 1
            done = max(self.stream_free.values()) if self.stream_free else t
            dur = max(done - t, 0) + self.rng.randint(2000, 6000)
            t2 = self.runtime_only("cudaStreamSynchronize", 131, t + 1500, dur, m, ext)
            if self.rng.random() < 0.5:
                self.sync_row = True
                self.X(self.gpu, "cuda_sync", "Stream Sync", self.dev_s, -1, done, 0,
                       '"External id": %d, "cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": %d, "device": %d, "context": 1'
                       % (ext, self.corr - 1, self.dev), 6)
            return t2

        def train_step(t):
            t = self.py(buf, "train.py(61): get_batch", t, data)
            t = self.span(buf, "user_annotation", "Optimizer.zero_grad#AdamW.zero_grad", t, m, lambda t1: t1 + 20000)
            t = self.py(buf, "torch/nn/modules/module.py(1747): _call_impl", t,
                        lambda t1: self.py(buf, None, t1,
                                           lambda t2: self.py(buf, "torch/nn/parallel/distributed.py(1643): forward", t2, forward),
                                           module="DistributedDataParallel_0"))
            t = self.py(buf, "train.py(98): compute_loss", t, loss)
            t = self.py(buf, "torch/_tensor.py(626): backward", t,
                        lambda t1: self.py(buf, "torch/autograd/__init__.py(347): backward", t1,
                                           lambda t2: self.py(buf, "<built-in method run_backward of torch._C._EngineBase object>", t2, backward)))
            t = optimizer(t)
            t = sync(t)
            return t

        t0 = self.t
        end = self.span(buf, "user_annotation", "ProfilerStep#%d" % n, t0, m,
                        lambda t: self.py(buf, "train.py(120): train_step", t, train_step))
        # free what is left (activations are freed in backward; grads here)
        t = end
        for addr, nb in self.grad_live:
            t += self.rng.randint(200, 900)
            self.mem_event(buf, m, t, -nb, addr)
        for addr, nb in self.live:
            t += self.rng.randint(200, 900)
            self.mem_event(buf, m, t, -nb, addr)
        # GPU-side projection of the step annotation (1 ns early, 2 ns longer)
        if self.step_gpu_first is not None:
            g0 = self.step_gpu_first - 1
            self.X(self.gpu, "gpu_user_annotation", "ProfilerStep#%d" % n, self.dev_s, 7, g0,
                   self.step_gpu_last - g0 + 1, '"External id": %d' % (self.ext - 1), 1)
        self.t = max(t, self.stream_free.get(7, t)) + self.rng.randint(150000, 400000)
        if self.a.cpu_only:
            self.n_events -= len(self.gpu)
            self.n_args -= self.gpu_args
            return buf + bbuf
        return buf + bbuf + self.gpu

    def backward(self, bbuf, t, bwd_stack):
        rng = self.rng
        b = self.tbwd_s
        t = t + rng.randint(8000, 20000)
        L = self.a.layers
        cur_layer = None
        bucket = 0
        while bwd_stack:
            bname, seq, fid, layer, mem = bwd_stack.pop()
            if layer != cur_layer:
                if cur_layer is not None and cur_layer >= 0 and cur_layer < L and cur_layer % self.a.bucket_layers == 0:
                    t = self.allreduce(bbuf, t, bucket)
                    bucket += 1
                cur_layer = layer
            frag, nfrag, kids = self.bwd_frag[bname]
            # evaluate_function node
            t0 = t + rng.randint(3000, 12000)
            ext = self.ext
            self.ext += 1
            rfid = self.rfid
            self.rfid += 1
            slot = len(bbuf)
            bbuf.append(None)
            ev0 = self.evidx
            self.evidx += 1
            t1 = t0 + rng.randint(2000, 7000)
            ext1 = self.ext
            self.ext += 1
            rfid1 = self.rfid
            self.rfid += 1
            slot1 = len(bbuf)
            bbuf.append(None)
            ev1 = self.evidx
            self.evidx += 1
            self.flow(bbuf, "f", fid, self.pid_s, b, t1, "fwdbwd")
            cur = t1 + rng.randint(2000, 6000)
            for c in kids:
                cur = self.op(bbuf, c, cur, b, False)
            # free the saved activation and the previous gradient
            if mem and self.live:
                addr, nb = self.live.pop()
                cur += rng.randint(500, 2000)
                self.mem_event(bbuf, b, cur, -nb, addr)
            if len(self.grad_live) > 2:
                addr, nb = self.grad_live.pop(0)
                cur += rng.randint(300, 1200)
                self.mem_event(bbuf, b, cur, -nb, addr)
            e1 = cur + rng.randint(1000, 4000)
            e0 = e1 + rng.randint(2000, 6000)
            common = '"Sequence number": %d, "Fwd thread id": 1, %s' % (seq, frag)
            bbuf[slot] = self.T_X % ("cpu_op", "autograd::engine::evaluate_function: " + bname, self.pid_s, b,
                                     t0 // 1000, t0 % 1000, (e0 - t0) // 1000, (e0 - t0) % 1000,
                                     '"External id": %d,"Record function id": %d, %s"Ev Idx": %d' % (ext, rfid, common, ev0))
            bbuf[slot1] = self.T_X % ("cpu_op", bname, self.pid_s, b,
                                      t1 // 1000, t1 % 1000, (e1 - t1) // 1000, (e1 - t1) % 1000,
                                      '"External id": %d,"Record function id": %d, %s"Ev Idx": %d' % (ext1, rfid1, common, ev1))
            self.n_events += 2
            self.n_args += 2 * (5 + nfrag)
            t = e0
            if bname in ("TBackward0", "NativeLayerNormBackward0", "AddmmBackward0"):
                t = self.accumulate_grad(bbuf, t)
        if cur_layer is not None:
            t = self.allreduce(bbuf, t, bucket)
        return t + rng.randint(5000, 15000)

    def accumulate_grad(self, bbuf, t):
        b = self.tbwd_s
        frag, nfrag = self.acc_frag
        t0 = t + self.rng.randint(2000, 6000)
        slots = []
        for name in ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                     "torch::autograd::AccumulateGrad"):
            slots.append((len(bbuf), name, self.ext, self.rfid, self.evidx, t0))
            bbuf.append(None)
            self.ext += 1
            self.rfid += 1
            self.evidx += 1
            t0 += self.rng.randint(1000, 3000)
        cur = t0
        for c in self.acc_kids:
            cur = self.op(bbuf, c, cur, b, False)
        end = cur + self.rng.randint(1000, 3000)
        for slot, name, ext, rfid, ev, ts in reversed(slots):
            end += self.rng.randint(500, 1500)
            bbuf[slot] = self.T_X % ("cpu_op", name, self.pid_s, b, ts // 1000, ts % 1000,
                                     (end - ts) // 1000, (end - ts) % 1000,
                                     '"External id": %d,"Record function id": %d, %s"Ev Idx": %d' % (ext, rfid, frag, ev))
            self.n_events += 1
            self.n_args += 3 + nfrag
        return end

    def allreduce(self, bbuf, t, bucket):
        """DDP bucket all-reduce: nccl:all_reduce annotation + record_param_comms + NCCL kernel."""
        a = self.a
        B, S, H, F, V, NH = self.dims
        nel = 12 * H * H * a.bucket_layers + 13 * H
        W = a.world_size
        ranks = "[" + ", ".join(str(i) for i in range(W)) + "]"
        self.comm_seq += 1
        comm = ('"Collective name": "allreduce", "In msg nelems": %d, "Out msg nelems": %d, '
                '"Group size": %d, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]", '
                '"Process Group Name": "0", "Process Group Description": "default_pg", '
                '"Process Group Ranks": "%s"') % (nel, nel, W, ranks)
        ncomm = 10
        kern_dur = (nel // 90, nel // 70)
        kern = Kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                      kern_dur, grid=(24, 1, 1), block=(544, 1, 1), regs=96, smem=88096, bpsm=0.181818,
                      wpsm=3.090909, occ=0, stream=a.nccl_stream, rt_name="cudaLaunchKernelExC", cbid=430,
                      extra=[comm], nextra=ncomm)
        kern.finalize(self.pretty)
        b = self.tbwd_s

        def body(t1):
            node = Op("record_param_comms", None, launches=[kern],
                      extra=[comm, '"Global rank start": 0, "Global rank stride": 1, "Seq": %d, "Rank": %d'
                             % (self.comm_seq, self.rank)])
            node.nextra = ncomm + 4
            return self.op(bbuf, node, t1, b, False)
        return self.span(bbuf, "user_annotation", "nccl:all_reduce", t, b, body)

    # --------------------------------------------------------------- header
    def header(self):
        a = self.a
        ngpu = self.ngpu
        W = a.world_size
        dist = {"backend": "nccl", "rank": a.rank, "world_size": W, "pg_count": 1,
                "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                               "pg_size": W, "ranks": list(range(W))}],
                "nccl_version": "2.21.5"}
        trace_id = "%032X" % self.rng.getrandbits(128)
        if self.pretty:
            devs = []
            for i in range(ngpu):
                devs.append(
                    '    {\n'
                    '      "id": %d, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045477376,\n'
                    '      "computeMajor": 9, "computeMinor": 0,\n'
                    '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
                    '      "regsPerBlock": 65536, "warpSize": 32,\n'
                    '      "sharedMemPerBlock": 49152, "numSms": 132\n'
                    '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, '
                    '"sharedMemPerMultiprocessor": 233472\n'
                    '    }' % i)
            h = ('\n{\n  "schemaVersion": 1,\n  "deviceProperties": [\n%s\n  ],\n'
                 '  "distributedInfo": %s,\n'
                 '  "record_shapes": 1,\n  "profile_memory": 1,\n  "with_stack": 1,\n'
                 '  "with_flops": 0,\n  "with_modules": 1,\n'
                 '  "cupti_version": 22,\n  "cuda_runtime_version": 12040,\n  "cuda_driver_version": 12090,\n'
                 '  "trace_id": "%s",\n  "traceEvents": [\n') % (",\n".join(devs), json.dumps(dist), trace_id)
            return h
        devs = [{"id": i, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045477376,
                 "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                 "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
                 "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
                 "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}
                for i in range(ngpu)]
        hd = {"schemaVersion": 1, "deviceProperties": devs, "distributedInfo": dist,
              "record_shapes": 1, "profile_memory": 1, "with_stack": 1, "with_flops": 0,
              "with_modules": 1, "cupti_version": 22, "cuda_runtime_version": 12040,
              "cuda_driver_version": 12090, "trace_id": trace_id}
        return json.dumps(hd)[:-1] + ', "traceEvents": ['

    def trailer(self):
        a = self.a
        t_end = self.t
        t_start = START_REL_NS - 200000
        buf = []
        # root python frames (span the whole run, so written last)
        for pid_, parent, name in ((1, "null", "train.py(301): <module>"), (2, "1", "train.py(262): main")):
            ts = t_start + 50000 + pid_ * 1000
            buf.append(self.T_X % ("python_function", name, self.pid_s, self.tmain_s, ts // 1000, ts % 1000,
                                   (t_end - ts) // 1000, (t_end - ts) % 1000,
                                   '"Python parent id": %s, "Python id": %d, "Ev Idx": %d' % (parent, pid_, self.pyev)))
            self.pyev += 1
            self.n_events += 1
            self.n_args += 3

        def M(name, pid, tid, key, val):
            buf.append(self.T_M % (name, t_start // 1000, t_start % 1000, pid, tid, key, val))
            self.n_events += 1
            self.n_args += 1
        M("process_name", self.pid_s, 0, "name", '"python3"')
        M("process_labels", self.pid_s, 0, "labels", '"CPU"')
        M("process_sort_index", self.pid_s, 0, "sort_index", self.pid_s)
        for d in range(0 if a.cpu_only else self.ngpu):
            M("process_name", d, 0, "name", '"python3"')
            M("process_labels", d, 0, "labels", '"GPU %d"' % d)
            M("process_sort_index", d, 0, "sort_index", 5000000 + d)
        for s in sorted(self.streams_used):
            M("thread_name", self.dev_s, s, "name", '"stream %d "' % s)
            M("thread_sort_index", self.dev_s, s, "sort_index", s)
        if self.sync_row and not a.cpu_only:
            M("thread_name", self.dev_s, -1, "name", '"Device %d"' % self.dev)
            M("thread_sort_index", self.dev_s, -1, "sort_index", -1)
        for _ in range(2):   # Kineto writes duplicates
            M("thread_name", self.pid_s, self.tmain_s, "name", '"thread %s (python3)"' % self.tmain_s)
            M("thread_sort_index", self.pid_s, self.tmain_s, "sort_index", self.tmain_s)
        M("thread_name", self.pid_s, self.tbwd_s, "name", '"thread %s (pt_autograd_0)"' % self.tbwd_s)
        M("thread_sort_index", self.pid_s, self.tbwd_s, "sort_index", self.tbwd_s)
        # profiler span and global instants
        buf.append(self.T_X % ("Trace", "PyTorch Profiler (0)", '"Spans"', '"PyTorch Profiler"',
                               t_start // 1000, t_start % 1000, (t_end - t_start) // 1000,
                               (t_end - t_start) % 1000, '"Op count": 0'))
        self.n_events += 1
        self.n_args += 1
        M("process_sort_index", '"Spans"', 0, "sort_index", 536870912)
        buf.append(self.T_GI % ("Iteration Start: PyTorch Profiler", '"Traces"', '"Trace PyTorch Profiler"',
                                t_start // 1000, t_start % 1000))
        buf.append(self.T_GI % ("Record Window End", '""', '""', (t_end + 1000000) // 1000, (t_end + 1000000) % 1000))
        self.n_events += 2
        ev = self.SEP.join(buf)
        name = "/tmp/tmp%06x/rank%d.%d.pt.trace.json" % (self.rng.getrandbits(24), a.rank, self.pid)
        if self.pretty:
            tail = ('\n  ],\n  "traceName": "%s",\n  "displayTimeUnit": "ms",\n'
                    '  "baseTimeNanoseconds": %d\n}\n') % (name, BASE_TIME_NS)
        else:
            tail = '], "traceName": "%s", "displayTimeUnit": "ms", "baseTimeNanoseconds": %d}' % (name, BASE_TIME_NS)
        return ev + tail


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="output path ('.gz' suffix: gzip; '-': stdout)")
    ap.add_argument("--target-mb", type=float, default=500.0,
                    help="approximate uncompressed size in MB (10^6 bytes); default 500")
    ap.add_argument("--steps", type=int, default=0, help="exact number of steps (overrides --target-mb)")
    ap.add_argument("--compact", action="store_true", help="single-line output (Python re-serialised style)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--gpus", type=int, default=8, help="GPUs in deviceProperties (1-8)")
    ap.add_argument("--world-size", type=int, default=16)
    ap.add_argument("--rank", type=int, default=3)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--seqlen", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=50304)
    ap.add_argument("--bucket-layers", type=int, default=3, help="layers per DDP all-reduce bucket")
    ap.add_argument("--nccl-stream", type=int, default=20)
    ap.add_argument("--gzip-level", type=int, default=6)
    ap.add_argument("--cpu-only", action="store_true",
                    help="host events only, as a CPU-only profile records (no runtime calls, GPU activity, ac2g flows)")
    ap.add_argument("--ranks", type=int, default=0,
                    help="write every rank of one job of this many ranks (world size); the output name "
                         "holds {rank}")
    ap.add_argument("--skew-us", type=float, default=200.0,
                    help="--ranks: arrival at each collective spread uniformly over this many us")
    ap.add_argument("--slow-rank", type=int, default=-1, help="--ranks: the straggler (default: the last rank)")
    ap.add_argument("--slow-us", type=float, default=2000.0,
                    help="--ranks: how much later the slow rank reaches each collective, in us")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args()
    if not 1 <= a.gpus <= 8:
        ap.error("--gpus must be 1..8")
    if a.ranks:
        if "{rank}" not in a.output:
            ap.error("--ranks: the output name must hold {rank}, e.g. -o job/rank{rank}.json.gz")
        if a.slow_rank < 0:
            a.slow_rank = a.ranks - 1
        if a.slow_rank >= a.ranks:
            ap.error("--slow-rank must be < --ranks")
        a.world_size = a.ranks
        pattern = a.output
        for rank in range(a.ranks):
            a.rank = rank
            a.output = pattern.replace("{rank}", str(rank))
            if os.path.dirname(a.output):
                os.makedirs(os.path.dirname(a.output), exist_ok=True)
            # Every rank has the first rank's number of steps (their sizes differ by a few bytes).
            a.steps = write_trace(a)
        return
    if a.rank >= a.world_size:
        ap.error("--rank must be < --world-size")
    write_trace(a)


def write_trace(a):
    """Writes one trace as a says; returns its number of steps."""
    g = Gen(a)
    target = int(a.target_mb * 1e6)
    t_wall = time.time()
    if a.output == "-":
        out = sys.stdout.buffer
    elif a.output.endswith(".gz"):
        out = gzip.open(a.output, "wb", compresslevel=a.gzip_level)
    else:
        out = open(a.output, "wb", buffering=1 << 22)
    written = 0
    h = g.header().encode("ascii")
    out.write(h)
    written += len(h)
    sep = g.SEP
    nstep = 0
    first = True
    est_tail = 6000
    while True:
        evs = g.step(nstep + 1)
        s = sep.join(evs)
        if not first:
            s = sep + s
        first = False
        bs = s.encode("ascii")
        out.write(bs)
        written += len(bs)
        nstep += 1
        if a.steps:
            if nstep >= a.steps:
                break
        elif written + est_tail >= target:
            break
        if not a.quiet and nstep % 50 == 0:
            el = time.time() - t_wall
            sys.stderr.write("gen_trace: %d steps, %.1f MB, %.1f s\n" % (nstep, written / 1e6, el))
    tail = (sep + g.trailer()).encode("ascii")
    out.write(tail)
    written += len(tail)
    if out is not sys.stdout.buffer:
        out.close()
    el = time.time() - t_wall
    sys.stderr.write("gen_trace: %s: bytes=%d events=%d arg_pairs=%d steps=%d "
                     "bytes/event=%.1f args/event=%.2f time=%.1fs (%.1f MB/s)\n"
                     % (a.output, written, g.n_events, g.n_args, nstep,
                        written / max(g.n_events, 1), g.n_args / max(g.n_events, 1), el,
                        written / 1e6 / max(el, 1e-9)))
    return nstep


if __name__ == "__main__":
    main()
