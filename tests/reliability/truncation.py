#!/usr/bin/env python3
"""Truncation sweep (issue 6, part 3): real traces cut short at many points.

    truncation.py TRACESQL TRACES_DIR [--points N] [--report FILE]

For each of three real traces (plain JSON and gzip), the file is cut at every 1/N of its length
(N = 50 by default) and at chosen places: inside a string, inside a number, inside args, after an
escape, right after an event, right after a comma, inside the header before and after
traceEvents. The gzip file is cut at every 1/N of its compressed length, and the JSON cut at the
chosen places is also gzip-compressed whole. Each cut file is imported twice:

  * plain `import`: either it succeeds, with exactly the complete events before the cut (counted
    and their X durations summed independently here, from the JSON text), traces.truncated = 1 and
    an import_stats truncated_at_byte row naming the first incomplete item, PRAGMA integrity_check
    ok; or, when no event is complete, it fails cleanly;
  * `import --strict`: it fails cleanly whenever the file is truncated.

"Cleanly" means: exit status 1, one line on stderr naming the file, no database and no temporary
file left in the directory, and an existing database at the target untouched. Every run has a
timeout, so a hang fails the test. Exit 0 when every cut behaves; the number of cuts tried is
printed (and written to --report).
"""
import argparse
import decimal
import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from decimal import Decimal

TRACES = ('torchproftut_h100_transformer_pt21.json.gz',    # pretty Kineto layout, integer ts
          'tracelens_h100_bert_small_infer.json.gz',       # single line (Python re-serialised)
          'hta_mi250_rocm62_minitoy_train.json.gz')        # ROCm, relative ts + baseTimeNanoseconds
TIMEOUT = 120
CTX = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN)
NOT_STORED = ('M', 's', 't', 'f', 'E')
DEC = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal)
WS = ' \t\r\n'


def skip_ws(p, i):
    while i < len(p) and p[i] in WS:
        i += 1
    return i


def complete_value(p, i):
    """End of the JSON value at p[i] if it is complete within p, else None. A bare scalar that
    reaches the end of p is incomplete (more digits could follow), as in the splitter."""
    try:
        value, end = DEC.raw_decode(p, i)
    except ValueError:
        return None, None
    if end >= len(p) and p[i] not in '"[{':
        return None, None
    return value, end


def expected(p):
    """What an import of the JSON prefix p must give: (events stored, sum of X dur in ns,
    truncated_at or None when p is a whole document, events read, object events read)."""
    i = skip_ws(p, 0)
    if i >= len(p):
        return 0, 0, len(p), 0, 0
    events = []
    truncated_at = None
    if p[i] == '[':
        shape, i = 'array', i + 1
        state = 'events'
    else:
        shape, i = 'object', i + 1
        state = 'key'
    while truncated_at is None:
        i = skip_ws(p, i)
        if i >= len(p):
            truncated_at = len(p)
            break
        c = p[i]
        if state == 'key':
            if c == '}':
                break
            if c == ',':
                i += 1
                continue
            start = i
            key, end = complete_value(p, i)
            if key is None:
                truncated_at = start
                break
            j = skip_ws(p, end)
            if j >= len(p):
                truncated_at = start
                break
            j = skip_ws(p, j + 1)  # ':'
            if j >= len(p):
                truncated_at = start
                break
            if key == 'traceEvents':
                i, state = j + 1, 'events'
                continue
            _, end = complete_value(p, j)
            if end is None:
                truncated_at = start
                break
            i = end
        else:
            if c == ']':
                i += 1
                if shape == 'array':
                    break
                state = 'key'
                continue
            if c == ',':
                i += 1
                continue
            ev, end = complete_value(p, i)
            if ev is None:
                truncated_at = i
                break
            events.append(ev)
            i = end
    stored = sum(1 for e in events if isinstance(e, dict) and e.get('ph') not in NOT_STORED)
    dur = sum(CTX.multiply(Decimal(e['dur']), 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN)
              for e in events if isinstance(e, dict) and e.get('ph') == 'X' and 'dur' in e)
    return stored, int(dur), truncated_at, len(events), sum(1 for e in events if isinstance(e, dict))


def special_points(text):
    """(label, offset) cut points inside strings, numbers, args, escapes, between events, header."""
    pts = []
    mid = len(text) // 2
    for label, needle, delta in (('inside a string', '"name": "', 3), ('inside a string', '"name":"', 3),
                                 ('inside a number', '"ts": ', 3), ('inside a number', '"ts":', 3),
                                 ('inside args', '"args": {', 5), ('inside args', '"args":{', 5),
                                 ('right after an event', '}, {', 1), ('right after an event', '},{', 1),
                                 ('right after a comma', '}, {', 2), ('right after a comma', '},{', 2),
                                 ('after an escape', '\\', 1)):
        k = text.find(needle, mid)
        if k > 0 and label not in (l for l, _ in pts):
            pts.append((label, k + len(needle) + delta - (len(needle) if needle == '\\' else 0)))
    k = text.find('"traceEvents"')
    if k > 10:
        pts.append(('inside the header before traceEvents', k // 2))
    close = text.rfind(']')
    if 0 < close < len(text) - 10:
        pts.append(('inside the header after traceEvents', (close + len(text)) // 2))
    pts.append(('one byte', 1))
    return pts


class Sweep:
    def __init__(self, tq, work):
        self.tq = tq
        self.work = work
        self.failures = []
        self.runs = 0
        self.cuts = 0
        self.partial = 0     # imports that kept the complete events of a truncated file
        self.refused = 0     # clean failures (nothing complete, or --strict)
        self.warned = 0      # truncation warnings whose counts were checked
        # An existing database at the target: strict failures must leave it untouched.
        self.keep = os.path.join(work, 'keep.db')

    def fail(self, what):
        self.failures.append(what)
        print('FAIL:', what, file=sys.stderr)

    def leftovers(self, allowed):
        return sorted(set(os.listdir(self.work)) - set(allowed))

    def run(self, args):
        self.runs += 1
        try:
            r = subprocess.run([self.tq] + args, capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, '', ''
        return r.returncode, r.stdout.decode('utf-8', 'replace'), r.stderr.decode('utf-8', 'replace')

    def check_cut(self, label, data, json_prefix, name, gzip_cut=False):
        """Imports one cut file (plain or gzip), non-strict then strict. gzip_cut: the compressed
        stream itself is cut, so the import is truncated even when the JSON happens to be whole."""
        self.cuts += 1
        path = os.path.join(self.work, name)
        with open(path, 'wb') as f:
            f.write(data)
        stored, dur_ns, trunc_at, read, objects = expected(json_prefix)
        if gzip_cut and trunc_at is None:
            trunc_at = len(json_prefix)
        db = os.path.join(self.work, 'out.db')
        allowed = [name, 'keep.db']
        # Plain import.
        rc, _, err = self.run(['import', '-q', path, '-o', db])
        if rc is None:
            self.fail('%s: import hangs (> %d s)' % (label, TIMEOUT))
        elif read == 0 and trunc_at is not None:
            if rc == 0:
                self.fail('%s: nothing complete, yet the import succeeded' % label)
            elif name not in err or err.count('\n') != 1:
                self.fail('%s: unclear error: %r' % (label, err))
            else:
                self.refused += 1
            left = self.leftovers(allowed)
            if left:
                self.fail('%s: failed import left %s' % (label, left))
        elif rc != 0:
            self.fail('%s: import failed: %s' % (label, err.strip()))
        else:
            self.check_db(label, db, stored, dur_ns, trunc_at, err, objects)
            if trunc_at is not None:
                self.partial += 1
            left = self.leftovers(allowed + ['out.db'])
            if left:
                self.fail('%s: import left %s' % (label, left))
        if os.path.exists(db):
            os.remove(db)
        # --strict onto an existing database (with --force): a truncated file must fail and leave
        # the existing database as it was.
        if trunc_at is not None:
            before = hashlib.sha256(open(self.keep, 'rb').read()).hexdigest()
            rc, _, err = self.run(['import', '-q', '--strict', '--force', path, '-o', self.keep])
            if rc is None:
                self.fail('%s: strict import hangs' % label)
            elif rc == 0:
                self.fail('%s: --strict accepted a truncated file' % label)
            elif name not in err or err.count('\n') != 1:
                self.fail('%s: strict: unclear error: %r' % (label, err))
            else:
                self.refused += 1
            after = hashlib.sha256(open(self.keep, 'rb').read()).hexdigest()
            if before != after:
                self.fail('%s: strict failure modified the existing database' % label)
            left = self.leftovers(allowed)
            if left:
                self.fail('%s: strict failure left %s' % (label, left))
        os.remove(path)

    def check_db(self, label, db, stored, dur_ns, trunc_at, err, objects):
        con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
        try:
            n = con.execute('SELECT count(*) FROM events').fetchone()[0]
            xd = con.execute("SELECT coalesce(sum(dur), 0) FROM events WHERE ph = 'X'").fetchone()[0]
            truncated = con.execute('SELECT truncated FROM traces').fetchone()[0]
            row = con.execute("SELECT value FROM import_stats WHERE name = 'truncated_at_byte'").fetchone()
            ok = con.execute('PRAGMA integrity_check').fetchone()[0]
        finally:
            con.close()
        if n != stored:
            self.fail('%s: %d events stored, expected %d' % (label, n, stored))
        if xd != dur_ns:
            self.fail('%s: X durations sum to %d ns, expected %d' % (label, xd, dur_ns))
        if ok != 'ok':
            self.fail('%s: integrity_check: %s' % (label, ok))
        if trunc_at is None:
            if truncated or row:
                self.fail('%s: complete file marked truncated' % label)
            return
        if truncated != 1 or row is None:
            self.fail('%s: truncation not recorded (truncated=%s, import_stats=%s)' % (label, truncated, row))
        elif row[0] != trunc_at:
            self.fail('%s: truncated_at_byte %d, expected %d' % (label, row[0], trunc_at))
        if 'truncated' not in err:
            self.fail('%s: no truncation warning on stderr' % label)
            return
        # The warning counts the complete trace events and, when some are not events rows
        # (metadata, flow and end events), the events rows, as the import's summary does.
        m = re.search(r'imported the (\d+) complete (trace )?events before it(?:: (\d+) events, the other (\d+) '
                      r'metadata, flow and end \(E\) events)?$', err.strip())
        if not m:
            self.fail('%s: truncation warning without its counts: %r' % (label, err))
            return
        read, rows = int(m.group(1)), int(m.group(3) or m.group(1))
        if read != objects or rows != stored or (m.group(3) is None) != (read == stored) or \
                (m.group(4) is not None and int(m.group(4)) != read - rows):
            self.fail('%s: warning says %d complete events, %d events; expected %d and %d: %r'
                      % (label, read, rows, objects, stored, err))
        else:
            self.warned += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tracesql')
    ap.add_argument('traces_dir')
    ap.add_argument('--points', type=int, default=int(os.environ.get('TQ_TRUNCATION_POINTS', '50')))
    ap.add_argument('--report')
    opts = ap.parse_args()
    work = tempfile.mkdtemp(prefix='tq_trunc_')
    sweep = Sweep(os.path.abspath(opts.tracesql), work)
    try:
        tiny = os.path.join(work, 'tiny.json')
        with open(tiny, 'w') as f:
            f.write('{"traceEvents": [{"ph": "X", "name": "keep", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}')
        subprocess.run([sweep.tq, 'import', '-q', tiny, '-o', sweep.keep], check=True)
        os.remove(tiny)
        for trace in TRACES:
            src = os.path.join(opts.traces_dir, trace)
            if not os.path.exists(src):
                print('truncation: %s missing, skipped' % src, file=sys.stderr)
                continue
            raw = gzip.open(src, 'rb').read()
            text = raw.decode('latin-1')  # one char per byte: offsets are byte offsets
            stem = trace.split('.')[0]
            gz = gzip.compress(raw, mtime=0)
            # Every 1/N of the plain file and of the gzip file.
            for k in range(1, opts.points):
                cut = len(raw) * k // opts.points
                sweep.check_cut('%s: plain cut at %d/%d (byte %d)' % (stem, k, opts.points, cut), raw[:cut], text[:cut],
                                stem + '.json')
                gcut = len(gz) * k // opts.points
                prefix = zlib.decompressobj(16 + 15).decompress(gz[:gcut]).decode('latin-1')
                sweep.check_cut('%s: gzip cut at %d/%d (compressed byte %d)' % (stem, k, opts.points, gcut), gz[:gcut],
                                prefix, stem + '.json.gz', gzip_cut=True)
            # Chosen places, plain and as a whole gzip of the cut JSON.
            for label, cut in special_points(text):
                sweep.check_cut('%s: plain cut %s (byte %d)' % (stem, label, cut), raw[:cut], text[:cut], stem + '.json')
                sweep.check_cut('%s: gzip of JSON cut %s (byte %d)' % (stem, label, cut), gzip.compress(raw[:cut], mtime=0),
                                text[:cut], stem + '.json.gz')
            # The gzip trailer missing: every event is there, the stream is cut.
            sweep.check_cut('%s: gzip without its trailer' % stem, gz[:-4], text, stem + '.json.gz', gzip_cut=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = ('truncation: %d cut files, %d imports: %d kept the complete events of a truncated file '
               '(%d warnings with the right counts), %d failed cleanly (nothing complete, or --strict); %d failures'
               % (sweep.cuts, sweep.runs, sweep.partial, sweep.warned, sweep.refused, len(sweep.failures)))
    print(summary)
    if opts.report:
        with open(opts.report, 'w') as f:
            f.write(summary + '\n')
    return 1 if sweep.failures else 0


if __name__ == '__main__':
    sys.exit(main())
