#!/usr/bin/env python3
"""tracesql report on bad input, the datasets it shares with the advisor, and --format bar / .mode bar
against golden outputs.

usage: cli_test.py TRACESQL SAMPLE_TRACE GROUP [--update]     (GROUP: errors | shared | bar | devices)
Golden outputs live in tests/report/golden/; --update rewrites them (check the diff by eye).
"""
import difflib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TQ, SAMPLE, GROUP = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
UPDATE = '--update' in sys.argv
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def run(*args, env=None, stdin=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith('LC_') and k != 'LANG'}
    e.update(HOME=WORK, LC_ALL='C.UTF-8')
    e.update(env or {})
    return subprocess.run([TQ] + list(args), input=stdin, capture_output=True, text=True, env=e, cwd=cwd or WORK,
                          timeout=120)


def listing(d):
    return sorted(os.listdir(d))


def fails(pattern, *args):
    """tracesql ARGS fails with exit 1 and one stderr line containing pattern."""
    p = run(*args)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 1, '%s: exit %d, expected 1' % (' '.join(args), p.returncode))
    check(len(lines) == 1 and pattern in lines[0], '%s: stderr %r lacks %r on one line' % (' '.join(args), p.stderr, pattern))


def test_errors():
    db = os.path.join(WORK, 'trace.db')
    check(run('import', '-q', SAMPLE, '-o', db).returncode == 0, 'import the sample')
    out_dir = os.path.join(WORK, 'out')
    os.makedirs(out_dir)
    # Not a tracesql database: a plain SQLite file.
    other = os.path.join(out_dir, 'other.db')
    con = sqlite3.connect(other)
    con.execute('CREATE TABLE t(x)')
    con.commit()
    con.close()
    before = listing(out_dir)
    fails('not a tracesql database', 'report', other, '-o', os.path.join(out_dir, 'r.html'))
    check(listing(out_dir) == before, 'nothing left behind after a non-tracesql database: %s' % listing(out_dir))
    # Neither a trace nor a database.
    txt = os.path.join(out_dir, 'notes.txt')
    with open(txt, 'w') as f:
        f.write('hello\n')
    before = listing(out_dir)
    fails('neither a trace', 'report', txt, '-o', os.path.join(out_dir, 'r.html'))
    check(listing(out_dir) == before, 'nothing left behind after a text file')
    # Unwritable output: a directory that does not exist, and one that cannot hold files (/proc).
    fails('cannot write the report', 'report', db, '-o', os.path.join(out_dir, 'missing', 'r.html'))
    fails('cannot write', 'report', db, '-o', '/proc/tq-report.html')
    check(listing(out_dir) == before, 'nothing left behind after an unwritable output')
    # An existing output is refused without --force and left as it was; replaced with it.
    html = os.path.join(out_dir, 'r.html')
    with open(html, 'w') as f:
        f.write('mine\n')
    fails('exists (use --force', 'report', db, '-o', html)
    check(open(html).read() == 'mine\n', 'existing output untouched without --force')
    p = run('report', db, '-o', html, '--force')
    check(p.returncode == 0 and open(html).read().startswith('<!DOCTYPE html>'), 'existing output replaced with --force')
    check(listing(out_dir) == before + ['r.html'] or sorted(before + ['r.html']) == listing(out_dir),
          'no temporary file left: %s' % listing(out_dir))
    # Never an input, even with --force: the database, or the trace.
    size = os.path.getsize(db)
    fails('is an input of this report', 'report', db, '-o', db, '--force')
    check(os.path.getsize(db) == size and run('query', db, 'SELECT count(*) FROM traces').returncode == 0,
          'the database is intact')
    trace_copy = os.path.join(out_dir, 'copy.json.gz')
    shutil.copy(SAMPLE, trace_copy)
    fails('is an input of this report', 'report', trace_copy, '-o', trace_copy, '--force')
    with open(trace_copy, 'rb') as a, open(SAMPLE, 'rb') as b:
        check(a.read() == b.read(), 'the trace is intact')
    # An unwritable output is refused before a trace is imported for it.
    fails('cannot write the report', 'report', trace_copy, '-o', os.path.join(out_dir, 'missing', 'r.html'))
    check(not os.path.exists(os.path.join(out_dir, 'copy.db')), 'no import for an output that cannot be written')
    # An output that is a directory.
    fails('is a directory', 'report', db, '-o', out_dir)
    # A trace: imported next to itself as `tracesql TRACE` does, then the report.
    p = run('report', trace_copy, '-o', os.path.join(out_dir, 'from_trace.html'))
    check(p.returncode == 0, 'report of a trace: %s' % p.stderr)
    check(os.path.exists(os.path.join(out_dir, 'copy.db')), 'the trace was imported next to itself (copy.db)')
    # Several traces: one database named after the report.
    p = run('report', SAMPLE, trace_copy, '-o', os.path.join(out_dir, 'two.html'))
    check(p.returncode == 0, 'report of two traces: %s' % p.stderr)
    p2 = run('query', os.path.join(out_dir, 'two.db'), 'SELECT count(*) FROM traces', '--format', 'csv', '--no-header')
    check(p2.stdout.strip() == '2', 'two.db holds both traces: %r' % p2.stdout)
    # The shell's .report: written once, refused a second time without --force, then replaced.
    shell_html = os.path.join(out_dir, 'shell.html')
    p = run('shell', db, stdin='.report %s\n.report %s\n.report %s --force\n' % ((shell_html,) * 3))
    check(os.path.exists(shell_html) and open(shell_html).read().startswith('<!DOCTYPE html>'), '.report wrote the page')
    check(p.stderr.count('wrote ') == 2 and 'exists (use --force' in p.stderr, '.report: %r' % p.stderr)
    # An old database (schema version below this tracesql's) is refused with advice.
    old = os.path.join(out_dir, 'old.db')
    shutil.copy(db, old)
    con = sqlite3.connect(old)
    version = con.execute('PRAGMA user_version').fetchone()[0]
    con.execute('PRAGMA user_version = %d' % (version - 1))
    con.commit()
    con.close()
    p = run('report', old, '-o', os.path.join(out_dir, 'old.html'))
    check(p.returncode == 1 and 'import the trace again' in p.stderr.splitlines()[-1], 'old database refused: %r' % p.stderr)
    check(not os.path.exists(os.path.join(out_dir, 'old.html')), 'no report for an old database')


def golden(name, actual):
    path = os.path.join(HERE, 'golden', name)
    if UPDATE:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(actual)
        return
    with open(path, encoding='utf-8', newline='') as f:
        expected = f.read()
    if expected != actual:
        diff = ''.join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), name, 'actual'))
        check(False, 'output differs from golden/%s:\n%s' % (name, diff))


def test_bar():
    db = os.path.join(WORK, 'trace.db')
    check(run('import', '-q', SAMPLE, '-o', db).returncode == 0, 'import the sample')
    formats = os.path.join(HERE, '..', 'shell', 'formats.sql')
    cases = [
        ('bar.formats', ['query', db, '-f', formats, '--format', 'bar'], None, None),
        ('bar.top_kernels', ['run', db, 'top_kernels', '-p', 'limit=8', '--format', 'bar'], None, None),
        ('bar.top_kernels.ascii', ['run', db, 'top_kernels', '-p', 'limit=8', '--format', 'bar'], {'LC_ALL': 'C'}, None),
        ('bar.gpu_utilization', ['run', db, 'gpu_utilization', '-p', 'buckets=100', '--format', 'bar'], None, None),
        ('bar.shell', ['shell', db], None,
         '.mode bar\nSELECT cause, sum(dur) AS idle_ns FROM idle_gaps GROUP BY cause ORDER BY cause;\n'
         '.run launch_delay_histogram\n'),
    ]
    for name, args, env, stdin in cases:
        p = run(*args, env=env, stdin=stdin)
        check(p.returncode == 0, '%s: exit %d: %s' % (name, p.returncode, p.stderr))
        golden(name, p.stdout)
    ascii_out = run('run', db, 'top_kernels', '--format', 'bar', env={'LC_ALL': 'C'}).stdout
    check(all(ord(ch) < 128 for ch in ascii_out), 'bar output is ASCII when the locale is not UTF-8')


def page_datasets(html):
    text = open(html, encoding='utf-8').read()
    start = text.index('id="tq-data">') + len('id="tq-data">')
    return json.loads(text[start:text.index('</script>', start)])['datasets']


def same_value(page, printed):
    """A page value against `tracesql run --format json`'s: integers beyond 2^53 are exact strings on
    the page."""
    if isinstance(page, str) and isinstance(printed, int) and not isinstance(printed, bool):
        return page == str(printed)
    return type(page) is type(printed) and page == printed


def test_shared():
    """The datasets whose query some advise rule runs with the same parameters (its `-- uses:`) are
    read from the advisor's result (source 'advise') instead of run again, and equal, column for
    column and row for row, what the page's `tracesql run` line prints; the others run as before."""
    ranks = os.path.join(HERE, '..', 'golden', 'q_collective_ranks')
    cases = [
        # Four ranks with collectives: exposed_comm uses comm_overlap per_step=0 (the page's
        # parameters), stragglers uses collectives limit=-1 (the page's default); no memory events,
        # so memory_near_limit does not run and memory_peak runs for the page.
        ('ranks', [os.path.join(ranks, 'trace%d.json' % i) for i in range(1, 5)], {'comm', 'collectives'}),
        # One rank: stragglers does not run (it needs two traces), so collectives runs for the page.
        ('sample', [SAMPLE], {'comm'}),
    ]
    for name, inputs, shared in cases:
        db = os.path.join(WORK, name + '.db')
        html = os.path.join(WORK, name + '.html')
        check(run('import', '-q', *inputs, '-o', db).returncode == 0, '%s: import' % name)
        p = run('report', db, '-o', html)
        check(p.returncode == 0, '%s: report: %s' % (name, p.stderr))
        data = page_datasets(html)
        got = {k for k, d in data.items() if d.get('source') == 'advise'}
        check(got == shared, '%s: datasets read from the advisor %s, expected %s' % (name, sorted(got), sorted(shared)))
        for key in ('comm', 'collectives', 'coll_ranks', 'memory_peak'):
            d = data[key]
            check('error' not in d, '%s: %s: %s' % (name, key, d.get('error')))
            args = shlex.split(d['command'])
            out = run(*args[1:], '--format', 'json')
            check(out.returncode == 0, '%s: %s: %s' % (name, d['command'], out.stderr))
            printed = json.loads(out.stdout) if out.stdout.strip() else []
            if printed:
                check(d['columns'] == list(printed[0].keys()), '%s: %s columns %s, printed %s' %
                      (name, key, d['columns'], list(printed[0].keys())))
            check(len(d['rows']) == len(printed), '%s: %s has %d rows, printed %d' % (name, key, len(d['rows']), len(printed)))
            for i, (row, want) in enumerate(zip(d['rows'], printed)):
                ok = all(same_value(v, want.get(c)) for c, v in zip(d['columns'], row))
                check(ok, '%s: %s row %d: page %s, printed %s' % (name, key, i, row, want))
        check(len(data['comm']['rows']) > 0, '%s: comm_overlap has rows' % name)
    check(len(page_datasets(os.path.join(WORK, 'ranks.html'))['collectives']['rows']) == 5, 'ranks: 5 collectives')


def test_devices():
    """The per-device series shrink with the devices (ReportDatasetsFor): a 20-rank job's page runs
    gpu_utilization, memory_timeline and collective_ranks with 3200/20, 6400/20 and 1600/20, the
    sample's one device keeps 200, 400 and 100 (and needs no choice of devices), and the page of the job's partition directory
    (import --partitioned) runs them with the merged database's parameters; the page's rows are what
    its `tracesql run` line prints. The page draws the charts of the 16 devices worst_devices ranks
    worst: the job's straggler (slow rank 18, beyond the first 16 traces) first, on both pages; in
    Chromium, when there is one, every per-device section draws those, rank 18's first."""
    gen = os.path.join(HERE, '..', '..', 'bench', 'gen_trace.py')
    slow = 18
    subprocess.run([sys.executable, gen, '--ranks', '20', '--slow-rank', str(slow), '--steps', '2', '--layers', '2',
                    '--hidden', '64', '--seqlen', '16', '--batch', '1', '--vocab', '128', '--compact', '-q',
                    '-o', os.path.join(WORK, 'rank{rank}.json')], check=True, stderr=subprocess.DEVNULL)
    ranks = [os.path.join(WORK, 'rank%d.json' % r) for r in range(20)]
    p = run('import', '-q', *ranks, '-o', 'job.db')
    check(p.returncode == 0, 'import: %s' % p.stderr)
    p = run('import', '-q', '--partitioned', *ranks, '-o', 'job')
    check(p.returncode == 0, 'import --partitioned: %s' % p.stderr)
    want = {'util': ' -p buckets=160', 'memory': ' -p points=320', 'coll_ranks': ' -p top=80', 'devices': ' -p limit=16'}
    few = {'util': ' -p buckets=200', 'memory': ' -p points=400', 'coll_ranks': ' -p top=100'}
    p = run('import', '-q', SAMPLE, '-o', 'one.db')
    check(p.returncode == 0, 'import: %s' % p.stderr)
    pages = {}
    for db, params in (('job.db', want), ('job', want), ('one.db', few)):
        p = run('report', db, '-o', db + '.html', '--force')
        check(p.returncode == 0, 'report %s: %s' % (db, p.stderr))
        data = pages[db] = page_datasets(os.path.join(WORK, db + '.html'))
        for key, tail in params.items():
            command = data[key]['command']
            check(command.endswith(tail), '%s: %s: %r does not end with %r' % (db, key, command, tail))
    check('devices' not in pages['one.db'], 'one device: every device drawn, worst_devices not run')
    # The partition directory's reproduce lines carry the merged database's parameters.
    for key in pages['job.db']:
        if key == 'findings':
            continue
        a, b = pages['job.db'][key]['command'], pages['job'][key]['command']
        check(a.replace('job.db', 'job', 1) == b, '%s: the partition directory\'s line %r, the database\'s %r' % (key, b, a))
    data = pages['job.db']
    util = data['util']
    out = run(*shlex.split(util['command'])[1:], '--format', 'json')
    printed = json.loads(out.stdout)
    check(len(util['rows']) == len(printed) > 0, 'util: page %d rows, printed %d' % (len(util['rows']), len(printed)))
    devices = {(r['trace_id'], r['device']) for r in printed}
    check(len(devices) == 20, 'util: 20 devices, got %d' % len(devices))
    check(all(sum(1 for r in printed if (r['trace_id'], r['device']) == dv) <= 160 for dv in devices), 'util: at most 160 buckets a device')
    # The devices the charts draw: worst_devices' 16, the straggler first, the same over the partitions.
    for db in ('job.db', 'job'):
        wd = pages[db]['devices']
        check('error' not in wd and 'unavailable' not in wd, '%s: worst_devices: %s' % (db, wd.get('error') or wd.get('unavailable')))
        rows = [dict(zip(wd['columns'], r)) for r in wd['rows']]
        check(len(rows) == 16, '%s: worst_devices: 16 devices, got %d' % (db, len(rows)))
        check(rows and rows[0]['rank'] == slow and rows[0]['trace_id'] == slow + 1 and rows[0]['straggler_skew_ns']
              and rows[0]['reason'].startswith('straggler'),
              '%s: worst_devices names the straggler rank %d first: %s' % (db, slow, rows[:1]))
        check(all(r['straggler_skew_ns'] is None for r in rows[1:]), '%s: one straggler' % db)
        busy = [r['busy_pct'] for r in rows[1:]]
        check(busy == sorted(busy), '%s: then the lowest GPU busy share first: %s' % (db, busy))
        out = run(*shlex.split(wd['command'])[1:], '--format', 'json')
        printed = json.loads(out.stdout or '[]')
        check(len(printed) == len(rows) and all(same_value(r[c], p.get(c)) for r, p in zip(rows, printed) for c in wd['columns']),
              '%s: worst_devices: the page\'s rows are what %r prints' % (db, wd['command']))
    check(pages['job']['devices']['rows'] == pages['job.db']['devices']['rows'], 'worst_devices: the same over the partitions')
    every = json.loads(run('run', 'job.db', 'worst_devices', '-p', 'limit=-1', '--format', 'json').stdout)
    check(len(every) == 20 and [r['pick'] for r in every] == list(range(1, 21)), 'worst_devices -p limit=-1 ranks every device')
    chromium = shutil.which('chromium') or shutil.which('chromium-browser')
    if not chromium:
        print('ok (no Chromium: the drawn devices not checked)')
        return
    sys.path.insert(0, HERE)
    import cdp
    browser = cdp.Browser()
    try:
        for db in ('job.db', 'job'):
            browser.open('file://' + os.path.join(WORK, db + '.html'))
            events = browser.drain()
            bad = [e for e in events if e.get('method') == 'Runtime.exceptionThrown' or
                   (e.get('method') == 'Log.entryAdded' and e['params']['entry'].get('level') == 'error') or
                   (e.get('method') == 'Runtime.consoleAPICalled' and e['params'].get('type') == 'error')]
            check(not bad, '%s: console clean: %s' % (db, bad[:2]))
            wd = pages[db]['devices']
            chosen = ['%s/%s' % (r[wd['columns'].index('trace_id')], r[wd['columns'].index('device')]) for r in wd['rows']]
            got = browser.eval("""[...document.querySelectorAll('p.note[data-chosen]')].map((p) => [p.closest('section').id,
                p.dataset.chosen, p.dataset.devices, p.textContent,
                [...p.closest('section').querySelectorAll('h3')].map((x) => x.textContent)])""")
            sections = {g[0] for g in got}
            check({'overview', 'utilization', 'steps', 'idle'} <= sections, '%s: the per-device sections say which devices they draw: %s' % (db, sorted(sections)))
            for sid, ids, n, text, heads in got:
                ids = ids.split(' ')
                if sid == 'launch':
                    check([i.split('/')[0] for i in ids] == [c.split('/')[0] for c in chosen], '%s: %s draws %s' % (db, sid, ids))
                elif sid != 'memory':
                    check(ids == chosen, '%s: %s draws worst_devices\' devices in its order: %s, expected %s' % (db, sid, ids, chosen))
                check(n == '20' and 'rank %d (straggler)' % slow in text and 'worst_devices -p limit=-1' in text,
                      '%s: %s: the note names the straggler and the line ranking every device: %r' % (db, sid, text))
                if sid in ('utilization', 'steps', 'idle'):
                    check(heads and heads[0].startswith('trace %d ' % (slow + 1)), '%s: %s: the first chart is the straggler\'s: %s' % (db, sid, heads[:2]))
            listed = browser.eval("[...document.querySelectorAll('#overview table.data[data-dataset=\"devices\"] tbody tr')].length")
            check(listed == 16, '%s: Overview lists the 16 devices with their reason: %s' % (db, listed))
    finally:
        browser.close()


WORK = tempfile.mkdtemp(prefix='tq_report_cli_')
try:
    {'errors': test_errors, 'shared': test_shared, 'bar': test_bar, 'devices': test_devices}[GROUP]()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
if failures:
    print('%d failures' % len(failures))
    sys.exit(1)
print('ok')
