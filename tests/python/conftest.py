"""Fixtures for the tests of the installed tracesql package (run by tests.cmake with the venv's
python; TQ_TRACES names the directory of real traces, TQ_CLI the tracesql program to compare with)."""
import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def traces_dir():
    path = os.environ.get("TQ_TRACES", "")
    if not os.path.isfile(os.path.join(path, "hta_sampled_rank0.json.gz")):
        pytest.fail(f"TQ_TRACES={path!r} does not hold hta_sampled_rank0.json.gz")
    return path


@pytest.fixture(scope="session")
def cli():
    """Runs the tracesql program: cli(args...) -> CompletedProcess (text)."""
    program = os.environ["TQ_CLI"]
    return lambda *args, stdin=None: subprocess.run([program, *args], input=stdin, capture_output=True, text=True)


@pytest.fixture(autouse=True)
def private_dirs(tmp_path, monkeypatch):
    """No test reads or writes the user's cache or query directories."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TRACESQL_BINARY", raising=False)
    monkeypatch.delenv("TRACESQL_QUERIES", raising=False)


@pytest.fixture(scope="session")
def job_db(tmp_path_factory, traces_dir):
    """Two ranks of one job (hta_sampled_rank0/1) imported by the package into one database."""
    import tracesql
    out = tmp_path_factory.mktemp("job") / "job.db"
    paths = [os.path.join(traces_dir, f"hta_sampled_rank{r}.json.gz") for r in (0, 1)]
    return tracesql.load(paths, db=out)


@pytest.fixture
def writable_trace(tmp_path, traces_dir):
    """A copy of a small real trace in a writable directory."""
    dst = tmp_path / "rank0.pt.trace.json.gz"
    shutil.copyfile(os.path.join(traces_dir, "hta_sampled_rank0.json.gz"), dst)
    return dst
