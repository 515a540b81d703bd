#!/usr/bin/env python3
"""Sanity checks for a trace written by gen_trace.py (loads it whole: use on small files).

    bench/check_trace.py /tmp/t20.json[.gz]

Checks: strict JSON parse; baseTimeNanoseconds after traceEvents; every ts/dur
written as N.ddd; ac2g s/f pair up and land on a same-(pid, tid, ts) slice with
the same correlation; fwdbwd s/f pair up with equal Sequence numbers; Python
parent ids resolve; External ids of cpu_ops are unique and GPU ops point at one;
slices on each CPU/GPU track nest properly.  Prints a category summary.
"""

import collections
import gzip
import json
import re
import sys


def main():
    path = sys.argv[1]
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        raw = f.read()
    text = raw.decode("ascii")
    doc = json.loads(text)
    errors = []

    def err(msg):
        if len(errors) < 30:
            print("ERROR:", msg)
        errors.append(msg)

    keys = list(doc.keys())
    if keys.index("baseTimeNanoseconds") < keys.index("traceEvents"):
        err("baseTimeNanoseconds before traceEvents")
    bad_ts = re.findall(r'"(?:ts|dur)": (?!-?\d+\.\d{3}[,\n }])[^,\n}]*', text)
    if bad_ts:
        err("ts/dur not N.ddd: %r" % bad_ts[:3])

    ev = doc["traceEvents"]
    n = len(ev)
    nargs = sum(len(e.get("args", {})) for e in ev)
    cats = collections.Counter((e["ph"], e.get("cat")) for e in ev)

    # slices keyed by (pid, tid, ts)
    slices = {}
    for e in ev:
        if e["ph"] == "X":
            slices.setdefault((e["pid"], e["tid"], e["ts"]), []).append(e)

    def bound(e, cats_ok):
        for x in slices.get((e["pid"], e["tid"], e["ts"]), ()):
            if x.get("cat") in cats_ok:
                return x
        return None

    # ac2g
    s_by = collections.defaultdict(list)
    f_by = collections.defaultdict(list)
    for e in ev:
        if e["ph"] in "sf":
            (s_by if e["ph"] == "s" else f_by)[(e["cat"], e["id"])].append(e)
    gpu_cats = {"kernel", "gpu_memcpy", "gpu_memset"}
    n_pairs = n_f_only = 0
    for key, ss in s_by.items():
        if key[0] != "ac2g":
            continue
        ff = f_by.get(key, [])
        if len(ss) != 1 or len(ff) != 1:
            err("ac2g id %s: %d s / %d f" % (key[1], len(ss), len(ff)))
            continue
        rt = bound(ss[0], {"cuda_runtime"})
        g = bound(ff[0], gpu_cats)
        if rt is None or g is None:
            err("ac2g id %s does not bind (rt=%s gpu=%s)" % (key[1], rt is not None, g is not None))
            continue
        if not (rt["args"]["correlation"] == g["args"]["correlation"] == key[1]):
            err("ac2g id %s correlation mismatch" % key[1])
        if rt["args"]["External id"] != g["args"]["External id"]:
            err("ac2g id %s External id mismatch" % key[1])
        if rt["ts"] > g["ts"]:
            err("ac2g id %s: kernel starts before its launch" % key[1])
        n_pairs += 1
    for key, ff in f_by.items():
        if key[0] == "ac2g" and key not in s_by:
            n_f_only += 1
            if bound(ff[0], {"cuda_runtime"}) is None:
                err("ac2g f-only id %s not on a runtime call" % key[1])
    # fwdbwd
    n_fb = 0
    for key, ss in s_by.items():
        if key[0] != "fwdbwd":
            continue
        ff = f_by.get(key, [])
        if len(ss) != 1 or len(ff) != 1:
            err("fwdbwd id %s: %d s / %d f" % (key[1], len(ss), len(ff)))
            continue
        a = bound(ss[0], {"cpu_op"})
        b = bound(ff[0], {"cpu_op"})
        if a is None or b is None:
            err("fwdbwd id %s does not bind" % key[1])
            continue
        if a["args"].get("Sequence number") != b["args"].get("Sequence number"):
            err("fwdbwd id %s: sequence numbers differ" % key[1])
        if a["tid"] == b["tid"]:
            err("fwdbwd id %s: same thread" % key[1])
        n_fb += 1

    # python ids
    pyids = set()
    parents = []
    for e in ev:
        if e.get("cat") == "python_function":
            pid_ = e["args"]["Python id"]
            if pid_ in pyids:
                err("duplicate Python id %d" % pid_)
            pyids.add(pid_)
            parents.append(e["args"]["Python parent id"])
    missing = [p for p in parents if p is not None and p not in pyids]
    if missing:
        err("%d Python parent ids unresolved" % len(missing))
    if parents.count(None) != 1:
        err("%d root python frames" % parents.count(None))

    # external ids
    ext_ops = collections.Counter(e["args"]["External id"] for e in ev
                                  if e.get("cat") in ("cpu_op", "user_annotation"))
    dup = [k for k, v in ext_ops.items() if v > 1]
    if dup:
        err("%d duplicate External ids among cpu_op/user_annotation" % len(dup))
    for e in ev:
        if e.get("cat") in gpu_cats and e["args"]["External id"] not in ext_ops:
            err("GPU op External id %s has no cpu_op" % e["args"]["External id"])
            break

    # nesting per track
    tracks = collections.defaultdict(list)
    for e in ev:
        if e["ph"] == "X" and e.get("cat") not in ("Trace", "gpu_user_annotation"):
            t0 = int(e["ts"] * 1000 + 0.5)
            tracks[(e["pid"], e["tid"])].append((t0, -int(e["dur"] * 1000 + 0.5), e["name"]))
    n_overlap = 0
    for key, sl in tracks.items():
        sl.sort()
        stack = []
        for t0, negd, name in sl:
            t1 = t0 - negd
            while stack and stack[-1] <= t0:
                stack.pop()
            if stack and t1 > stack[-1] + 2:   # +2 ns: float rounding of the check itself
                n_overlap += 1
            stack.append(t1)
    if n_overlap:
        err("%d partially overlapping slices" % n_overlap)

    print("events=%d arg_pairs=%d bytes=%d bytes/event=%.1f args/event=%.2f"
          % (n, nargs, len(raw), len(text) / n, nargs / n))
    print("ac2g pairs=%d, ac2g f-only=%d, fwdbwd pairs=%d, python frames=%d, tracks=%d"
          % (n_pairs, n_f_only, n_fb, len(pyids), len(tracks)))
    for (ph, cat), c in sorted(cats.items(), key=lambda x: -x[1]):
        print("  %-3s %-22s %8d  %5.1f%%" % (ph, cat, c, 100.0 * c / n))
    print("header keys:", ", ".join(keys))
    if errors:
        print("FAILED: %d problems" % len(errors))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
