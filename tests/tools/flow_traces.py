"""Two small traces whose flows meet the flow categories and text ids in opposite orders.

Flow rows are ordered by interned (cat, id) when a trace is built: the second trace's flows take
another order when it is built alone (a parallel import, a partition) than after the first (one
import with --jobs 1), and moving it to the joint ids must give the latter. Used by the tests of
import --jobs and of merge."""
import json
import os


def write_flow_trace(path, cats, ids):
    """A trace of one CPU op, one kernel and one ac2g-like flow between them per (cat, id)."""
    ev = []
    for k, (cat, fid) in enumerate(zip(cats, ids)):
        ts = 10 * k
        ev += [{"ph": "X", "cat": "cpu_op", "name": "op%d" % k, "pid": 1, "tid": 1, "ts": ts, "dur": 5},
               {"ph": "X", "cat": "kernel", "name": "k%d" % k, "pid": 2, "tid": 7, "ts": ts + 6, "dur": 2},
               {"ph": "s", "cat": cat, "name": cat, "id": fid, "pid": 1, "tid": 1, "ts": ts + 1},
               {"ph": "f", "bp": "e", "cat": cat, "name": cat, "id": fid, "pid": 2, "tid": 7, "ts": ts + 6}]
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return path


def write_flow_trace_pair(directory):
    """f1.json and f2.json in directory: the same flows, met in opposite orders. Their paths."""
    return [write_flow_trace(os.path.join(directory, "f1.json"), ["zeta", "alpha", "zeta", "alpha"], ["q", "p", 3, 4]),
            write_flow_trace(os.path.join(directory, "f2.json"), ["alpha", "zeta", "alpha", "zeta"], ["p", "q", 4, 3])]
