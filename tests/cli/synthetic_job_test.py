#!/usr/bin/env python3
"""bench/gen_trace.py --ranks: a generated job whose planted straggler tracesql must name.

Writes a 4-rank job (2 steps of a small model, slow rank 1: not the default last rank), imports it
into one database, and checks that the ranks agree (the same steps and collectives, distributedInfo
rank and world size), that `collectives` names rank 1 as the slowest rank of every collective with
a start skew of at least --slow-us, and that `advise --rule stragglers` finds rank 1 and no other.

    synthetic_job_test.py TRACESQL GEN_TRACE_PY
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

tracesql, gen = sys.argv[1], sys.argv[2]
RANKS, SLOW, SLOW_US, SKEW_US = 4, 1, 3000, 300


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


with tempfile.TemporaryDirectory() as d:
    run(sys.executable, gen, "--ranks", str(RANKS), "--slow-rank", str(SLOW), "--slow-us", str(SLOW_US),
        "--skew-us", str(SKEW_US), "--steps", "2", "--layers", "3", "--hidden", "64", "--seqlen", "16",
        "--batch", "1", "--vocab", "128", "--compact", "-q", "-o", os.path.join(d, "rank{rank}.json"))
    traces = [os.path.join(d, "rank%d.json" % r) for r in range(RANKS)]
    db = os.path.join(d, "job.db")
    run(tracesql, "import", "-q", *traces, "-o", db)

    info = rows(run(tracesql, "query", db, "SELECT id, rank, world_size,"
                    " (SELECT count(*) FROM steps AS s WHERE s.trace_id = t.id) AS steps FROM traces AS t ORDER BY id",
                    "--format", "csv"))
    check([(r["rank"], r["world_size"], r["steps"]) for r in info] == [(str(k), str(RANKS), "2") for k in range(RANKS)],
          "traces rank / world_size / steps: %s" % info)

    coll = rows(run(tracesql, "run", db, "collectives", "--format", "csv"))
    check(len(coll) >= 4, "expected at least 4 collectives, got %d" % len(coll))
    for c in coll:
        check(c["ranks"] == str(RANKS), "collective %s seq %s on %s ranks" % (c["process_group"], c["seq"], c["ranks"]))
        check(c["slowest_rank"] == str(SLOW), "collective seq %s: slowest_rank %s, planted %d" % (c["seq"], c["slowest_rank"], SLOW))
        skew = int(c["start_skew_ns"])
        # The slow rank arrives slow_us + [0, skew_us] after the earliest start, the first one [0, skew_us].
        check((SLOW_US - SKEW_US) * 1000 <= skew <= (SLOW_US + SKEW_US) * 1000,
              "collective seq %s: start skew %d ns outside slow +- skew" % (c["seq"], skew))
        # Every rank's kernel ends together: the end skew is 0.
        check(c["end_skew_ns"] == "0", "collective seq %s: end skew %s" % (c["seq"], c["end_skew_ns"]))

    found = rows(run(tracesql, "advise", db, "--rule", "stragglers", "--format", "csv"))
    check(len(found) == 1, "stragglers: expected one finding, got %s" % found)
    check(found[0]["title"].startswith("rank %d starts %d of %d collectives last" % (SLOW, len(coll), len(coll))),
          "stragglers names: %s" % found[0]["title"])
    check(found[0]["trace_id"] == str(SLOW + 1), "stragglers trace_id %s" % found[0]["trace_id"])
print("ok: rank %d is the straggler of %d collectives" % (SLOW, len(coll)))
