"""The tracesql package as installed from the wheel: load, sql, run, queries, advise, report,
connection, results (DataFrames and Rows), errors. Results are compared with the tracesql program's
own output."""
import csv
import io
import json
import os
import sqlite3
import sys

import pytest

import tracesql

pd = pytest.importorskip("pandas")


def test_package_runs_its_own_program():
    assert os.path.join("site-packages", "tracesql", "_bin", "tracesql") in tracesql.binary()
    assert tracesql.__version__ != "0+unknown"


# ---- load --------------------------------------------------------------------------------------

def test_load_trace_imports_next_to_it_then_reuses(writable_trace):
    db = tracesql.load(writable_trace)
    assert db.path == str(writable_trace.parent / "rank0.pt.trace.db")
    first = os.stat(db.path).st_mtime_ns
    assert db.sql("SELECT count(*) AS n FROM traces")["n"].tolist() == [1]
    again = tracesql.load(str(writable_trace))
    assert again.path == db.path and os.stat(db.path).st_mtime_ns == first  # reused, not imported again


def test_load_glob_imports_several_traces_once(traces_dir, tmp_path):
    pattern = os.path.join(traces_dir, "hta_sampled_rank*.json.gz")
    db = tracesql.load([pattern])
    assert db.path.startswith(str(tmp_path / "cache" / "tracesql"))
    paths = db.sql("SELECT path FROM traces ORDER BY id")["path"].tolist()
    assert [os.path.basename(p) for p in paths] == ["hta_sampled_rank0.json.gz", "hta_sampled_rank1.json.gz"]
    first = os.stat(db.path).st_mtime_ns
    assert tracesql.load(pattern).path == db.path and os.stat(db.path).st_mtime_ns == first


def test_load_into_named_database_and_open_it(writable_trace, tmp_path):
    out = tmp_path / "job.db"
    db = tracesql.load([writable_trace], db=out)
    assert db.path == str(out)
    reopened = tracesql.load(out)
    assert reopened.sql("SELECT count(*) AS n FROM traces")["n"][0] == 1


def test_load_refuses_to_replace_another_database(writable_trace, tmp_path, traces_dir):
    out = tmp_path / "job.db"
    tracesql.load([writable_trace], db=out)
    other = os.path.join(traces_dir, "hta_sampled_rank1.json.gz")
    with pytest.raises(tracesql.TracesqlError, match="exists"):
        tracesql.load([other], db=out)
    assert tracesql.load([other], db=out, force=True).sql("SELECT count(*) AS n FROM traces")["n"][0] == 1


# ---- errors: the program's one-line message ----------------------------------------------------

def test_bad_trace_raises_the_programs_message(tmp_path, cli):
    bad = tmp_path / "broken.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "ts": ')
    expected = cli("import", str(bad), "-o", str(tmp_path / "x.db"), "--strict").stderr.strip()
    with pytest.raises(tracesql.TracesqlError) as err:
        tracesql.load([bad], db=tmp_path / "y.db")
    assert "tracesql: error: " + err.value.message == expected.replace("x.db", "y.db")
    assert err.value.returncode != 0 and "\n" not in err.value.message
    # One trace alone goes through the shortcut (`tracesql TRACE`): the same message, no database.
    with pytest.raises(tracesql.TracesqlError) as err:
        tracesql.load(bad)
    assert "broken.json" in err.value.message and not (tmp_path / "broken.db").exists()


def test_not_a_database_and_missing_file(tmp_path):
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    with pytest.raises(tracesql.TracesqlError, match="other.db"):
        tracesql.load(other)
    with pytest.raises(tracesql.TracesqlError, match="no such"):
        tracesql.load(tmp_path / "missing.db")
    with pytest.raises(tracesql.TracesqlError, match="no file matches"):
        tracesql.load([str(tmp_path / "none*.json.gz")])


def test_sql_and_run_errors(job_db, cli):
    with pytest.raises(tracesql.TracesqlError, match="no such table: nope"):
        job_db.sql("SELECT * FROM nope")
    expected = cli("run", job_db.path, "top_kernels", "-p", "limt=3").stderr.strip()
    with pytest.raises(tracesql.TracesqlError) as err:
        job_db.run("top_kernels", limt=3)
    assert "tracesql: error: " + str(err.value) == expected
    with pytest.raises(tracesql.TracesqlError, match="no query named"):
        job_db.run("no_such_query")


# ---- results -----------------------------------------------------------------------------------

def test_sql_parameters_keep_their_python_types(job_db):
    df = job_db.sql("SELECT :i AS i, typeof(:i) AS ti, :f AS f, typeof(:f) AS tf, :s AS s, typeof(:s) AS ts, "
                    ":n AS n, typeof(:n) AS tn, :b AS b, :q AS q", i=7, f=0.5, s="42", n=None, b=True, q="it's")
    row = df.iloc[0]
    assert (row["i"], row["ti"], row["f"], row["tf"], row["s"], row["ts"], row["tn"], row["b"], row["q"]) == \
        (7, "integer", 0.5, "real", "42", "text", "null", 1, "it's")
    assert pd.isna(row["n"])


def test_integer_columns_stay_exact(job_db):
    df = job_db.sql("SELECT ts, ts + dur AS end_ts, CASE WHEN dur > 0 THEN dur END AS maybe FROM events "
                    "ORDER BY ts DESC LIMIT 50")
    assert str(df["ts"].dtype) == "int64" and str(df["maybe"].dtype) in ("Int64", "int64")
    raw = job_db.connection.execute("SELECT ts FROM events ORDER BY ts DESC LIMIT 50").fetchall()
    assert df["ts"].tolist() == [r[0] for r in raw] and raw[0][0] > 2 ** 53  # beyond float64's exact range


def test_rows_without_pandas(job_db, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    rows = tracesql.Database(job_db.path).sql("SELECT 1 AS a, 'x' AS \"b c\", 2 AS a, NULL AS d")
    assert isinstance(rows, tracesql.Rows) and rows.columns == ["a", "b c", "a", "d"]
    assert rows == [(1, "x", 2, None)] and rows[0].a == 1 and rows[0]._asdict()["_1"] == "x"
    empty = tracesql.Database(job_db.path).sql("SELECT path FROM traces WHERE 0")
    assert empty == [] and empty.columns == ["path"]


def test_empty_result_keeps_its_columns(job_db):
    df = job_db.run("top_kernels", trace_id=99)
    assert len(df) == 0 and "name" in df.columns


def test_connection_is_plain_sqlite3(job_db):
    con = job_db.connection
    assert isinstance(con, sqlite3.Connection)
    assert con.execute("SELECT count(*) FROM traces").fetchone()[0] == 2
    job_db.close()
    assert job_db.connection.execute("SELECT count(*) FROM traces").fetchone()[0] == 2


def cli_rows(text):
    return list(csv.reader(io.StringIO(text)))


def same_cell(value, text):
    if value is None:
        return text == ""
    if isinstance(value, float):
        return text != "" and float(text) == value
    return str(value) == text


def test_every_bundled_query_equals_tracesql_run(job_db, cli):
    listing = cli("queries", "--format", "json")
    names = [q["name"] for q in json.loads(listing.stdout) if q["source"].startswith("builtin:")]
    rows_db = tracesql.Database(job_db.path, frames=False)
    assert len(names) >= 25 and {r.name for r in rows_db.queries()} >= set(names)
    nonempty = 0
    for name in names:
        proc = cli("run", job_db.path, name, "--format", "csv", "--null", "")
        if proc.returncode != 0:  # e.g. a query that needs --against: the same error from Python
            with pytest.raises(tracesql.TracesqlError) as err:
                rows_db.run(name)
            assert "tracesql: error: " + str(err.value) == proc.stderr.strip(), name
            continue
        expected = cli_rows(proc.stdout)
        got = rows_db.run(name)
        assert got.columns == expected[0], name
        assert len(got) == len(expected) - 1, name
        for r, (row, text_row) in enumerate(zip(got, expected[1:])):
            assert all(same_cell(v, t) for v, t in zip(row, text_row)), (name, r, row, text_row)
        frame = job_db.run(name)
        assert list(frame.columns) == expected[0] and len(frame) == len(got), name
        nonempty += bool(got)
    assert nonempty >= 20, nonempty


def test_run_parameters(job_db, cli):
    df = job_db.run("kernel_summary", limit=3, trace_id=2)
    text = cli("run", job_db.path, "kernel_summary", "-p", "limit=3", "-p", "trace_id=2", "--format", "csv").stdout
    assert df["name"].tolist() == [r[0] for r in cli_rows(text)[1:]] and len(df) == 3


def test_queries_lists_bundled_queries(job_db):
    q = job_db.queries()
    assert {"kernel_summary", "idle_breakdown", "temporal_breakdown"} <= set(q["name"])
    assert list(q.columns) == ["name", "description", "params", "source"]


def test_advise_equals_tracesql_advise(job_db, cli):
    findings = job_db.advise()
    expected = json.loads(cli("advise", job_db.path, "--format", "json").stdout)
    assert len(findings) == len(expected) > 0
    assert findings["rule"].tolist() == [f["rule"] for f in expected]
    assert findings["time_lost_ns"].tolist() == [f["time_lost_ns"] for f in expected]
    one = job_db.advise(rule="exposed_comm")
    assert set(one["rule"]) == {"exposed_comm"}


def test_report_writes_html_and_never_overwrites(job_db, tmp_path):
    out = tmp_path / "report.html"
    assert job_db.report(out) == str(out)
    assert out.read_text().lstrip().lower().startswith("<!doctype html")
    with pytest.raises(tracesql.TracesqlError, match="exists"):
        job_db.report(out)
    job_db.report(out, force=True)
