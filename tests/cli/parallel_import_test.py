#!/usr/bin/env python3
"""tracesql import --jobs N / --keep-going: a parallel import writes the database a one-at-a-time
import writes, fails as a whole, or leaves out what fails.

    parallel_import_test.py TRACESQL GEN_TRACE_PY TRACE...

TRACE...: real traces (ctest passes ../shared/traces and tests/data/traces); with a 3-rank job from
GEN_TRACE_PY (distributedInfo ranks) they make one multi-trace import whose traces share names,
call paths and shapes in different orders: the ids the parallel import gives (each trace built
with its own interners, then moved to the import's) must be the ones --jobs 1 gives. Checks:
- --jobs 1, --jobs 3 and --jobs 2 --keep-going write the same database (sqlite iterdump);
- a trace malformed mid-way fails the whole import (exit 1, the file named in the error, no
  database and no temporary file left), with any --jobs;
- --keep-going leaves it out (exit 2, a warning naming it) and writes the database that importing
  the other traces gives;
- two traces of one rank: a warning on stderr and an import_stats duplicate_rank row.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from flow_traces import write_flow_trace_pair  # noqa: E402

tracesql, gen, real = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = []


def run(args, expect=0):
    r = subprocess.run([tracesql] + args, capture_output=True, text=True)
    if r.returncode != expect:
        sys.exit("FAIL: tracesql %s: exit %d, expected %d\n%s" % (" ".join(args), r.returncode, expect, r.stderr))
    return r


def dump(db):
    c = sqlite3.connect(db)
    try:
        return list(c.iterdump())
    finally:
        c.close()


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def same_db(a, b, what):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() == fb.read():  # the same bytes (they are, today): no need to compare dumps
            print("ok: %s (the same bytes)" % what)
            return
    da, db_ = dump(a), dump(b)
    if da != db_:
        diff = next((i for i, (x, y) in enumerate(zip(da, db_)) if x != y), min(len(da), len(db_)))
        line = lambda d: d[diff][:300] if diff < len(d) else "<end>"
        check(False, "%s: databases differ at dump line %d of %d/%d:\n  %s\n  %s" % (what, diff, len(da), len(db_), line(da), line(db_)))
    else:
        print("ok: %s (%d dump lines)" % (what, len(da)))


with tempfile.TemporaryDirectory() as d:
    subprocess.run([sys.executable, gen, "--ranks", "3", "--steps", "2", "--layers", "2", "--hidden", "64", "--seqlen", "16",
                    "--batch", "1", "--vocab", "128", "--compact", "-q", "-o", os.path.join(d, "rank{rank}.json")],
                   check=True, stderr=subprocess.DEVNULL)
    job = [os.path.join(d, "rank%d.json" % r) for r in range(3)]
    # A job's ranks between the real traces: the generated ones repeat names the real ones have.
    traces = real[:len(real) // 2] + job + real[len(real) // 2:]
    p = lambda name: os.path.join(d, name)

    run(["import", "-q", "--jobs", "1"] + traces + ["-o", p("one.db")])
    for jobs in (3, 2):
        extra = ["--keep-going"] if jobs == 2 else []
        run(["import", "-q", "--jobs", str(jobs)] + extra + traces + ["-o", p("par%d.db" % jobs)])
        same_db(p("one.db"), p("par%d.db" % jobs), "--jobs %d%s against --jobs 1, %d traces" % (jobs, " --keep-going" if extra else "", len(traces)))

    # Flow rows are ordered by interned (cat, id) at build time: two traces that meet the flow
    # categories and text ids in opposite orders give the second trace's flows another order when
    # built alone; moved to the import's ids, its rows must take the order --jobs 1 gives.
    flows = write_flow_trace_pair(d)
    run(["import", "-q", "--jobs", "1"] + flows + ["-o", p("f_one.db")])
    run(["import", "-q", "--jobs", "2"] + flows + ["-o", p("f_two.db")])
    same_db(p("f_one.db"), p("f_two.db"), "flows met in another order")

    # A trace malformed mid-way: complete events, then one that is not JSON, then more.
    with open(job[1]) as f:
        text = f.read()
    cut = text.index('{"ph"', len(text) // 2)
    with open(p("bad.json"), "w") as f:
        f.write(text[:cut] + '{"ph": "X", "name": oops}, ' + text[cut:])
    with_bad = [job[0], p("bad.json"), job[2]] + real[:4]
    for jobs in ("1", "2", "4"):
        r = run(["import", "-q", "--jobs", jobs] + with_bad + ["-o", p("fail.db")], expect=1)
        check("bad.json" in r.stderr and r.stderr.count("\n") == 1, "--jobs %s: one error line naming bad.json: %r" % (jobs, r.stderr))
        left = sorted(f for f in os.listdir(d) if f.startswith(".") or f == "fail.db")
        check(left == [], "--jobs %s: a failed import left %s" % (jobs, left))

    r = run(["import", "-q", "--jobs", "2", "--keep-going"] + with_bad + ["-o", p("kept.db")], expect=2)
    check("bad.json" in r.stderr and "--keep-going" in r.stderr, "--keep-going reports the failure: %r" % r.stderr)
    run(["import", "-q", "--jobs", "1"] + [t for t in with_bad if t != p("bad.json")] + ["-o", p("good.db")])
    same_db(p("good.db"), p("kept.db"), "--keep-going leaves the failed trace out")

    r = run(["import", "-q", job[0], job[1], job[0], "-o", p("dup.db")])
    check("traces of one rank (distributedInfo): rank 0: traces 1, 3;" in r.stderr, "duplicate rank warning: %r" % r.stderr)
    c = sqlite3.connect(p("dup.db"))
    rows = c.execute("SELECT trace_id, value FROM import_stats WHERE name = 'duplicate_rank'").fetchall()
    c.close()
    check(rows == [(3, 1)], "import_stats duplicate_rank rows: %s" % rows)

if failures:
    sys.exit("%d check(s) failed" % len(failures))
print("ok")
