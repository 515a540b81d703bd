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
