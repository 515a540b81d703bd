#!/usr/bin/env python3
"""`tracesql export --with-trace` round trip on real traces. For each trace: import it, export it with
its overlay (gzip), check that the file is valid JSON whose times are µs with three decimals, import
the export and check that
- the trace's events come back identical (id order aside): every column, with the ids they hold
  (parent, enclosing CPU ops, thread, args, input shapes) compared by what they point to;
- its flows come back the same (category, name, id, both ends' times and events);
- its header (traces.metadata) comes back the same;
- the overlay tracks (the process 'tracesql') hold exactly the rows of timeline_overlay and the arrows
  of timeline_flows of the first database (the findings' instants: tests/export/cli_test.sh).

usage: roundtrip.py TRACESQL TRACE..."""
import gzip
import json
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

# An event as the columns that do not depend on ids, plus what its id columns point to. Its args are
# compared as stored (arg_values and the keys of its shape, with the values kept in columns, input_shapes
# and memory_args): the same as comparing event_args, without building a JSON object per event.
EVENT_KEY = """
WITH shape_keys AS (
  SELECT shape_id, group_concat(key || '=' || coalesce(path, ''), char(31)) AS keys
  FROM (SELECT * FROM arg_keys ORDER BY shape_id, idx) GROUP BY shape_id
)
SELECT th.pid, th.tid, th.name, th.kind, e.ph, e.cat, e.name, e.ts, e.dur, e.depth,
       p.ts, p.dur, p.name, c.ts, c.name, t.ts, t.name,
       e.external_id, e.correlation, e.seq_num, e.fwd_thread_id, e.python_id, e.python_parent_id,
       e.device, e.stream, e.step, k.keys, e.arg_values, s.input_dims, s.input_type, m.bytes, m.addr, m.total_allocated,
       m.total_reserved, m.device_type, m.device_id, st.depth, st.name
FROM events AS e
JOIN threads AS th ON th.id = e.thread_id
LEFT JOIN events AS p ON p.id = e.parent_id
LEFT JOIN events AS c ON c.id = e.cpu_op_id
LEFT JOIN events AS t ON t.id = e.top_cpu_op_id
LEFT JOIN shape_keys AS k ON k.shape_id = e.arg_shape_id
LEFT JOIN input_shapes AS s ON s.id = e.input_shape_id
LEFT JOIN memory_args AS m ON m.event_id = e.id
LEFT JOIN stacks AS st ON st.id = e.stack_id
WHERE e.pid IS NOT ?1
"""
FLOW_KEY = """
SELECT f.cat, f.name, f.flow_id, f.src_ts, f.dst_ts, s.ts, s.name, d.ts, d.name
FROM flows AS f LEFT JOIN events AS s ON s.id = f.src_event_id LEFT JOIN events AS d ON d.id = f.dst_event_id
WHERE f.cat IS NOT 'tracesql'
"""
MICROS = re.compile(rb'"(?:ts|dur)": (-?\d+)(\.\d*)?')


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True)


def multiset(rows):
    counts = {}
    for r in rows:
        counts[r] = counts.get(r, 0) + 1
    return counts


def first_difference(a, b):
    for k in sorted(set(a) | set(b), key=repr):
        if a.get(k, 0) != b.get(k, 0):
            return f"{a.get(k, 0)} vs {b.get(k, 0)} x {k}"
    return None


def check(tracesql, trace, work):
    problems = []
    name = pathlib.Path(trace).name
    a_path, out, b_path = work / (name + ".a.db"), work / (name + ".export.json.gz"), work / (name + ".b.db")
    run([tracesql, "import", "-q", trace, "-o", str(a_path)])
    run([tracesql, "export", str(a_path), "-o", str(out), "--with-trace"])
    text = gzip.decompress(out.read_bytes())
    json.loads(text)  # valid JSON
    for m in MICROS.finditer(text):
        if m.group(2) is None or len(m.group(2)) != 4:
            problems.append(f"{name}: a time not written as µs with three decimals: {m.group(0)[:40]!r}")
            break
    run([tracesql, "import", "-q", str(out), "-o", str(b_path)])
    a, b = sqlite3.connect(a_path), sqlite3.connect(b_path)
    pid = a.execute("SELECT coalesce(max(pid), 0) + 1 FROM processes WHERE typeof(pid) = 'integer'").fetchone()[0]
    if b.execute("SELECT name FROM processes WHERE pid = ?", (pid,)).fetchone() != ("tracesql",):
        problems.append(f"{name}: no overlay process 'tracesql' with pid {pid}")
    for what, sql in (("events", EVENT_KEY), ("flows", FLOW_KEY)):
        ra = multiset(a.execute(sql, (pid,)) if "?1" in sql else a.execute(sql))
        rb = multiset(b.execute(sql, (pid,)) if "?1" in sql else b.execute(sql))
        diff = first_difference(ra, rb)
        if diff:
            problems.append(f"{name}: {what} differ after the round trip ({sum(ra.values())} vs "
                            f"{sum(rb.values())} rows): {diff}")
    meta_a = json.loads(a.execute("SELECT metadata FROM traces").fetchone()[0])
    meta_b = json.loads(b.execute("SELECT metadata FROM traces").fetchone()[0])
    if meta_a != meta_b:
        problems.append(f"{name}: the header differs: {meta_a} vs {meta_b}")
    # The overlay: timeline_overlay's rows (and findings) are its slices and instants, exactly.
    overlay_sql = (pathlib.Path(__file__).resolve().parents[2] / "queries" / "timeline_overlay.sql").read_text()
    want = multiset((r[0], r[1], r[2], r[3]) for r in a.execute(overlay_sql, {"trace_id": 1}))
    got = multiset(b.execute(
        "SELECT th.name, e.ts, e.dur, e.name FROM events AS e JOIN threads AS th ON th.id = e.thread_id "
        "WHERE e.pid = ? AND th.name <> 'advisor findings'", (pid,)))
    diff = first_difference(want, got)
    if diff:
        problems.append(f"{name}: the overlay tracks differ from timeline_overlay: {diff}")
    flows_sql = (pathlib.Path(__file__).resolve().parents[2] / "queries" / "timeline_flows.sql").read_text()
    arrows = len(a.execute(flows_sql, {"trace_id": 1}).fetchall())
    got_arrows = b.execute("SELECT count(*) FROM flows WHERE cat = 'tracesql' AND src_ts IS NOT NULL "
                           "AND dst_ts IS NOT NULL").fetchone()[0]
    if got_arrows != arrows:
        problems.append(f"{name}: {got_arrows} overlay arrows, timeline_flows has {arrows}")
    a.close()
    b.close()
    return problems


def main():
    tracesql, traces = sys.argv[1], sys.argv[2:]
    problems = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for trace in traces:
            problems += check(tracesql, trace, pathlib.Path(tmp))
    for p in problems:
        print("FAIL", p)
    if problems:
        return 1
    print(f"ok: {len(traces)} traces round-trip through export --with-trace in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
