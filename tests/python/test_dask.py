"""tracesql.dask on a LocalCluster of 2 worker processes on loopback: every bundled query that
combines over partitions gives, on a partitioned multi-rank job, the rows `tracesql run` gives on
the job imported into one database; the others are refused by name; errors map to TracesqlError."""
import json
import os
import subprocess
import sys

import pytest

distributed = pytest.importorskip("distributed")

import tracesql  # noqa: E402
import tracesql.dask  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def job(tmp_path_factory, traces_dir):
    """Four ranks: the two of hta_sampled and a 2-rank synthetic job (collectives, memory, steps),
    imported as partitions (job/) and into one database (job.db)."""
    d = tmp_path_factory.mktemp("dask")
    subprocess.run([sys.executable, os.path.join(SOURCE, "bench", "gen_trace.py"), "-q", "-o", str(d / "syn{rank}.json"),
                    "--ranks", "2", "--target-mb", "1", "--steps", "2"], check=True)
    traces = [os.path.join(traces_dir, f"hta_sampled_rank{r}.json.gz") for r in (0, 1)]
    traces += sorted(str(p) for p in d.glob("syn*.json"))
    assert len(traces) == 4, traces
    program = tracesql.binary()
    subprocess.run([program, "import", "-q", *traces, "-o", str(d / "job"), "--partitioned"], check=True)
    subprocess.run([program, "import", "-q", *traces, "-o", str(d / "job.db")], check=True)
    return d / "job", tracesql.load(d / "job.db", frames=False)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def bundled_queries():
    out = subprocess.run([tracesql.binary(), "queries", "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    return [q["name"] for q in json.loads(out) if q["source"].startswith("builtin:")]


def test_every_bundled_query(job, client):
    job_dir, one_db = job
    combined, refused = [], []
    for name in bundled_queries():
        try:
            tracesql.dask.combining_sql(name)
        except tracesql.TracesqlError as e:
            assert name in str(e)
            with pytest.raises(tracesql.TracesqlError, match=name):
                tracesql.dask.run(client, job_dir, name, frames=False)
            refused.append(name)
            continue
        got = tracesql.dask.run(client, job_dir, name, frames=False)
        want = one_db.run(name)
        assert got.columns == want.columns, name
        assert list(got) == list(want), name
        combined.append(name)
    print(f"combined on Dask: {len(combined)}; not combinable: {refused}")
    assert len(combined) >= 20


def test_params_and_placement(job, client):
    job_dir, one_db = job
    # Parameters reach both the partitions' query and the combining SQL.
    got = tracesql.dask.run(client, job_dir, "launch_stats", limit=3, frames=False)
    assert list(got) == list(one_db.run("launch_stats", limit=3)) and len(got) == 3
    # trace_id: only that trace's partition runs (where it is trace 1), the job's id in the result.
    got = tracesql.dask.run(client, job_dir, "steps", trace_id=3, frames=False)
    assert list(got) == list(one_db.run("steps", trace_id=3)) and {r.trace_id for r in got} == {3}
    # "-- partitions: every": every partition runs with trace_id too (the waits compare the ranks);
    # "-- partitions: one": the first trace's partition without trace_id.
    for name, params in (("collective_ranks", dict(trace_id=3, top=100)), ("collectives", dict(trace_id=4)),
                         ("timeline_overlay", {}), ("timeline_flows", dict(trace_id=2)),
                         ("trace_diff", dict(a_trace=3, b_trace=4, all=1)), ("flamegraph", dict(mode="gpu"))):
        want = one_db.run(name, **params)
        assert len(want) > 0 and list(tracesql.dask.run(client, job_dir, name, frames=False, **params)) == list(want), name
    # Each partition on a chosen worker.
    workers = sorted(client.scheduler_info()["workers"])
    placement = {p["file"]: workers[i % len(workers)] for i, p in enumerate(tracesql.dask.read_manifest(job_dir))}
    got = tracesql.dask.run(client, job_dir, "overview", workers=placement, frames=False)
    assert list(got) == list(one_db.run("overview"))


def test_errors(job, client, tmp_path):
    job_dir, _ = job
    with pytest.raises(tracesql.TracesqlError, match="manifest"):
        tracesql.dask.run(client, tmp_path, "overview")
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(tracesql.TracesqlError, match="not a partition manifest"):
        tracesql.dask.run(client, tmp_path, "overview")
    with pytest.raises(tracesql.TracesqlError, match="no_such_query"):
        tracesql.dask.run(client, job_dir, "no_such_query")


def test_job_figures(job, client):
    job_dir, one_db = job
    # memory_timeline's partitions take the job's device count from a first pass; other queries have none.
    sql = tracesql.dask.job_figures_sql("memory_timeline")
    assert "job_devices" in sql
    assert tracesql.dask.job_figures_sql("steps") == ""
    parts = tracesql.dask.read_manifest(job_dir)
    devices = sum(tracesql.dask.run_figures(p["path"], sql, [])[1][0][0] for p in parts)
    assert devices > 0 and devices == list(one_db.sql("SELECT count(*) AS n FROM memory_devices"))[0][0]
    for params in ({}, {"device": 0}, {"trace_id": 2}):
        got = tracesql.dask.run(client, job_dir, "memory_timeline", frames=False, **params)
        want = one_db.run("memory_timeline", **params)
        assert list(got) == list(want), params
