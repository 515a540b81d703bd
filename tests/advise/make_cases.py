#!/usr/bin/env python3
"""Writes the advise test traces: cases/<rule>/trigger*.json (the rule must find exactly
expected.csv) and quiet*.json (a close case the rule must not report).

Every trace is small and written out event by event below, times in microseconds as Kineto writes
them; python3 make_cases.py rewrites the JSON files (expected.csv files are reviewed by hand).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CPU_PID, CPU_TID, STREAM = 100, 1, 7
H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132}


class Trace:
    def __init__(self, device=H100, rank=None):
        self.events = []
        self.corr = 0
        self.device = device
        self.rank = rank

    def x(self, cat, name, ts, dur, pid=CPU_PID, tid=CPU_TID, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.events.append(e)
        return e

    def step(self, n, ts, dur):
        return self.x("user_annotation", f"ProfilerStep#{n}", ts, dur)

    def op(self, name, ts, dur, args=None):
        return self.x("cpu_op", name, ts, dur, args=args)

    def annotation(self, name, ts, dur):
        return self.x("user_annotation", name, ts, dur)

    def runtime(self, name, ts, dur, corr=None):
        return self.x("cuda_runtime", name, ts, dur, args={"correlation": corr} if corr else None)

    def gpu(self, cat, name, ts, dur, corr=None, stream=STREAM, args=None):
        a = {"device": 0, "stream": stream}
        if corr:
            a["correlation"] = corr
        a.update(args or {})
        return self.x(cat, name, ts, dur, pid=0, tid=stream, args=a)

    def launch(self, ts, dur, gpu_ts, gpu_dur, name="void at::native::elementwise_kernel<128, 4>()",
               api="cudaLaunchKernel", cat="kernel", stream=STREAM, args=None):
        """A runtime call [ts, ts+dur] and the GPU op it launches [gpu_ts, gpu_ts+gpu_dur]."""
        self.corr += 1
        self.runtime(api, ts, dur, self.corr)
        return self.gpu(cat, name, gpu_ts, gpu_dur, self.corr, stream, args)

    def memory(self, ts, nbytes, allocated, reserved):
        self.events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                            "pid": CPU_PID, "tid": CPU_TID, "ts": ts,
                            "args": {"Device Type": 1, "Device Id": 0, "Addr": 1000 + ts, "Bytes": nbytes,
                                     "Total Allocated": allocated, "Total Reserved": reserved}})

    def write(self, path):
        doc = {"schemaVersion": 1, "deviceProperties": [self.device] if self.device else []}
        if self.rank is not None:
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": 2}
        doc["traceEvents"] = sorted(self.events, key=lambda e: (e["ts"], -e.get("dur", 0)))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write('{"schemaVersion": 1,\n "deviceProperties": ' + json.dumps(doc["deviceProperties"]) + ",\n")
            if "distributedInfo" in doc:
                f.write(' "distributedInfo": ' + json.dumps(doc["distributedInfo"]) + ",\n")
            f.write(' "traceEvents": [\n')
            f.write(",\n".join("  " + json.dumps(e) for e in doc["traceEvents"]))
            f.write("\n]}\n")


def case(rule, name, trace):
    trace.write(os.path.join(HERE, "cases", rule, name + ".json"))


# host_bound_idle: the second kernel is launched 740 us after the first one ends, inside
# aten::slow_host: a 760 us host-caused gap in a 1000 us step (76 %). Quiet: a 20 us gap (2 % < 5 %).
def host_bound(gap_launch):
    t = Trace()
    t.step(1, 0, 1000)
    t.op("aten::first", 0, 8)
    t.launch(1, 4, 10, 100)
    t.op("aten::slow_host", 9, 891)
    t.launch(gap_launch, 10, gap_launch + 20, 100)
    return t


case("host_bound_idle", "trigger", host_bound(850))
case("host_bound_idle", "quiet", host_bound(110))


# sync_calls: aten::item blocks in cudaStreamSynchronize 110..690 while the GPU idles from 300
# (390 us inside the call; span 10..800). Quiet: the GPU is busy for the whole call.
def sync(first_kernel_dur):
    t = Trace()
    t.step(1, 0, 1000)
    t.op("aten::mm", 0, 10)
    t.launch(1, 4, 10, first_kernel_dur)
    t.op("aten::item", 100, 600)
    t.runtime("cudaStreamSynchronize", 110, 580)
    t.op("aten::add", 700, 20)
    t.launch(705, 5, 715, 85)
    return t


case("sync_calls", "trigger", sync(290))
case("sync_calls", "quiet", sync(695))


# pageable_memcpy: cudaMemcpyAsync 100..400 of a pageable buffer; the GPU idles 100..380 inside it.
# Quiet: the same copy from pinned memory.
def pageable(kind):
    t = Trace()
    t.op("aten::mul", 0, 8)
    t.launch(1, 4, 10, 90)
    t.op("aten::copy_", 99, 302)
    t.launch(100, 300, 380, 15, name=f"Memcpy HtoD ({kind} -> Device)", api="cudaMemcpyAsync",
             cat="gpu_memcpy", args={"bytes": 4000000})
    return t


case("pageable_memcpy", "trigger", pageable("Pageable"))
case("pageable_memcpy", "quiet", pageable("Pinned"))


# exposed_h2d_copy: a 300 us HtoD copy with nothing beside it, then a 300 us kernel (50 % of the
# span). Quiet: the copy runs on stream 8 under a kernel on stream 7.
def h2d(overlap):
    t = Trace()
    t.gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 300, stream=8, args={"bytes": 8000000})
    t.gpu("kernel", "volta_sgemm_128x64_nn", 0 if overlap else 300, 300 if not overlap else 600)
    return t


case("exposed_h2d_copy", "trigger", h2d(False))
case("exposed_h2d_copy", "quiet", h2d(True))


# tiny_kernels: n kernels of 2 us, each launched by a 5 us call inside aten::add, one every 10 us:
# 60 short kernels (>= 50), overhead 60 x 3 us = 180 us, host-caused idle 59 x 8 us = 472 us.
# Quiet: 40 of them (< 50).
def tiny(n):
    t = Trace()
    for i in range(n):
        t.op("aten::add", 10 * i, 6)
        t.launch(10 * i, 5, 10 * i + 6, 2)
    return t


case("tiny_kernels", "trigger", tiny(60))
case("tiny_kernels", "quiet", tiny(40))


# launch_latency: the second kernel is launched at 50..55 onto an empty queue but starts at 400
# (delay 345 us > 100 us) after a 300 us device-caused gap. Quiet: it starts at 140 (delay 85 us).
def latency(start):
    t = Trace()
    t.op("aten::mul", 0, 5)
    t.launch(0, 4, 0.5, 99.5)
    t.op("aten::add", 50, 6)
    t.launch(50, 5, start, 100)
    return t


case("launch_latency", "trigger", latency(400))
case("launch_latency", "quiet", latency(140))


# exposed_comm: an all-reduce 100..400 on stream 20 beside a GEMM 0..200: 200 us of the 300 us
# exposed (50 % of the 400 us span). Quiet: the GEMM runs 0..420 and hides it.
def comm(gemm_dur):
    t = Trace(rank=0)
    t.gpu("kernel", "volta_sgemm_128x64_nn", 0, gemm_dur)
    t.gpu("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100, 300, stream=20,
          args={"Collective name": "allreduce", "Process Group Name": "0", "Group size": 2,
                "dtype": "Float", "In msg nelems": 1000000, "Out msg nelems": 1000000})
    return t


case("exposed_comm", "trigger", comm(200))
case("exposed_comm", "quiet", comm(420))


# stragglers: two ranks, three all-reduces each; rank 1 starts each one `lag` us after rank 0.
# Trigger: 200 us each (600 us in all >= 100 us). Quiet: 10 us each (30 us).
def straggler(rank, lag):
    t = Trace(rank=rank)
    for i in range(3):
        ts = 1000 * i + (lag if rank == 1 else 0)
        t.gpu("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", ts, 100, stream=20,
              args={"Collective name": "allreduce", "Process Group Name": "0", "Group size": 2,
                    "Process Group Ranks": "[0, 1]", "dtype": "Float", "In msg nelems": 1000,
                    "Out msg nelems": 1000})
    return t


case("stragglers", "trigger1", straggler(0, 200))
case("stragglers", "trigger2", straggler(1, 200))
case("stragglers", "quiet1", straggler(0, 10))
case("stragglers", "quiet2", straggler(1, 10))


# step_jitter: five 100 us steps, each launching a 50 us kernel 10 us in, except step 5 which lasts
# `last` us and launches its kernel at its end. Trigger: 300 us (median 100 us, excess 200 us).
# Quiet: 140 us (< 1.5 x 100).
def jitter(last):
    t = Trace()
    ts = 0
    for n in range(1, 6):
        dur = last if n == 5 else 100
        t.step(n, ts, dur)
        at = ts + dur - 40 if n == 5 else ts + 10
        t.op("aten::relu", at, 6)
        t.launch(at, 5, at + 6, 30)
        ts += dur
    return t


case("step_jitter", "trigger", jitter(300))
case("step_jitter", "quiet", jitter(140))


# data_loading: the data loader runs 100..600 while the GPU idles 100..650 (500 us inside it, of a
# 1000 us span). Quiet: a kernel runs 50..640 meanwhile.
def loader(first_kernel_end):
    t = Trace()
    t.step(1, 0, 1000)
    t.op("aten::mul", 0, 5)
    t.launch(0, 4, 0, first_kernel_end)
    t.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 500)
    t.op("aten::add", 605, 15)
    t.launch(610, 5, 650, 350)
    return t


case("data_loading", "trigger", loader(100))
case("data_loading", "quiet", loader(640))


# gemm_below_peak: a float32 64x64x64 mm that takes 1000 us on an H100 (far below 30 % of the TF32
# peak). Quiet: a bf16 8192^3 mm in 2000 us (550 TFLOP/s, 55.6 % of the bf16 peak).
def gemm(n, dtype, gpu_dur):
    t = Trace()
    t.op("aten::mm", 0, 50, args={"Input Dims": [[n, n], [n, n]], "Input type": [dtype, dtype]})
    t.launch(1, 4, 10, gpu_dur, name="sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32")
    return t


case("gemm_below_peak", "trigger", gemm(64, "float", 1000))
case("gemm_below_peak", "quiet", gemm(8192, "c10::BFloat16", 2000))


# allocator_churn: three steps; cudaMalloc (400 us) in step 2 and cudaFree (300 us) in step 3.
# Quiet: the cudaMalloc in step 1 only (warm-up).
def churn(steady):
    t = Trace()
    for n in range(1, 4):
        t.step(n, 1000 * (n - 1), 1000)
        t.op("aten::empty", 1000 * (n - 1) + 10, 450)
        t.launch(1000 * (n - 1) + 500, 5, 1000 * (n - 1) + 510, 100)
    t.runtime("cudaMalloc", 1020 if steady else 20, 400)
    if steady:
        t.runtime("cudaFree", 2020, 300)
    return t


case("allocator_churn", "trigger", churn(True))
case("allocator_churn", "quiet", churn(False))


# memory_near_limit: a 1 GB device whose reserved memory peaks at 0.96 GB (96 % >= 90 %). Quiet: 0.5 GB.
def memory(reserved):
    t = Trace(device=dict(H100, totalGlobalMem=1000000000))
    t.op("aten::empty", 0, 100)
    t.memory(10, 400000000, 400000000, reserved // 2)
    t.memory(20, 500000000, 900000000, reserved)
    t.memory(90, -500000000, 400000000, reserved)
    t.launch(30, 5, 40, 50)
    return t


case("memory_near_limit", "trigger", memory(960000000))
case("memory_near_limit", "quiet", memory(500000000))


# recompute: a reentrant checkpoint. Forward (thread 1): CheckpointFunction (seq 1) launches a
# 200 us gemm; backward (autograd thread 2): CheckpointFunctionBackward runs Block_0's aten::linear
# again (seq 2, Fwd thread id 0), launching a `recomp` us gemm, then its own backward launches a
# 300 us gemm. Trigger: 150 us recomputed of a 10..760 us GPU span (20 %). Quiet: 30 us of 10..640
# (4.8 % < 5 %).
def recompute(recomp):
    t = Trace()
    t.step(1, 0, 1000)
    t.op("CheckpointFunction", 0, 20, args={"Sequence number": 1, "Fwd thread id": 0})
    t.launch(2, 4, 10, 200, name="gemm_fwd")
    bwd = 2
    t.x("cpu_op", "autograd::engine::evaluate_function: CheckpointFunctionBackward", 300, 100, tid=bwd,
        args={"Sequence number": 1, "Fwd thread id": 1})
    t.x("cpu_op", "CheckpointFunctionBackward", 301, 98, tid=bwd, args={"Sequence number": 1, "Fwd thread id": 1})
    t.x("python_function", "nn.Module: Block_0", 302, 40, tid=bwd)
    t.x("cpu_op", "aten::linear", 303, 30, tid=bwd, args={"Sequence number": 2, "Fwd thread id": 0})
    t.corr += 1
    t.x("cuda_runtime", "cudaLaunchKernel", 305, 4, tid=bwd, args={"correlation": t.corr})
    t.gpu("kernel", "gemm_recompute", 310, recomp, t.corr)
    t.x("cpu_op", "aten::mm", 350, 40, tid=bwd)
    t.corr += 1
    t.x("cuda_runtime", "cudaLaunchKernel", 355, 4, tid=bwd, args={"correlation": t.corr})
    t.gpu("kernel", "gemm_bwd", 310 + recomp, 300, t.corr)
    return t


case("recompute", "trigger", recompute(150))
case("recompute", "quiet", recompute(30))
