#!/usr/bin/env python3
"""Record fresh PyTorch profiler traces on a CUDA machine, for tracesql's test data.

Usage: python3 scripts/record_traces.py OUTDIR

Writes gzip'd Chrome traces (Kineto JSON) to OUTDIR, one per scenario, each small enough to keep in
the repository (tests/data/traces/, see its README.md):

  h200_train_ddp.json.gz    a small transformer trained for 4 steps under DDP (NCCL, world size 1):
                            record_shapes, with_stack, profile_memory, with_modules, with_flops,
                            ProfilerStep#N via a schedule; pinned and pageable host-to-device copies,
                            a loss.item() sync per step, a side stream, bf16 autocast, SDPA, conv,
                            AdamW (foreach), DDP's bucketed all-reduce overlapping backward.
  h200_cuda_graph.json.gz   an MLP forward+backward captured once in a torch.cuda.CUDAGraph and
                            replayed 3 times (one launch -> many kernels), plus an eager step.
  h200_compile.json.gz      a torch.compile'd function (Triton kernels), compiled before profiling.

Each scenario runs on its own; one failing does not stop the others. A summary (torch and CUDA
versions, device name, sizes) goes to OUTDIR/record_traces.json.
"""
import gzip, json, os, shutil, sys, time, traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
DEV = torch.device("cuda")
summary = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "traces": {}}


def save(prof, name, t0):
    raw = os.path.join(OUT, name + ".json")
    prof.export_chrome_trace(raw)
    gz = raw + ".gz"
    with open(raw, "rb") as f, gzip.open(gz, "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    info = {"json_bytes": os.path.getsize(raw), "gz_bytes": os.path.getsize(gz),
            "seconds": round(time.time() - t0, 1)}
    with open(raw) as f:
        ev = json.load(f).get("traceEvents", [])
    cats = {}
    for e in ev:
        cats[e.get("cat", "")] = cats.get(e.get("cat", ""), 0) + 1
    info["events"] = len(ev)
    info["cats"] = cats
    os.remove(raw)
    summary["traces"][name] = info
    print(name, json.dumps(info), flush=True)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TinyModel(nn.Module):
    def __init__(self, vocab=512, d=256, heads=4, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.conv = nn.Conv1d(d, d, kernel_size=3, padding=1)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, tok):
        x = self.emb(tok)
        x = x + self.conv(x.transpose(1, 2)).transpose(1, 2)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def train_ddp():
    t0 = time.time()
    import torch.distributed as dist
    ddp = False
    try:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29511")
        dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
        ddp = True
    except Exception as e:  # keep going without DDP
        print("no NCCL process group:", e, flush=True)
    torch.manual_seed(0)
    model = TinyModel().to(DEV)
    if ddp:
        model = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    side = torch.cuda.Stream()
    host_tok = torch.randint(0, 512, (8, 128)).pin_memory()
    host_lbl = torch.randint(0, 512, (8, 128))  # pageable on purpose

    def step():
        with record_function("data_copy"):
            tok = host_tok.to(DEV, non_blocking=True)
            lbl = host_lbl.to(DEV)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tok)
            loss = F.cross_entropy(logits.float().view(-1, 512), lbl.view(-1))
        loss.backward()
        with torch.cuda.stream(side):  # a small side-stream job
            side.wait_stream(torch.cuda.current_stream())
            stats = torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]).sum()
        torch.cuda.current_stream().wait_stream(side)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.item() + stats.item()  # host syncs

    for _ in range(3):  # warm-up outside the profiler (cuBLAS/cuDNN/NCCL init)
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 record_shapes=True, with_stack=True, profile_memory=True,
                 with_modules=True, with_flops=True) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()
    save(prof, "h200_train_ddp", t0)
    if ddp:
        dist.destroy_process_group()


def cuda_graph():
    t0 = time.time()
    torch.manual_seed(1)
    mlp = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 1024), nn.ReLU(),
                        nn.Linear(1024, 10)).to(DEV)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.01)
    x = torch.randn(64, 1024, device=DEV)
    y = torch.randint(0, 10, (64,), device=DEV)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up on a side stream, as the CUDA graphs docs say
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(mlp(x), y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = F.cross_entropy(mlp(x), y)
        static_loss.backward()
        opt.step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=True, with_stack=False) as prof:
        for i in range(3):
            with record_function(f"ProfilerStep#{i}"):
                x.copy_(torch.randn(64, 1024, device=DEV))
                g.replay()
        torch.cuda.synchronize()
        with record_function("eager_step"):
            F.cross_entropy(mlp(x), y).backward()
        torch.cuda.synchronize()
    save(prof, "h200_cuda_graph", t0)


def compiled():
    t0 = time.time()

    def f(a, b):
        return torch.nn.functional.gelu(a @ b + 1.0).softmax(-1) * 2.0

    cf = torch.compile(f)
    a = torch.randn(512, 512, device=DEV)
    b = torch.randn(512, 512, device=DEV)
    for _ in range(2):
        cf(a, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for i in range(3):
            with record_function(f"ProfilerStep#{i}"):
                cf(a, b)
        torch.cuda.synchronize()
    save(prof, "h200_compile", t0)


for fn in (train_ddp, cuda_graph, compiled):
    try:
        fn()
    except Exception:
        traceback.print_exc()
        summary["traces"][fn.__name__] = {"error": traceback.format_exc()[-2000:]}
with open(os.path.join(OUT, "record_traces.json"), "w") as f:
    json.dump(summary, f, indent=1)
print(json.dumps({k: v for k, v in summary.items() if k != "traces"}), flush=True)
