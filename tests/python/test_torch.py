"""tracesql.torch.on_trace_ready with torch.profiler: a few steps of a small model on the CPU, two
profiling cycles, each written and imported into the rank's database."""
import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (Debian: apt-get install python3-torch)")

import tracesql  # noqa: E402
import tracesql.torch  # noqa: E402


def profile(handler, steps=10):
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule,
                                on_trace_ready=handler) as prof:
        for _ in range(steps):
            model(torch.randn(32, 64)).sum().backward()
            opt.step()
            opt.zero_grad()
            prof.step()


def test_handler_writes_and_imports_each_cycle(tmp_path):
    handler = tracesql.torch.on_trace_ready(tmp_path / "prof")
    profile(handler)
    assert [os.path.basename(t) for t in handler.traces] == ["rank0.step4.pt.trace.json.gz",
                                                             "rank0.step8.pt.trace.json.gz"]
    assert handler.db_path == str(tmp_path / "prof" / "rank0.db")
    db = handler.database()
    traces = db.sql("SELECT id, path FROM traces ORDER BY id")
    assert traces["path"].tolist() == handler.traces
    # Each cycle holds steps of its own (1-3, then 5-7: wait, warmup, active x2; which of them torch
    # writes depends on its version), and the model's ops.
    steps = db.sql("SELECT trace_id, CAST(substr(name, 14) AS INTEGER) AS step FROM events "
                   "WHERE name LIKE 'ProfilerStep#%'")
    cycle1 = set(steps[steps["trace_id"] == 1]["step"])
    cycle2 = set(steps[steps["trace_id"] == 2]["step"])
    assert cycle1 and cycle1 <= {1, 2, 3} and cycle2 and cycle2 <= {5, 6, 7}, (cycle1, cycle2)
    ops = db.sql("SELECT count(*) AS n FROM events WHERE name IN ('aten::linear', 'aten::addmm') GROUP BY trace_id")
    assert len(ops) == 2 and (ops["n"] >= 4).all()


def test_handler_database_path_with_rank_placeholder(tmp_path):
    handler = tracesql.torch.on_trace_ready(str(tmp_path / "job.{rank}.db"), use_gzip=False)
    profile(handler, steps=5)
    assert handler.db_path == str(tmp_path / "job.0.db")
    assert handler.traces == [str(tmp_path / "rank0.step4.pt.trace.json")]
    assert tracesql.load(handler.db_path).sql("SELECT count(*) AS n FROM traces")["n"][0] == 1


def test_no_database_before_the_first_cycle(tmp_path):
    with pytest.raises(tracesql.TracesqlError, match="no trace yet"):
        tracesql.torch.on_trace_ready(tmp_path).database()


RANK_SCRIPT = """
import sys
import torch
import torch.distributed as dist
import tracesql.torch
sys.path.insert(0, {here!r})
from test_torch import profile

store, rank, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=2)
for target in (out + "/dir", out + "/job.db"):
    handler = tracesql.torch.on_trace_ready(target, use_gzip=False)
    profile(handler, steps=5)
    print(handler.db_path)
dist.barrier()
dist.destroy_process_group()
"""


def test_each_rank_of_a_distributed_job_gets_its_own_database(tmp_path):
    # Two processes of one gloo job (a file store: no network): the handler takes the rank from
    # torch.distributed, so each writes rank<R>.db in a directory, and job.rank<R>.db for a .db path.
    import subprocess
    import sys
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT.format(here=os.path.dirname(os.path.abspath(__file__))))
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "store"), str(r), str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in (0, 1)]
    outputs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    for r, (out, _) in enumerate(outputs):
        assert out.split() == [str(tmp_path / "dir" / f"rank{r}.db"), str(tmp_path / f"job.rank{r}.db")]
        for db_path in out.split():
            traces = tracesql.load(db_path).sql("SELECT path FROM traces")["path"].tolist()
            assert [os.path.basename(t) for t in traces] == [f"rank{r}.step4.pt.trace.json"], traces
