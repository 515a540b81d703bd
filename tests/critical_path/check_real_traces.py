#!/usr/bin/env python3
"""The critical path on real traces: for each trace, `tracesql critical-path` over every step window
(the whole trace when it has no ProfilerStep) and checks that the path is connected and in time order
(each piece starts where the previous one ends), starts at the window's start and ends at its end (its
length is the window's), that its pieces are charged to events of the trace, that every bound_by and
edge_kind is one of the documented ones, and that critical_path_summary's shares add up to 100 %.

usage: check_real_traces.py TRACESQL TRACE|DB...  (a .db: a database of one trace, read as it is)"""
import pathlib
import sqlite3
import subprocess
import sys
import tempfile
import time

BOUND_BY = {"cpu", "gpu_compute", "gpu_communication", "launch_overhead", "kernel_kernel_overhead",
            "sync", "data_loading"}
EDGE_KINDS = {"op", "dependency", "launch", "kernel_kernel", "sync", "stream_wait"}


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True)


def check(tracesql, trace, work):
    problems = []
    if trace.endswith(".db"):
        db_path = trace
    else:
        db_path = str(work / (pathlib.Path(trace).name + ".db"))
        run([tracesql, "import", "-q", trace, "-o", db_path])
    db = sqlite3.connect(db_path)
    windows = db.execute("SELECT step, w_ts, w_end FROM step_windows WHERE trace_id = 1 AND w_end > w_ts "
                         "ORDER BY step").fetchall()
    if not windows:
        start, end = db.execute("SELECT start_ts, end_ts FROM traces WHERE id = 1").fetchone()
        windows = [(None, start, end)]
    db.close()
    slowest = 0.0
    for step, w_ts, w_end in windows:
        args = [tracesql, "critical-path", db_path, "--format", "csv"]
        label = "trace"
        if step is not None:
            args += ["--step", str(step)]
            label = f"step {step}"
        t0 = time.monotonic()
        run(args)
        slowest = max(slowest, time.monotonic() - t0)
        db = sqlite3.connect(db_path)
        rows = db.execute("SELECT seq, event_id, ts, dur, edge_kind, bound_by FROM critical_path "
                          "WHERE trace_id = 1 AND window = ? ORDER BY seq", (label,)).fetchall()
        where = f"{trace} {label}"
        if not rows:
            problems.append(f"{where}: no rows")
            continue
        if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
            problems.append(f"{where}: seq is not 1..{len(rows)}")
        if rows[0][2] != w_ts:
            problems.append(f"{where}: starts at {rows[0][2]}, not at the window start {w_ts}")
        if rows[-1][2] + rows[-1][3] != w_end:
            problems.append(f"{where}: ends at {rows[-1][2] + rows[-1][3]}, not at the window end {w_end}")
        for a, b in zip(rows, rows[1:]):
            if a[2] + a[3] != b[2]:
                problems.append(f"{where}: seq {a[0]} ends at {a[2] + a[3]}, seq {b[0]} starts at {b[2]}")
                break
        if any(r[3] <= 0 for r in rows):
            problems.append(f"{where}: a piece with dur <= 0")
        if sum(r[3] for r in rows) != w_end - w_ts:
            problems.append(f"{where}: length {sum(r[3] for r in rows)} != window {w_end - w_ts}")
        bad = {r[5] for r in rows} - BOUND_BY
        if bad:
            problems.append(f"{where}: unknown bound_by {sorted(bad)}")
        bad = {r[4] for r in rows} - EDGE_KINDS
        if bad:
            problems.append(f"{where}: unknown edge_kind {sorted(bad)}")
        missing = db.execute("SELECT count(*) FROM critical_path AS c WHERE c.trace_id = 1 AND c.window = ? "
                             "AND c.event_id IS NOT NULL AND NOT EXISTS "
                             "(SELECT 1 FROM events AS e WHERE e.id = c.event_id AND e.trace_id = 1)",
                             (label,)).fetchone()[0]
        if missing:
            problems.append(f"{where}: {missing} pieces charged to no event of the trace")
        db.close()
        summary = run([tracesql, "run", db_path, "critical_path_summary", "-p", "trace_id=1",
                       "-p", f"window='{label}'", "--format", "csv", "--no-header"]).stdout.split("\n")
        ns = sum(int(line.split(",")[6]) for line in summary if line)
        if ns != w_end - w_ts:
            problems.append(f"{where}: critical_path_summary's bound_by rows add up to {ns}, not {w_end - w_ts}")
    return problems, len(windows), slowest


def main():
    tracesql, traces = sys.argv[1], sys.argv[2:]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for trace in traces:
            p, n, slowest = check(tracesql, trace, pathlib.Path(tmp))
            problems += p
            print(f"{pathlib.Path(trace).name}: {n} windows, slowest {slowest:.2f} s, {len(p)} problems")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
