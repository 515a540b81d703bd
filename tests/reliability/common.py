"""Helpers shared by the reliability scripts (faults.py, concurrency.py)."""
import hashlib
import os
import sqlite3
import subprocess
import sys


class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.passes = 0
        self.counts = {}

    def ok(self, cond, what):
        if cond:
            self.passes += 1
        else:
            self.failures.append(what)
            print('FAIL: %s: %s' % (self.name, what), file=sys.stderr)
        return cond

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def finish(self, report=None):
        extra = ', '.join('%s %d' % kv for kv in sorted(self.counts.items()))
        line = '%s: %d checks passed, %d failed%s' % (self.name, self.passes, len(self.failures),
                                                      ('; ' + extra) if extra else '')
        print(line)
        if report:
            with open(report, 'a') as f:
                f.write(line + '\n')
        return 1 if self.failures else 0


def synthetic_trace(path, events, slices_per_op=3, gpu_every=100):
    """Writes a Kineto-like trace of about `events` events and returns the number of rows `events`
    will hold: CPU ops with args and nested child ops; every `gpu_every`-th op also launches a
    kernel (runtime call, kernel, ac2g flow), so the file is big while the GPU-side views stay
    cheap to build."""
    parts = []
    rows = 0
    ts = 1000
    corr = 1
    n = 0
    op = 0
    while n < events:
        op_ts = ts
        parts.append('{"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d, '
                     '"args": {"External id": %d, "Input Dims": [[%d, 64], [64, 64]], "Input type": ["float", "float"], '
                     '"Sequence number": %d}}' % (op % 50, op_ts, 10 * slices_per_op + 5, op, op % 128, op))
        rows += 1
        n += 1
        for k in range(slices_per_op):
            t = op_ts + 1 + 10 * k
            parts.append('{"ph": "X", "cat": "cpu_op", "name": "aten::child%d", "pid": 1, "tid": 1, "ts": %d, "dur": 8, '
                         '"args": {"External id": %d, "Input Dims": [[%d]], "Concrete Inputs": [""]}}' % (k, t, op, k))
            rows += 1
            n += 1
        if op % gpu_every == 0:
            t = op_ts + 2
            parts.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, '
                         '"dur": 5, "args": {"External id": %d, "correlation": %d, "cbid": 211}}' % (t, op, corr))
            parts.append('{"ph": "s", "id": %d, "pid": 1, "tid": 1, "ts": %d, "cat": "ac2g", "name": "ac2g"}' % (corr, t))
            parts.append('{"ph": "X", "cat": "kernel", "name": "kernel_%d", "pid": 0, "tid": 7, "ts": %d, "dur": 4, '
                         '"args": {"External id": %d, "correlation": %d, "device": 0, "stream": 7, '
                         '"grid": [128, 1, 1], "block": [256, 1, 1]}}' % (op % 7, t + 20, op, corr))
            parts.append('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %d, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                         % (corr, t + 20))
            rows += 2
            n += 4
            corr += 1
        op += 1
        ts += 10 * slices_per_op + 20
    parts.append('{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}}')
    with open(path, 'w') as f:
        f.write('{"schemaVersion": 1, "traceEvents": [\n')
        f.write(',\n'.join(parts))
        f.write('\n], "baseTimeNanoseconds": 1700000000000000000}\n')
    return rows


def digest(path):
    if not os.path.exists(path):
        return None
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def db_events(path):
    """Rows in events of a finished database (raises on a broken one)."""
    con = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    try:
        if con.execute('PRAGMA quick_check').fetchone()[0] != 'ok':
            raise RuntimeError('quick_check failed')
        return con.execute('SELECT count(*) FROM events').fetchone()[0]
    finally:
        con.close()


def leftovers(directory, allowed):
    return sorted(set(os.listdir(directory)) - set(allowed))


def run(cmd, timeout=300, env=None):
    r = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
    return r.returncode, r.stdout.decode('utf-8', 'replace'), r.stderr.decode('utf-8', 'replace')
