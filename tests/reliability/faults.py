#!/usr/bin/env python3
"""Fault injection (issue 6, part 5): full disk, unwritable output, input deleted or truncated
while it is read, SIGINT/SIGTERM mid-import.

    faults.py TRACESQL TRACES_DIR [--report FILE]

Every fault must end with a clear one-line message naming the file, a non-zero exit, no database
and no temporary file left behind, and an existing database at the target untouched (or, when the
fault came too late to matter, a complete database). Prints how many faults were injected.
"""
import argparse
import gzip
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, db_events, digest, leftovers, run, synthetic_trace  # noqa: E402
from truncation import expected  # noqa: E402

REAL = 'tracelens_h100_bert_small_infer.json.gz'
FULL = ('database or disk is full', 'cannot write', 'No space left')


def one_line(err):
    return err.count('\n') == 1 and err.startswith('tracesql: ')


class Faults:
    def __init__(self, tq, traces_dir, work):
        self.tq = tq
        self.work = work
        self.c = Checker('faults')
        self.real = os.path.join(traces_dir, REAL)
        if not os.path.exists(self.real):  # fall back to a synthetic trace
            self.real = os.path.join(work, 'real.json')
            synthetic_trace(self.real, 20000)
        self.keep = os.path.join(work, 'keep.db')
        small = os.path.join(work, 'small.json')
        with open(small, 'w') as f:
            f.write('{"traceEvents": [{"ph": "X", "name": "keep", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}')
        rc, _, err = run([tq, 'import', '-q', small, '-o', self.keep])
        assert rc == 0, err
        os.remove(small)
        self.keep_digest = digest(self.keep)
        self.base_files = sorted(os.listdir(work))

    def clean(self, what, extra=()):
        left = leftovers(self.work, self.base_files + list(extra))
        self.c.ok(not left, '%s: left behind %s' % (what, left))
        self.c.ok(digest(self.keep) == self.keep_digest, '%s: the existing database was modified' % what)

    def expect_failure(self, what, rc, err, patterns, extra=()):
        self.c.ok(rc is not None and rc != 0, '%s: exit status %s' % (what, rc))
        self.c.ok(one_line(err), '%s: not one line on stderr: %r' % (what, err))
        self.c.ok(any(p in err for p in patterns), '%s: message %r lacks %s' % (what, err.strip(), patterns))
        self.clean(what, extra)

    # -- Full disk -----------------------------------------------------------------------------
    def full_disk_pages(self):
        out = os.path.join(self.work, 'full.db')
        rc, _, err = run([self.tq, 'import', '-q', self.real, '-o', out])
        self.c.ok(rc == 0, 'reference import failed: %s' % err)
        import sqlite3
        con = sqlite3.connect(out)
        pages = con.execute('PRAGMA page_count').fetchone()[0]
        con.close()
        os.remove(out)
        limits = sorted(set([1, 2, 3, 4, 6, 8, 12, 16, 24, 32] + [pages * k // 16 for k in range(1, 16)] + [pages - 1]))
        limits = [p for p in limits if 0 < p < pages]
        for limit in limits:
            env = dict(os.environ, TRACESQL_TEST_MAX_PAGES=str(limit))
            what = 'max_page_count %d of %d' % (limit, pages)
            rc, _, err = run([self.tq, 'import', '-q', self.real, '-o', out], env=env)
            self.expect_failure(what, rc, err, ['full.db: cannot write database: database or disk is full'])
            rc, _, err = run([self.tq, 'import', '-q', '--force', self.real, '-o', self.keep], env=env)
            self.expect_failure(what + ' (--force onto an existing database)', rc, err, ['cannot write database'])
            self.c.count('full-disk faults (page limit)', 2)
        env = dict(os.environ, TRACESQL_TEST_MAX_PAGES=str(pages))
        rc, _, err = run([self.tq, 'import', '-q', self.real, '-o', out], env=env)
        self.c.ok(rc == 0, 'max_page_count = the pages needed (%d) should succeed: %s' % (pages, err))
        if os.path.exists(out):
            os.remove(out)

    def full_disk_tmpfs(self):
        mnt = os.path.join(self.work, 'mnt')
        os.mkdir(mnt)
        try:
            r = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], capture_output=True)
        except OSError:
            r = None
        if r is None or r.returncode != 0:
            print('faults: SKIP small tmpfs (mount not permitted here)')
            os.rmdir(mnt)
            return
        subprocess.run(['umount', mnt], check=True)
        try:
            for size in ('16k', '64k', '256k', '1m', '2m', '4m', '64m'):
                subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=' + size, 'tmpfs', mnt], check=True)
                try:
                    out = os.path.join(mnt, 'x.db')
                    rc, _, err = run([self.tq, 'import', '-q', self.real, '-o', out])
                    what = 'tmpfs of %s' % size
                    if rc == 0:
                        self.c.ok(db_events(out) > 0, what + ': empty database')
                        os.remove(out)
                    else:
                        self.c.ok(one_line(err) and 'x.db' in err and any(p in err for p in FULL),
                                  '%s: unclear error %r' % (what, err))
                        self.c.count('full-disk faults (tmpfs)')
                    self.c.ok(os.listdir(mnt) == [], '%s: left %s' % (what, os.listdir(mnt)))
                finally:
                    subprocess.run(['umount', mnt], check=True)
        finally:
            os.rmdir(mnt)

    def full_disk_ext4(self, big):
        """On ext4 the pages' scratch file becomes the database (fallocate moves its ranges): a
        small loop-mounted ext4 runs out at each step (scratch writes, the moves, SQLite's own
        pages); the larger ones must succeed, with nothing left behind either way. With 1 KB
        blocks a file cannot reach 4 TiB (where the second spill's pages start): that spill takes
        a file of its own and the pages are copied."""
        mnt = os.path.join(self.work, 'mnt4')
        img = os.path.join(self.work, 'ext4.img')
        os.mkdir(mnt)
        try:
            ok_count = 0
            for mb, block in ((6, 4096), (16, 4096), (28, 4096), (40, 4096), (48, 4096), (56, 4096),
                              (96, 4096), (16, 1024), (48, 1024), (96, 1024)):
                with open(img, 'wb') as f:
                    f.truncate(mb << 20)
                r = subprocess.run(['mkfs.ext4', '-q', '-F', '-b', str(block), img], capture_output=True)
                m = r.returncode == 0 and subprocess.run(['mount', '-o', 'loop', img, mnt], capture_output=True)
                if not m or m.returncode != 0:
                    print('faults: SKIP loop-mounted ext4 (mkfs.ext4 or mount not available here)')
                    return
                try:
                    out = os.path.join(mnt, 'x.db')
                    rc, _, err = run([self.tq, 'import', '-q', big, '-o', out])
                    what = 'ext4 of %d MB (%d-byte blocks)' % (mb, block)
                    if rc == 0:
                        self.c.ok(db_events(out) > 0, what + ': empty database')
                        r = subprocess.run(['sqlite3', out, 'PRAGMA integrity_check'], capture_output=True, text=True)
                        self.c.ok(r.stdout.strip() == 'ok', '%s: integrity_check %r' % (what, r.stdout))
                        os.remove(out)
                        ok_count += 1
                    else:
                        self.c.ok(one_line(err) and 'x.db' in err and any(p in err for p in FULL),
                                  '%s: unclear error %r' % (what, err))
                        self.c.count('full-disk faults (ext4)')
                    left = [n for n in os.listdir(mnt) if n != 'lost+found']
                    self.c.ok(left == [], '%s: left %s' % (what, left))
                finally:
                    subprocess.run(['umount', mnt], check=True)
            self.c.ok(ok_count >= 2, 'ext4: fewer than 2 imports succeeded (one per block size expected)')
        finally:
            if os.path.exists(img):
                os.remove(img)
            os.rmdir(mnt)

    # -- Unwritable output ---------------------------------------------------------------------
    def unwritable(self):
        ro = os.path.join(self.work, 'ro')
        os.mkdir(ro)
        os.chmod(ro, 0o555)
        trace = os.path.join(self.work, 'pub.json')
        shutil.copy(self.real, trace + '.gz')
        os.chmod(trace + '.gz', 0o644)
        os.chmod(self.work, 0o755)
        cmd = [self.tq, 'import', '-q', trace + '.gz', '-o', os.path.join(ro, 'x.db')]
        if os.geteuid() == 0:
            if not shutil.which('setpriv'):
                print('faults: SKIP unwritable directory as root (no setpriv)')
                cmd = None
            else:
                cmd = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] + cmd
        if cmd:
            rc, _, err = run(cmd)
            self.expect_failure('unwritable directory', rc, err, ['x.db: cannot create database: directory', 'not writable'],
                                extra=['ro', 'pub.json.gz'])
            self.c.ok(os.listdir(ro) == [], 'unwritable directory: files appeared in it')
            self.c.count('unwritable output faults')
        for target, pattern in ((os.path.join('/proc', 'tq-test.db'), 'tq-test.db'),
                                (os.path.join(trace + '.gz', 'x.db'), 'does not exist'),
                                (ro, 'is a directory')):
            rc, _, err = run([self.tq, 'import', '-q', trace + '.gz', '-o', target])
            self.expect_failure('output %s' % target, rc, err, [pattern], extra=['ro', 'pub.json.gz'])
            self.c.count('unwritable output faults')
        os.chmod(ro, 0o755)
        os.rmdir(ro)
        os.remove(trace + '.gz')

    # -- Input changing under the reader -------------------------------------------------------
    def input_deleted(self, big, rows):
        path = os.path.join(self.work, 'gone.json')
        out = os.path.join(self.work, 'gone.db')
        for delay in (0.0, 0.05, 0.2):
            shutil.copy(big, path)
            p = subprocess.Popen([self.tq, 'import', '-q', path, '-o', out], stderr=subprocess.PIPE)
            time.sleep(delay)
            os.remove(path)
            _, err = p.communicate(timeout=300)
            err = err.decode()
            what = 'input deleted after %.2f s' % delay
            if p.returncode == 0:
                # The open file stays readable after unlink: every event is there.
                self.c.ok(db_events(out) == rows, what + ': events missing')
                os.remove(out)
            else:
                self.expect_failure(what, p.returncode, err, ['gone.json: cannot read trace'])
            self.clean(what)
            self.c.count('input faults')

    def input_truncated_in_place(self, big, rows):
        path = os.path.join(self.work, 'shrink.json')
        out = os.path.join(self.work, 'shrink.db')
        size = os.path.getsize(big)
        for delay, keep in ((0.0, 3), (0.05, 2), (0.15, 2)):
            shutil.copy(big, path)
            p = subprocess.Popen([self.tq, 'import', '-q', path, '-o', out], stderr=subprocess.PIPE)
            time.sleep(delay)
            os.truncate(path, size // keep)
            _, err = p.communicate(timeout=300)
            err = err.decode()
            what = 'input truncated to 1/%d after %.2f s' % (keep, delay)
            if p.returncode == 0:
                n = db_events(out)
                import sqlite3
                con = sqlite3.connect(out)
                truncated = con.execute('SELECT truncated FROM traces').fetchone()[0]
                con.close()
                self.c.ok(0 < n <= rows, '%s: %d events of %d' % (what, n, rows))
                self.c.ok(truncated == (1 if n < rows else truncated), what + ': truncation not recorded')
                self.c.ok(n == rows or 'truncated' in err, what + ': no warning')
                os.remove(out)
            else:
                self.expect_failure(what, p.returncode, err, ['shrink.json'])
            os.remove(path)
            self.clean(what)
            self.c.count('input faults')

    def fifo_writer(self, fifo, data, hold=0.0, release=None):
        """Writes data into the pipe, then keeps it open for hold seconds, or until release (a
        threading.Event) is set, so that the reader blocks in read() instead of seeing the end."""
        def write():
            with open(fifo, 'wb') as f:
                f.write(data)
                f.flush()
                if release is not None:
                    release.wait(hold)
                else:
                    time.sleep(hold)
        t = threading.Thread(target=write)
        t.start()
        return t

    def input_fifo(self):
        raw = gzip.open(self.real, 'rb').read() if self.real.endswith('.gz') else open(self.real, 'rb').read()
        fifo = os.path.join(self.work, 'pipe.json')
        out = os.path.join(self.work, 'pipe.db')
        for frac, strict, compress in ((1.0, False, False), (0.6, False, False), (0.6, True, False), (0.6, False, True),
                                       (0.3, False, True)):
            os.mkfifo(fifo)
            data = gzip.compress(raw, mtime=0) if compress else raw
            cut = data[:int(len(data) * frac)]
            writer = self.fifo_writer(fifo, cut)
            cmd = [self.tq, 'import', '-q'] + (['--strict'] if strict else []) + [fifo, '-o', out]
            rc, _, err = run(cmd, timeout=300)
            writer.join()
            what = 'pipe ending at %d%% (%s%s)' % (frac * 100, 'gzip' if compress else 'plain', ', strict' if strict else '')
            prefix = (gzip.decompress(cut) if compress and frac == 1.0 else
                      __import__('zlib').decompressobj(31).decompress(cut) if compress else cut).decode('latin-1')
            stored, _, trunc_at, _, _ = expected(prefix)
            if frac < 1.0 and strict:
                self.expect_failure(what, rc, err, ['pipe.json', 'truncated'], extra=['pipe.json'])
            elif rc != 0:
                self.c.ok(False, '%s: import failed: %s' % (what, err.strip()))
            else:
                self.c.ok(db_events(out) == stored, '%s: %d events, expected %d' % (what, db_events(out), stored))
                self.c.ok((trunc_at is None and frac == 1.0) or 'truncated' in err, what + ': no truncation warning')
                os.remove(out)
            os.remove(fifo)
            self.clean(what)
            self.c.count('input faults')

    # -- Signals -------------------------------------------------------------------------------
    def signals(self, big, rows):
        t0 = time.time()
        out = os.path.join(self.work, 'ref.db')
        rc, _, err = run([self.tq, 'import', '-q', big, '-o', out])
        full = time.time() - t0
        self.c.ok(rc == 0, 'reference import: ' + err)
        os.remove(out)
        for sig in (signal.SIGINT, signal.SIGTERM):
            for frac in (0.1, 0.3, 0.5, 0.7, 0.85, 0.95):
                self.signal_once(big, rows, sig, full * frac, 'sig %d at %.0f%% of %.2f s' % (sig, frac * 100, full))
        # Twice: the second signal exits at once, still removing the temporary database.
        self.signal_once(big, rows, signal.SIGINT, full * 0.4, 'SIGINT twice', twice=True)
        # A pipe that stalls: the reader is blocked in read(); Ctrl-C must still stop promptly.
        fifo = os.path.join(self.work, 'stall.json')
        os.mkfifo(fifo)
        raw = open(big, 'rb').read()
        release = threading.Event()
        writer = self.fifo_writer(fifo, raw[:len(raw) // 3], hold=30, release=release)
        p = subprocess.Popen([self.tq, 'import', '-q', '--force', fifo, '-o', self.keep], stderr=subprocess.PIPE)
        time.sleep(1.0 + full / 3)
        t1 = time.time()
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=10)
            self.c.ok(time.time() - t1 < 5, 'stalled pipe: SIGINT took %.1f s' % (time.time() - t1))
            self.expect_failure('SIGINT while the input pipe stalls', p.returncode, err.decode(), ['interrupted'],
                                extra=['stall.json'])
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            self.c.ok(False, 'SIGINT while the input pipe stalls: the import hangs')
        self.c.count('signals sent')
        release.set()  # the import has ended: the writer need not hold the pipe for the rest of the 30 s
        writer.join()
        os.remove(fifo)

    def signal_once(self, big, rows, sig, delay, what, twice=False):
        p = subprocess.Popen([self.tq, 'import', '-q', '--force', big, '-o', self.keep], stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(sig)
        self.c.count('signals sent')
        if twice:
            time.sleep(0.01)
            p.send_signal(sig)
            self.c.count('signals sent')
        _, err = p.communicate(timeout=300)
        err = err.decode()
        if p.returncode == 0:
            # Finished before the signal was seen: the new database is complete.
            self.c.ok(db_events(self.keep) == rows, what + ': finished, but the database is incomplete')
            self.keep_digest = digest(self.keep)
            self.c.count('imports finished before the signal')
        elif p.returncode == -sig and digest(self.keep) != self.keep_digest:
            # Killed by the default action after the import had finished and restored the handlers
            # (the database was already renamed into place): it must be the complete new database.
            self.c.ok(db_events(self.keep) == rows, what + ': killed after the rename, but the database is incomplete')
            self.keep_digest = digest(self.keep)
            self.c.count('imports finished before the signal')
        elif p.returncode == -sig:
            # Killed before the handler was installed (first milliseconds): nothing may be left.
            self.clean(what)
            self.c.count('imports interrupted')
        else:
            self.c.count('imports interrupted')
            if twice and p.returncode == 130:
                self.c.ok('interrupted again' in err, '%s: message %r' % (what, err))
                self.clean(what)
            else:
                self.expect_failure(what, p.returncode, err, ['keep.db: interrupted; no database written'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tracesql')
    ap.add_argument('traces_dir')
    ap.add_argument('--events', type=int, default=int(os.environ.get('TQ_FAULTS_EVENTS', '200000')))
    ap.add_argument('--report')
    opts = ap.parse_args()
    work = tempfile.mkdtemp(prefix='tq_faults_')
    bigdir = tempfile.mkdtemp(prefix='tq_faults_big_')
    try:
        f = Faults(os.path.abspath(opts.tracesql), opts.traces_dir, work)
        big = os.path.join(bigdir, 'big.json')
        rows = synthetic_trace(big, opts.events)
        f.full_disk_pages()
        f.full_disk_tmpfs()
        f.full_disk_ext4(big)
        f.unwritable()
        f.input_deleted(big, rows)
        f.input_truncated_in_place(big, rows)
        f.input_fifo()
        f.signals(big, rows)
        return f.c.finish(opts.report)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(bigdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
