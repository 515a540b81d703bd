#!/usr/bin/env python3
"""Concurrent imports and readers (issue 6, part 7).

    concurrency.py TRACESQL [--report FILE]

Decided behaviour (docs/reliability.md):
  * two `tracesql import` runs to the same new file without --force: exactly one wins, the other
    fails cleanly with "database already exists" (the final rename refuses to replace a file that
    appeared meanwhile), leaving nothing behind;
  * with --force both succeed, each replacing the file atomically: the last rename wins and the
    file is always one complete import;
  * a reader opening the database during imports sees no database (before the first import ends)
    or a complete one, never a partial one: the database is built under a temporary name and
    renamed into place when complete. Readers: two Python sqlite3 threads polling, `tracesql
    query`, and, where the shell exists, `tracesql shell DB` and two `tracesql TRACE.json`
    shortcuts started at once.
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, db_events, leftovers, synthetic_trace  # noqa: E402


def has_shell(tq):
    r = subprocess.run([tq, 'shell', '--help'], capture_output=True)
    return r.returncode == 0


def start(tq, args):
    return subprocess.Popen([tq, 'import', '-q'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(p):
    out, err = p.communicate(timeout=600)
    return p.returncode, err.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tracesql')
    ap.add_argument('--events', type=int, default=int(os.environ.get('TQ_CONCURRENCY_EVENTS', '60000')))
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--report')
    opts = ap.parse_args()
    tq = os.path.abspath(opts.tracesql)
    c = Checker('concurrency')
    work = tempfile.mkdtemp(prefix='tq_conc_')
    try:
        a, b = os.path.join(work, 'a.json'), os.path.join(work, 'b.json')
        rows = {synthetic_trace(a, opts.events), synthetic_trace(b, opts.events // 2)}
        inputs = ['a.json', 'b.json']
        db = os.path.join(work, 'out.db')

        # Without --force: one wins, the other fails cleanly.
        for r in range(opts.rounds):
            p1, p2 = start(tq, [a, '-o', db]), start(tq, [b, '-o', db])
            (rc1, e1), (rc2, e2) = finish(p1), finish(p2)
            what = 'round %d without --force' % r
            c.ok(sorted([rc1, rc2]) == [0, 1], '%s: exit statuses %d and %d (%r %r)' % (what, rc1, rc2, e1, e2))
            loser = e1 if rc1 else e2
            c.ok('out.db: database already exists' in loser and loser.count('\n') == 1, '%s: loser said %r' % (what, loser))
            c.ok(db_events(db) in rows, what + ': the database is not one complete import')
            c.ok(leftovers(work, inputs + ['out.db']) == [], '%s: left %s' % (what, leftovers(work, inputs + ['out.db'])))
            c.count('races without --force')
            if 'meanwhile' in loser:
                c.count('losers caught at the final rename')
            os.remove(db)

        # With --force: both succeed, last rename wins; readers poll the file all along.
        seen = {'missing': 0, 'complete': 0}
        bad = []
        stop = threading.Event()
        first_done = threading.Event()

        def reader():
            while not stop.is_set():
                try:
                    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
                except sqlite3.OperationalError:
                    if first_done.is_set():
                        bad.append('the database vanished after an import finished')
                    seen['missing'] += 1
                    continue
                try:
                    n = con.execute('SELECT count(*) FROM events').fetchone()[0]
                    if n in rows:
                        seen['complete'] += 1
                    else:
                        bad.append('a reader saw %d events' % n)
                except sqlite3.DatabaseError as e:
                    if 'unable to open' in str(e) and not first_done.is_set():
                        seen['missing'] += 1
                    else:
                        bad.append('a reader got %s' % e)
                finally:
                    con.close()

        threads = [threading.Thread(target=reader) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            for r in range(opts.rounds):
                p1, p2 = start(tq, ['--force', a, '-o', db]), start(tq, ['--force', b, '-o', db])
                (rc1, e1), (rc2, e2) = finish(p1), finish(p2)
                first_done.set()
                what = 'round %d with --force' % r
                c.ok(rc1 == 0 and rc2 == 0, '%s: exit statuses %d and %d (%r %r)' % (what, rc1, rc2, e1, e2))
                c.ok(db_events(db) in rows, what + ': the database is not one complete import')
                c.ok(leftovers(work, inputs + ['out.db']) == [], '%s: left %s' % (what, leftovers(work, inputs + ['out.db'])))
                c.count('races with --force')
                # The CLI as a reader too.
                q = subprocess.run([tq, 'query', db, 'SELECT count(*) FROM events', '--format', 'csv'], capture_output=True)
                c.ok(q.returncode == 0 and int(q.stdout.decode().split()[-1]) in rows, what + ': tracesql query failed')
        finally:
            stop.set()
            for t in threads:
                t.join()
        # The shell, where it exists: `tracesql shell DB` reading during --force imports, and two
        # `tracesql TRACE.json` shortcuts (import next to the trace, then the shell) at once.
        if has_shell(tq):
            for r in range(opts.rounds):
                p1 = start(tq, ['--force', a if r % 2 else b, '-o', db])
                sh = subprocess.run([tq, 'shell', '--no-header', db], input=b'SELECT count(*) FROM events;\n',
                                    capture_output=True, timeout=600)
                rc1, e1 = finish(p1)
                c.ok(rc1 == 0, 'shell round %d: import failed: %s' % (r, e1))
                out = sh.stdout.decode().strip()
                c.ok(sh.returncode == 0 and out.isdigit() and int(out) in rows,
                     'shell round %d: reader got %r %r' % (r, out, sh.stderr.decode()))
                c.count('shell reads during imports')
            short = os.path.join(work, 'short.json')
            shutil.copy(a, short)
            procs = [subprocess.Popen([tq, short], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for _ in range(2)]
            outs = [p.communicate(b'SELECT count(*) FROM events;\n', timeout=600) for p in procs]
            for p, (out, err) in zip(procs, outs):
                text = out.decode().split()
                c.ok(p.returncode == 0 and text and text[-1].isdigit() and int(text[-1]) in rows,
                     'two shortcuts at once: %r %r' % (out.decode(), err.decode()))
            c.ok(leftovers(work, inputs + ['out.db', 'short.json', 'short.db']) == [],
                 'shortcuts left %s' % leftovers(work, inputs + ['out.db', 'short.json', 'short.db']))
            c.count('shortcut races')
        c.ok(not bad, 'readers: ' + '; '.join(sorted(set(bad))[:5]))
        c.ok(seen['complete'] > 0, 'readers never saw the database')
        c.count('reader opens', seen['missing'] + seen['complete'])
        return c.finish(opts.report)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
