#!/usr/bin/env python3
"""Partitioned jobs: tracesql import --partitioned, merge, and query/run over a partition directory.

    partitions_test.py TRACESQL GEN_TRACE_PY TRACE...

TRACE...: real traces (ctest passes ../shared/traces and tests/data/traces); with a 3-rank job from
GEN_TRACE_PY they make one job (as parallel_import_test.py does). Checks:
- merge of a partitioned import equals the one-database import of the same traces, table by table
  (every row, in rowid order; the same tables, indexes and views), also for traces whose flows meet
  their categories and text ids in opposite orders;
- every query with a queries/combine/NAME.sql prints over the partition directory what it prints
  over the one database (all traces, -p trace_id=N, and the other parameters the report and the
  cross-rank queries take; collectives on the generated 3-rank job name its straggler); a query
  without one (a user query) is refused by name;
  `query DIR` concatenates, `--combine` combines;
- the import's safety rules: an existing directory only with --force and only a partition
  directory; a trace failing mid-way leaves nothing; --keep-going leaves it out; traces of one rank;
- bad partition directories: a missing, foreign or corrupt database, a missing manifest: one
  error line naming the file, for run, query and merge, and no output left.
"""
import csv
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from flow_traces import write_flow_trace_pair  # noqa: E402

tracesql, gen, real = sys.argv[1], sys.argv[2], sys.argv[3:]
source_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def run(args, expect=0):
    r = subprocess.run([tracesql] + args, capture_output=True, text=True)
    if r.returncode != expect:
        sys.exit("FAIL: tracesql %s: exit %d, expected %d\n%s" % (" ".join(args), r.returncode, expect, r.stderr))
    return r


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def tables(db):
    """Every table's rows in rowid (or key) order, and the schema."""
    c = sqlite3.connect(db)
    try:
        schema = c.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        out = {}
        for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
            try:
                out[t] = c.execute('SELECT rowid, * FROM "%s" ORDER BY rowid' % t).fetchall()
            except sqlite3.OperationalError:  # WITHOUT ROWID: key order
                out[t] = c.execute('SELECT * FROM "%s"' % t).fetchall()
        return schema, out
    finally:
        c.close()


def same_tables(a, b, what):
    sa, ta = tables(a)
    sb, tb = tables(b)
    check(sa == sb, "%s: the schema differs: %s" % (what, sorted({x[1] for x in set(sa) ^ set(sb)})))
    bad = [t for t in ta if ta[t] != tb.get(t)]
    for t in bad:
        ra, rb = ta[t], tb.get(t, [])
        only_a = [r for r in ra if r not in set(rb)][:2]
        only_b = [r for r in rb if r not in set(ra)][:2]
        check(False, "%s: table %s differs (%d/%d rows): %s / %s" % (what, t, len(ra), len(rb), only_a, only_b))
    if not bad and sa == sb:
        print("ok: %s: %d tables, %d rows" % (what, len(ta), sum(len(r) for r in ta.values())))


def one_error_line(r, *words):
    return r.stderr.count("\n") == 1 and r.stderr.startswith("tracesql: error: ") and all(w in r.stderr for w in words)


with tempfile.TemporaryDirectory() as d:
    p = lambda name: os.path.join(d, name)
    subprocess.run([sys.executable, gen, "--ranks", "3", "--steps", "2", "--layers", "2", "--hidden", "64", "--seqlen", "16",
                    "--batch", "1", "--vocab", "128", "--compact", "-q", "-o", p("rank{rank}.json")],
                   check=True, stderr=subprocess.DEVNULL)
    job = [p("rank%d.json" % r) for r in range(3)]
    traces = real[:len(real) // 2] + job + real[len(real) // 2:]

    # Merge equals the one-database import.
    run(["import", "-q", "--partitioned", "--jobs", "3"] + traces + ["-o", p("job")])
    with open(p("job/manifest.json")) as f:
        manifest = json.load(f)
    check(manifest["format"] == "tracesql-partitions" and manifest["format_version"] == 1
          and [m["trace"] for m in manifest["partitions"]] == traces
          and [m["trace_id"] for m in manifest["partitions"]] == list(range(1, len(traces) + 1))
          and sorted(os.listdir(p("job"))) == sorted(["manifest.json"] + [m["file"] for m in manifest["partitions"]]),
          "manifest.json lists every trace in order: %s" % manifest["partitions"][:2])
    for m in manifest["partitions"][:3]:
        c = sqlite3.connect(os.path.join(p("job"), m["file"]))
        check(c.execute("SELECT path, event_count FROM traces").fetchall() == [(m["trace"], m["events"])],
              "%s is an ordinary database of its trace" % m["file"])
        c.close()
    run(["import", "-q"] + traces + ["-o", p("one.db")])
    run(["merge", "-q", p("job"), "-o", p("merged.db")])
    same_tables(p("one.db"), p("merged.db"), "merge of %d partitions against one import" % len(traces))
    c = sqlite3.connect(p("merged.db"))
    check(c.execute("PRAGMA integrity_check").fetchall() == [("ok",)], "merged database: integrity_check")
    c.close()
    # A database of several traces is an input too: merged with a partition, the traces follow.
    run(["merge", "-q", p("merged.db"), os.path.join(p("job"), "part-00001.db"), "-o", p("again.db")])
    c = sqlite3.connect(p("again.db"))
    check(c.execute("SELECT count(*), max(id) FROM traces").fetchone() == (len(traces) + 1, len(traces) + 1)
          and c.execute("SELECT path FROM traces WHERE id = ?", (len(traces) + 1,)).fetchone() == (traces[0],),
          "merge of a several-trace database and a partition")
    c.close()

    # Flows met in another order by the second trace (tests/tools/flow_traces.py).
    flows = write_flow_trace_pair(d)
    run(["import", "-q", "--partitioned"] + flows + ["-o", p("fjob")])
    run(["import", "-q"] + flows + ["-o", p("f_one.db")])
    run(["merge", "-q", p("fjob"), "-o", p("f_merged.db")])
    same_tables(p("f_one.db"), p("f_merged.db"), "merge: flows met in another order")

    # The golden cases' traces: the edges the importer's tests cover, among them a trace left to the
    # views' SQL (views_by_sql: its rows come last, some REAL), REAL values in indexed columns of
    # computed tables (memory_levels.bytes), an arg shape of no keys as an input's last.
    golden = sorted(f for f in glob.glob(os.path.join(source_dir, "tests", "golden", "*", "trace*.json*"))
                    if not os.path.basename(os.path.dirname(f)).startswith("error_"))
    run(["import", "-q", "--partitioned"] + golden + ["-o", p("gjob")])
    run(["import", "-q"] + golden + ["-o", p("g_one.db")])
    run(["merge", "-q", p("gjob"), "-o", p("g_merged.db")])
    same_tables(p("g_one.db"), p("g_merged.db"), "merge of the golden cases' %d traces" % len(golden))
    c = sqlite3.connect(p("g_merged.db"))
    check(c.execute("PRAGMA integrity_check").fetchall() == [("ok",)], "golden merge: integrity_check")
    check(c.execute("SELECT count(*) FROM import_stats WHERE name = 'views_by_sql'").fetchone()[0] > 0
          and c.execute("SELECT count(*) FROM memory_levels WHERE typeof(bytes) = 'real'").fetchone()[0] > 0,
          "the golden traces have a trace left to the views' SQL and REAL values in an index")
    c.close()

    # Combinable queries: the same output over the partitions as over the one database.
    combinable = sorted(f[:-4] for f in os.listdir(os.path.join(source_dir, "queries", "combine"))
                        if not f.endswith(".partial.sql") and not f.endswith(".job.sql"))
    check(len(combinable) >= 20, "queries/combine holds the combinable queries: %s" % combinable)
    # A critical path on a trace of the generated job and on the first trace, in the one database and
    # in their partitions (timeline_overlay and timeline_flows draw it).
    job_trace = len(real) // 2 + 2
    for t in (1, job_trace):
        run(["critical-path", p("one.db"), "--trace-id", str(t), "--format", "csv"])
        run(["critical-path", os.path.join(p("job"), "part-%05d.db" % t), "--format", "csv"])
    # The generated job alone: its collectives, matched over its 3 ranks' partitions, name its planted
    # straggler (the last rank), as over its one database.
    run(["import", "-q", "--partitioned"] + job + ["-o", p("job3")])
    run(["import", "-q"] + job + ["-o", p("job3.db")])
    coll = run(["run", p("job3"), "collectives", "--format", "csv"]).stdout
    rows = list(csv.DictReader(coll.splitlines()))
    check(len(rows) >= 4 and all(r["ranks"] == "3" and r["slowest_rank"] == "2" and int(r["start_skew_ns"]) > 0 for r in rows)
          and coll == run(["run", p("job3.db"), "collectives", "--format", "csv"]).stdout,
          "collectives over the 3 ranks' partitions: every collective on 3 ranks, rank 2 the straggler: %s" % rows[:2])
    # Ranks of one job share their call paths under the same ids: flamegraph matches them by id (the
    # job above mixes traces of other programs, whose paths are matched by their frames).
    for extra in ([], ["-p", "merge_steps=0"], ["-p", "mode=gpu"], ["-p", "mode=gpu", "-p", "merge_steps=0"]):
        a = run(["run", p("job3.db"), "flamegraph", "--format", "csv"] + extra).stdout
        b = run(["run", p("job3"), "flamegraph", "--format", "csv"] + extra).stdout
        check(a == b and a.count("\n") > 10, "flamegraph %s over the 3 ranks' partitions: %d lines, %d over one database"
              % (extra, b.count("\n"), a.count("\n")))
    # Their partitions need no host slices read (flamegraph.job.sql: job_rescan 0), so with :merge_steps
    # each sends its merged paths only; the mixed job above has partitions that read them (job_rescan 1),
    # so there every partition sent every path.
    figures_sql = run(["queries", "--show", "flamegraph", "--job-figures"]).stdout
    mixed = [run(["query", f, figures_sql, "--format", "csv"]).stdout.split()[1]
             for f in sorted(glob.glob(os.path.join(p("job"), "part-*.db")))]
    check("1" in mixed and "0" in mixed, "flamegraph.job.sql on the mixed job's partitions: some 1, some 0: %s" % mixed)
    rank0 = os.path.join(p("job3"), "part-00001.db")
    figure = run(["query", rank0, figures_sql, "--format", "csv"]).stdout
    merged, paths = run(["query", rank0, "SELECT sum(id = merged_id) AS m, count(*) AS n FROM stacks", "--format", "csv"]).stdout.split()[1].split(",")
    for extra, rows in ((["-p", "job_rescan=0"], merged), (["-p", "job_rescan=1"], paths), ([], paths),
                        (["-p", "job_rescan=0", "-p", "merge_steps=0"], paths)):
        got = run(["run", rank0, "flamegraph", "--per-partition", "--format", "csv"] + extra).stdout.count("\n") - 1
        check(figure.split() == ["job_rescan", "0"] and got == int(rows) and int(merged) < int(paths),
              "flamegraph --per-partition %s on a rank of the job (job_rescan %s): %d rows, expected %s of %s paths"
              % (extra, figure.split()[1:], got, rows, paths))
    # -p trace_id=N runs on the one partition of trace N (or, for the cross-rank queries, every
    # partition); other parameters as the report and the queries' docs use them.
    params = {
        "steps": [["-p", "trace_id=%d" % job_trace]],
        "sync_points": [["-p", "trace_id=%d" % job_trace]],
        "collectives": [["-p", "trace_id=%d" % job_trace], ["-p", "limit=5"]],
        "collective_ranks": [["-p", "top=100"], ["-p", "trace_id=%d" % job_trace], ["-p", "trace_id=2", "-p", "top=3"]],
        "timeline_flows": [["-p", "trace_id=%d" % job_trace]],
        "timeline_overlay": [["-p", "trace_id=%d" % job_trace]],
        "trace_diff": [["-p", "a_trace=%d" % job_trace, "-p", "b_trace=%d" % (job_trace + 1), "-p", "all=1"],
                       ["-p", "a_trace=%d" % (job_trace - 1), "-p", "b_trace=1", "-p", "per_step=1", "-p", "shapes=0",
                        "-p", "limit=-1"]],
        "flamegraph": [["-p", "merge_steps=0"], ["-p", "mode=gpu"], ["-p", "mode=gpu", "-p", "merge_steps=0"],
                       ["-p", "trace_id=%d" % job_trace]],
    }
    differ = []
    # Parameter values that change how a query's rows combine: the report's (src/report/report.cc),
    # the other values of choice parameters, limits that cut or do not.
    variants = {
        "kernel_summary": [["-p", "device=0"]],
        "top_kernels": [["-p", "limit=-1"]],
        "top_ops": [["-p", "outermost=1"]],
        "op_summary": [["-p", "sort=cpu_self", "-p", "limit=20"], ["-p", "sort=calls"],
                       ["-p", "by_shape=1", "-p", "inclusive=1", "-p", "sort=gpu_union", "-p", "limit=40"]],
        "launch_delays": [["-p", "limit=15"]],
        "kernel_classes": [["-p", "by_name=1"]],
        "memcpy_summary": [["-p", "device=0"]],
        "memory_timeline": [["-p", "device=0"], ["-p", "points=400"], ["-p", "buckets=30"]],
        "worst_devices": [["-p", "limit=-1"], ["-p", "limit=2", "-p", "min_fraction=0.9", "-p", "min_skew_ns=0"]],
    }
    per_trace_param = ("steps", "sync_points", "kernel_summary", "top_kernels", "top_ops", "op_summary",
                       "launch_delays", "kernel_classes", "memcpy_summary")
    for name in combinable:
        one_trace = [["-p", "trace_id=%d" % job_trace]] if name in per_trace_param and name not in params else []
        for extra in [[]] + one_trace + params.get(name, []) + variants.get(name, []):
            a = run(["run", p("one.db"), name, "--format", "csv"] + extra).stdout
            b = run(["run", p("job"), name, "--format", "csv"] + extra).stdout
            if a != b:
                differ.append((name, extra))
                print("FAIL: run %s %s: %d lines over the partitions, %d over one database" % (name, extra, b.count("\n"), a.count("\n")))
    check(not differ, "combinable queries give the one database's output: %s differ" % differ)
    if not differ:
        print("ok: %d combinable queries print the same over partitions and one database" % len(combinable))
    # memory_timeline's partitions take the job's device count (:job_devices, from
    # memory_timeline.job.sql) and cut their devices into the job's budget: 1000 devices, 25 buckets.
    mt = [r for r in run(["query", p("one.db"), "SELECT trace_id FROM memory_devices WHERE events > 25"]).stdout.split()[1:]]
    check(len(mt) > 0, "a trace of the job has a device with more than 25 [memory] events")
    part = os.path.join(p("job"), "part-%05d.db" % int(mt[0]))
    rows = list(csv.reader(run(["run", part, "memory_timeline", "--per-partition", "-p", "job_devices=1000",
                                "--format", "csv"]).stdout.splitlines()))
    one = list(csv.reader(run(["run", p("one.db"), "memory_timeline", "-p", "trace_id=" + mt[0], "-p", "points=25",
                               "--format", "csv"]).stdout.splitlines()))
    check([r[1:13] for r in rows] == [r[1:13] for r in one] and rows[0][13] == "nb"
          and {r[13] for r in rows[1:]} <= {"0", "25"} and "25" in {r[13] for r in rows[1:]},
          "memory_timeline's partial SQL with :job_devices 1000: 25 buckets a device, as -p points=25 (%d rows, %d)"
          % (len(rows), len(one)))
    # Combining queries that repeat their query's cross-rank step after reading the partial rows:
    # the SQL from that step on is the query's own, character for character.
    for name, step in (("collectives", "ranked AS ("), ("collective_ranks", "picked AS ("), ("trace_diff", "joined AS ("),
                       ("worst_devices", "ranked AS (")):
        with open(os.path.join(source_dir, "queries", name + ".sql")) as f:
            own = f.read()
        with open(os.path.join(source_dir, "queries", "combine", name + ".sql")) as f:
            combining = f.read()
        check(step in own and step in combining and own[own.index(step):] == combining[combining.index(step):],
              "queries/combine/%s.sql repeats the query's SQL from %r on" % (name, step))
    # --per-partition: the SQL each partition runs (the query's own unless queries/combine/NAME.partial.sql).
    part1 = os.path.join(p("job"), "part-00001.db")
    for name in combinable:
        partial = os.path.exists(os.path.join(source_dir, "queries", "combine", name + ".partial.sql"))
        shown = run(["queries", "--show", name, "--per-partition"]).stdout
        own = run(["queries", "--show", name]).stdout
        check((shown != own) == partial, "queries --show %s --per-partition: its partial SQL exactly when it has one" % name)
        if not partial and name in ("steps", "top_kernels"):
            check(run(["run", part1, name, "--per-partition", "--format", "csv"]).stdout
                  == run(["run", part1, name, "--format", "csv"]).stdout, "run %s --per-partition: the query itself" % name)
    r = run(["run", p("job"), "steps", "--per-partition"], expect=1)
    check(one_error_line(r, "job", "--per-partition"), "--per-partition on a directory is refused: %r" % r.stderr)
    os.mkdir(p("myqueries"))
    with open(p("myqueries/my_kernels.sql"), "w") as f:
        f.write("-- name: my_kernels\n-- description: kernels per trace\nSELECT trace_id, count(*) AS n FROM kernels GROUP BY trace_id;\n")
    check(run(["run", p("one.db"), "my_kernels", "--queries-dir", p("myqueries")]).returncode == 0, "a user query runs on a database")
    r = run(["run", p("job"), "my_kernels", "--queries-dir", p("myqueries")], expect=1)
    check(one_error_line(r, "my_kernels", "does not combine", "a user query", "merge"),
          "a query without combining SQL (a user query) is refused: %r" % r.stderr)
    r = run(["run", p("job"), "trace_diff", "--against", p("one.db")], expect=1)
    check(one_error_line(r, "--against", "merge"), "trace_diff --against over a partition directory is refused: %r" % r.stderr)
    per_trace = "SELECT trace_id, count(*) AS n, sum(dur) AS d FROM events GROUP BY trace_id ORDER BY trace_id"
    check(run(["query", p("job"), per_trace]).stdout == run(["query", p("one.db"), per_trace]).stdout,
          "query over partitions concatenates the partitions' rows in trace order")
    total = run(["query", p("one.db"), "SELECT count(*) AS n FROM kernels"]).stdout
    combined = run(["query", p("job"), "SELECT count(*) AS n FROM kernels", "--combine", "SELECT sum(n) AS n FROM partial"]).stdout
    check(total == combined, "--combine: %r against %r" % (combined, total))

    # partial's values as the partitions gave them (integers, reals, text, blobs, NULLs; trace_id the
    # job's), read in order through the virtual table (SELECT * FROM partial ORDER BY rowid, no
    # --combine) and from the table the other combining queries get.
    values = ("SELECT 1 AS trace_id, 2 AS a, 'x' AS b, 2.5 AS c, NULL AS d, x'00ff' AS e, '' AS f "
              "UNION ALL SELECT NULL, -3, 'yy', 1e300, 7, x'', NULL")
    streamed = run(["query", p("job"), values, "--format", "json"]).stdout
    tabled = run(["query", p("job"), values, "--format", "json", "--combine",
                  "SELECT trace_id, a, b, c, d, e, f FROM partial WHERE rowid > 0 ORDER BY rowid"]).stdout
    types = run(["query", p("job"), values, "--combine",
                 "SELECT group_concat(typeof(trace_id) || typeof(a) || typeof(b) || typeof(c) || typeof(d) || typeof(e)"
                 " || typeof(f), ',') AS t, count(*) AS n, max(rowid) AS r FROM partial"]).stdout
    check(streamed == tabled and json.loads(streamed)[2] == {"trace_id": 2, "a": 2, "b": "x", "c": 2.5, "d": None,
                                                               "e": json.loads(streamed)[0]["e"], "f": ""}
          and types.split()[1].startswith('"integerintegertextrealnullblobtext,nullintegertextrealintegerblobnull')
          and types.split()[1].endswith(",%d,%d" % (2 * len(traces), 2 * len(traces))),
          "partial's values through the virtual table and the table: %s / %s" % (streamed[:200], types))

    # memory_timeline's default points over more than 16 devices: 5 copies of a trace of 4,618 and
    # 8,220 [memory] events per device and 4 of one of 180 and 1,608 (18 devices: 1,000 points each).
    # Each partition gets the job's 18 devices from memory_timeline.job.sql (:job_devices) and cuts
    # its devices into 1,000 buckets as the one database does; without :job_devices (the
    # per-partition and combining SQL run as another engine may) its 2000-bucket and per-event rows
    # are cut into the job's 1,000 buckets by the combining SQL.
    by_name = {os.path.basename(t): t for t in real}
    mem = ["kineto_tbplugin_resnet50_v100_2021_memory.json.gz", "h200_train_ddp.json.gz"]
    if all(m in by_name for m in mem):
        mtraces = [by_name[mem[0]]] * 5 + [by_name[mem[1]]] * 4
        run(["import", "-q", "--partitioned"] + mtraces + ["-o", p("mjob")])
        run(["import", "-q"] + mtraces + ["-o", p("mjob.db")])
        one = lambda *extra: run(["run", p("mjob.db"), "memory_timeline", "--format", "csv"] + list(extra)).stdout
        parts = lambda *extra: run(["run", p("mjob"), "memory_timeline", "--format", "csv"] + list(extra)).stdout
        default = one()
        check(default == one("-p", "points=1000") and default != one("-p", "points=2000")
              and default.count("\n") < 1 + 18 * 1000,
              "memory_timeline on 18 devices: 1,000 points per device by default (%d lines)" % default.count("\n"))
        check(one("-p", "device=0") == one("-p", "device=0", "-p", "points=2000"),
              "memory_timeline -p device=0 (9 devices in scope): 2,000 points per device")
        check(one("-p", "trace_id=6") == one("-p", "trace_id=6", "-p", "points=2000"),
              "memory_timeline -p trace_id=6 (2 devices in scope): 2,000 points per device")
        for extra in ([], ["-p", "device=0"], ["-p", "trace_id=6"], ["-p", "points=300"], ["-p", "points=0", "-p", "trace_id=7"],
                      ["-p", "buckets=7"]):
            check(one(*extra) == parts(*extra), "memory_timeline %s on 18 devices: the same over the partitions" % extra)
        partial_sql = run(["queries", "--show", "memory_timeline", "--per-partition"]).stdout
        combining = run(["queries", "--show", "memory_timeline", "--combining"]).stdout
        check(run(["query", p("mjob"), partial_sql, "--combine", combining, "--format", "csv"]).stdout == default,
              "memory_timeline on 18 devices without :job_devices: the partitions' 2000-bucket rows combine the same")

    # Import safety.
    os.mkdir(p("mine"))
    with open(p("mine/notes.txt"), "w") as f:
        f.write("keep")
    r = run(["import", "-q", "--partitioned", "--force", job[0], "-o", p("mine")], expect=1)
    check(one_error_line(r, "mine", "not a partition directory") and os.listdir(p("mine")) == ["notes.txt"],
          "--force refuses a directory that is not a partition directory: %r" % r.stderr)
    r = run(["import", "-q", "--partitioned", job[0], "-o", p("fjob")], expect=1)
    check(one_error_line(r, "fjob", "--force"), "an existing partition directory needs --force: %r" % r.stderr)
    run(["import", "-q", "--partitioned", "--force", job[0], job[1], "-o", p("fjob")])
    check(sorted(os.listdir(p("fjob"))) == ["manifest.json", "part-00001.db", "part-00002.db"], "--force replaces a partition directory")
    os.mkdir(p("empty"))
    run(["import", "-q", "--partitioned", job[2], "-o", p("empty")])
    check(sorted(os.listdir(p("empty"))) == ["manifest.json", "part-00001.db"], "an empty directory is used")

    with open(job[1]) as f:
        text = f.read()
    cut = text.index('{"ph"', len(text) // 2)
    with open(p("bad.json"), "w") as f:
        f.write(text[:cut] + '{"ph": "X", "name": oops}, ' + text[cut:])
    with_bad = [job[0], p("bad.json"), job[2]] + real[:3]
    before = sorted(os.listdir(d))
    r = run(["import", "-q", "--partitioned", "--jobs", "2"] + with_bad + ["-o", p("failed")], expect=1)
    check(one_error_line(r, "bad.json"), "a failing trace fails the import, one line naming it: %r" % r.stderr)
    check(sorted(os.listdir(d)) == before, "a failed partitioned import leaves nothing: %s" % (set(os.listdir(d)) - set(before)))
    r = run(["import", "-q", "--partitioned", "--jobs", "2", "--keep-going"] + with_bad + ["-o", p("kept")], expect=2)
    check("bad.json" in r.stderr and "--keep-going" in r.stderr, "--keep-going reports the failure: %r" % r.stderr)
    good = [t for t in with_bad if t != p("bad.json")]
    with open(p("kept/manifest.json")) as f:
        kept = json.load(f)["partitions"]
    check([m["trace"] for m in kept] == good and [m["trace_id"] for m in kept] == list(range(1, len(good) + 1)),
          "--keep-going: the other traces, ids consecutive: %s" % [(m["trace_id"], m["trace"]) for m in kept])
    run(["merge", "-q", p("kept"), "-o", p("kept.db")])
    run(["import", "-q"] + good + ["-o", p("good.db")])
    same_tables(p("good.db"), p("kept.db"), "--keep-going partitions merged against the others imported")

    r = run(["import", "-q", "--partitioned", job[0], job[1], job[0], "-o", p("dup")])
    check("traces of one rank (distributedInfo): rank 0: traces 1, 3" in r.stderr, "duplicate rank warning: %r" % r.stderr)
    run(["merge", "-q", p("dup"), "-o", p("dup.db")])
    run(["import", "-q", job[0], job[1], job[0], "-o", p("dup_one.db")])
    same_tables(p("dup_one.db"), p("dup.db"), "merge of traces of one rank (import_stats duplicate_rank)")

    # Bad partition directories.
    def broken(name, damage):
        shutil.copytree(p("job"), p(name))
        target = os.path.join(p(name), "part-00002.db")
        damage(target)
        return p(name), target
    def foreign(path):
        os.remove(path)
        c = sqlite3.connect(path)
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
    def garbage(path):
        with open(path, "wb") as f:
            f.write(b"\x00garbage" * 1000)
    def truncated(path):
        with open(path, "r+b") as f:
            f.truncate(16384 * 3)
    cases = [("missing", os.remove, "missing"), ("foreign", foreign, "not a tracesql database"),
             ("garbage", garbage, "not a SQLite database"), ("truncated", truncated, "")]
    for name, damage, words in cases:
        jobdir, target = broken("bad_" + name, damage)
        # (-p trace_id=1 runs on the first partition only; every partition is still checked.)
        for args in (["run", jobdir, "steps"], ["run", jobdir, "steps", "-p", "trace_id=1"], ["query", jobdir, "SELECT 1"],
                     ["merge", jobdir, "-o", p("bad.db")]):
            r = run(args, expect=1)
            check(one_error_line(r, target, words), "%s partition, %s: one error line naming it: %r" % (name, args[0], r.stderr))
        check(not os.path.exists(p("bad.db")) and not any(f.startswith(".bad.db") for f in os.listdir(d)),
              "%s partition: merge leaves nothing" % name)
    os.remove(os.path.join(p("bad_missing"), "manifest.json"))
    r = run(["merge", p("bad_missing"), "-o", p("bad.db")], expect=1)
    check(one_error_line(r, "bad_missing"), "a directory without manifest.json: %r" % r.stderr)
    with open(os.path.join(p("bad_foreign"), "manifest.json"), "w") as f:
        f.write('{"format": "something else"}')
    r = run(["run", p("bad_foreign"), "steps"], expect=1)
    check(one_error_line(r, "manifest.json", "not a partition manifest"), "a foreign manifest: %r" % r.stderr)

if failures:
    sys.exit("%d check(s) failed" % len(failures))
print("ok")
