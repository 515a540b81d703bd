#!/usr/bin/env python3
"""End-to-end tests of the shell, `tracesql query`, `tracesql run` and `tracesql queries` (issue 4).

Usage: shell_test.py --tracesql BIN [--sample TRACE] [--update] GROUP

Each GROUP is one CTest test (tests/shell/tests.cmake). The shell is driven as a user drives it: through
stdin for batch mode, and under a pseudo-terminal (the stdlib pty module) for the interactive REPL.
Golden outputs live in tests/shell/golden/; --update rewrites them (check the diff by eye).
Exit status: 0 pass, 1 fail, 77 skipped (CTest SKIP_RETURN_CODE).
"""
import argparse
import csv
import fcntl
import io
import json
import os
import pty
import re
import select
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FORMATS = ['box', 'table', 'csv', 'tsv', 'json', 'jsonl', 'markdown', 'line', 'folded']
SKIP = 77


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Ctx:
    def __init__(self, tracesql, sample, update, work):
        self.tq = tracesql
        self.sample = sample
        self.update = update
        self.work = work
        home = os.path.join(work, 'home')
        os.makedirs(home, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ('TRACESQL_QUERIES', 'TRACESQL_HISTORY', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME')}
        self.env.update(HOME=home, LC_ALL='C.UTF-8', TERM='xterm')
        # Sanitizer builds: libedit's own leaks are not ours (see lsan.supp).
        lsan = self.env.get('LSAN_OPTIONS', '')
        self.env['LSAN_OPTIONS'] = (lsan + ':' if lsan else '') + 'suppressions=' + os.path.join(HERE, 'lsan.supp')
        self._db = None

    def run(self, *args, stdin=None, env=None, cwd=None, command=None):
        """command: what runs instead of the tracesql under test (e.g. it behind setpriv)."""
        e = dict(self.env)
        if env:
            e.update(env)
        p = subprocess.run((command or [self.tq]) + list(args), input=stdin.encode() if isinstance(stdin, str) else stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=cwd or self.work, timeout=60)
        p.out = p.stdout.decode('utf-8', 'replace')
        p.err = p.stderr.decode('utf-8', 'replace')
        return p

    def ok(self, *args, **kw):
        p = self.run(*args, **kw)
        if p.returncode != 0:
            raise Failure('tracesql %s: exit %d\n%s' % (' '.join(args), p.returncode, p.err))
        return p

    def fails(self, pattern, *args, **kw):
        """Runs tracesql expecting a non-zero exit and one stderr line matching pattern."""
        p = self.run(*args, **kw)
        check(p.returncode != 0, 'tracesql %s: expected failure, got exit 0' % ' '.join(args))
        check(re.search(pattern, p.err), 'tracesql %s: stderr %r lacks /%s/' % (' '.join(args), p.err, pattern))
        return p

    def db(self):
        """A tracesql database of fixtures/tiny.json (imported once per group)."""
        if not self._db:
            self._db = os.path.join(self.work, 'tiny.db')
            self.ok('import', '-q', os.path.join(HERE, 'fixtures', 'tiny.json'), '-o', self._db)
        return self._db


def golden(ctx, name, actual):
    path = os.path.join(HERE, 'golden', name)
    if ctx.update:
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(actual)
        return
    with open(path, encoding='utf-8', newline='') as f:
        expected = f.read()
    if expected != actual:
        import difflib
        diff = ''.join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            'golden/' + name, 'actual'))
        raise Failure('output differs from golden/%s:\n%s' % (name, diff))


def json_documents(text):
    """The JSON values in text, one after another (results of several statements)."""
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)


# ---------------------------------------------------------------------------------------------------
def test_formats(ctx):
    """Golden output of every format: NULL, unicode, quotes/newlines/commas, huge integers, empty result."""
    db = ctx.db()
    sql = os.path.join(HERE, 'formats.sql')
    outs = {}
    for fmt in FORMATS:
        p = ctx.ok('query', db, '-f', sql, '--format', fmt)
        outs[fmt] = p.out
        golden(ctx, 'formats.' + fmt, p.out)
    # json: two documents, valid JSON, values exact; blobs base64.
    docs = json_documents(outs['json'])
    check(len(docs) == 2 and docs[1] == [], 'json: expected two arrays, the second empty: %r' % docs)
    rows = docs[0]
    check([r['id'] for r in rows] == [1, 2, 3, 4], 'json ids')
    check(rows[1]['txt'] == 'ünïcödé 日本語 🙂', 'json unicode')
    check(rows[2]['txt'] == 'quote " comma , pipe | tab\tend\nline 2', 'json escapes')
    check(rows[0]['big'] == 9223372036854775807 and rows[1]['big'] == -9223372036854775808, 'json int64 limits')
    check(rows[0]['nul'] is None and rows[3]['raw'] is None, 'json null')
    check(rows[0]['raw'] == '' and rows[1]['raw'] == 'AP8Q' and rows[2]['raw'] == 'QQ==', 'json base64 blobs')
    check(rows[3]['num'] == 3.0 and isinstance(rows[3]['num'], float), 'json real 3.0 stays a real')
    # jsonl: one object per line.
    lines = [l for l in outs['jsonl'].split('\n') if l]
    check([json.loads(l)['id'] for l in lines] == [1, 2, 3, 4], 'jsonl lines')
    # csv: RFC 4180 reader gets the values back.
    parsed = list(csv.reader(io.StringIO(outs['csv'], newline='')))
    check(parsed[0] == ['id', 'txt', 'nul', 'num', 'big', 'raw'], 'csv header %r' % parsed[0])
    check(parsed[3][1] == 'quote " comma , pipe | tab\tend\nline 2', 'csv quoting %r' % parsed[3])
    check(parsed[2][4] == '-9223372036854775808', 'csv int64')
    # Text that is not UTF-8 still gives valid JSON.
    p = ctx.ok('query', db, "SELECT CAST(x'66ff6f' AS TEXT) AS t, x'ff' AS b", '--format', 'json')
    check(json.loads(p.out) == [{'t': 'f\ufffdo', 'b': '/w=='}], 'invalid utf-8 in json: %r' % p.out)
    # NULL text is configurable; headers can go.
    p = ctx.ok('query', db, 'SELECT NULL AS a, 1 AS b', '--format', 'csv', '--null', '(null)', '--no-header')
    check(p.out == '(null),1\n', 'csv --null --no-header: %r' % p.out)
    p = ctx.ok('query', db, 'SELECT NULL AS a', '--format', 'box', '--null', '∅')
    check('│ ∅ │' in p.out, 'box --null: %r' % p.out)
    # Durations stay integers.
    p = ctx.ok('query', db, "SELECT sum(dur) AS total, max(dur) AS longest FROM events WHERE cat = 'kernel'",
               '--format', 'json')
    check(json.loads(p.out) == [{'total': 35000, 'longest': 17000}], 'integer ns: %r' % p.out)
    # Not a terminal: csv by default.
    p = ctx.ok('query', db, 'SELECT 1 AS a')
    check(p.out == 'a\n1\n', 'default format off a terminal: %r' % p.out)
    ctx.fails(r"unknown --format 'xml' \(use box, table, csv", 'query', db, 'SELECT 1', '--format', 'xml')


def test_batch(ctx):
    """Statements from stdin: no prompt, run in order, errors name the line; --bail; .read."""
    db = ctx.db()
    p = ctx.ok('shell', db, stdin='.mode csv\nSELECT 1\n  AS a;\n-- a comment\n\n.headers off\nSELECT 2; SELECT 3;\n')
    check(p.out == 'a\n1\n\n2\n\n3\n', 'batch output %r' % p.out)
    check('tracesql>' not in p.out + p.err, 'no prompt in batch mode')
    # An error does not stop the batch (exit 1 at the end); --bail does.
    script = 'SELECT 1;\nSELECT\n  nosuch_column\nFROM events;\nSELECT 3;\n'
    p = ctx.run('shell', '--format', 'csv', db, stdin=script)
    check(p.returncode == 1, 'batch with an error exits 1, got %d' % p.returncode)
    check(p.err == 'Parse error near line 3 of <stdin>: no such column: nosuch_column\n', 'error text %r' % p.err)
    check(p.out == '1\n1\n\n3\n3\n', 'statements after the error still run: %r' % p.out)
    p = ctx.run('shell', '--bail', '--format', 'csv', db, stdin=script)
    check(p.returncode == 1 and p.out == '1\n1\n', '--bail stops: %r' % p.out)
    p = ctx.run('shell', '--format', 'csv', db, stdin='SELECT abs(-9223372036854775807 - 1);\n')
    check(p.returncode == 1 and 'Runtime error near line 1 of <stdin>: integer overflow' in p.err, p.err)
    # Input that ends inside a statement still runs (SQLite names what is missing).
    p = ctx.run('shell', db, stdin='SELECT 1 +\n')
    check(p.returncode == 1 and 'near line 1 of <stdin>: incomplete input' in p.err, 'unfinished: %r' % p.err)
    # .read: errors name the file and its line; .read nests up to 25 deep.
    inc = os.path.join(ctx.work, 'inc.sql')
    with open(inc, 'w') as f:
        f.write('.mode csv\nSELECT 10 AS ten;\n\nSELEC 11;\n')
    p = ctx.run('shell', db, stdin='.read %s\nSELECT 12 AS twelve;\n' % inc)
    check(p.returncode == 1 and ('Parse error near line 4 of %s: near "SELEC": syntax error' % inc) in p.err,
          '.read error location: %r' % p.err)
    check(p.out == 'ten\n10\n\ntwelve\n12\n', '.read output %r' % p.out)
    loop = os.path.join(ctx.work, 'loop.sql')
    with open(loop, 'w') as f:
        f.write('.read %s\n' % loop)
    p = ctx.run('shell', db, stdin='.read %s\n' % loop)
    check(p.returncode == 1 and 'nested more than 25 deep' in p.err, '.read nesting %r' % p.err)
    # Dot-commands: unknown ones, usage errors, no system commands.
    p = ctx.run('shell', db, stdin='.shell ls\n.system ls\n.output |cat\n.mode\n.mode nope\n.headers maybe\n')
    check('unknown command or invalid arguments: "shell"' in p.err, p.err)
    check('unknown command or invalid arguments: "system"' in p.err, p.err)
    check('output to a pipe is not supported' in p.err, p.err)
    check("unknown mode 'nope'" in p.err and "expected on or off, not 'maybe'" in p.err, p.err)
    check(p.out.startswith('current output mode: csv'), p.out)
    # .help is generated from the command table: every command, one line each.
    p = ctx.ok('shell', db, stdin='.help\n')
    names = re.findall(r'^\.(\w+)', p.out, re.M)
    for want in ['help', 'tables', 'schema', 'mode', 'headers', 'timer', 'read', 'queries', 'run', 'show', 'param',
                 'output', 'once', 'open', 'import', 'traces', 'quit']:
        check(want in names, '.help lacks .%s' % want)
    docs = open(os.path.join(ROOT, 'docs', 'shell.md'), encoding='utf-8').read()
    for name in names:
        check('`.%s' % name in docs, 'docs/shell.md does not describe .%s' % name)
    p = ctx.ok('shell', db, stdin='.help ti\n')
    check(p.out.startswith('.timer on|off') and p.out.count('\n') == 1, '.help PATTERN: %r' % p.out)
    # .tables / .schema / .traces / .timer / .once / .output / .quit.
    out_file = os.path.join(ctx.work, 'once.txt')
    all_file = os.path.join(ctx.work, 'all.txt')
    p = ctx.ok('shell', '--format', 'csv', db, stdin=(
        '.tables kernels\n.schema stacks\n.once %s\nSELECT 1 AS once;\nSELECT 2 AS after;\n'
        '.output %s\nSELECT 3 AS redirected;\n.output\n.timer on\nSELECT 4 AS timed;\n.quit\nSELECT 5;\n')
        % (out_file, all_file))
    check(p.out.startswith('kernels\nCREATE TABLE stacks ('), '.tables/.schema: %r' % p.out[:80])
    check(open(out_file).read() == 'once\n1\n', '.once file: %r' % open(out_file).read())
    check(open(all_file).read() == 'redirected\n3\n', '.output file')
    check('after\n2\n' in p.out and 'timed\n4\nRun Time: real' in p.out, '.timer: %r' % p.out)
    check('5' not in p.out.split('Run Time')[1].split('\n', 1)[1], '.quit stops reading')
    p = ctx.ok('shell', '--format', 'csv', db, stdin='.traces\n')
    check(re.match(r'id,path,rank,world_size,event_count,dur,truncated\n1,.*tiny.json,,,\d+,', p.out), p.out)
    p = ctx.run('shell', db, stdin='.exit 3\n')
    check(p.returncode == 3, '.exit 3')
    # query -f runs every statement, results separated by a blank line; -f - reads stdin.
    two = os.path.join(ctx.work, 'two.sql')
    with open(two, 'w') as f:
        f.write('SELECT 1 AS a;\nCREATE TEMP TABLE t(x);\nSELECT 2 AS b;\n')
    p = ctx.ok('query', db, '-f', two, '--format', 'csv')
    check(p.out == 'a\n1\n\nb\n2\n', 'query -f: %r' % p.out)
    p = ctx.ok('query', db, '-f', '-', '--format', 'csv', stdin='SELECT 7 AS s;')
    check(p.out == 's\n7\n', 'query -f -: %r' % p.out)


def test_errors(ctx):
    """A query file with a syntax error: file and line, non-zero exit, one line on stderr."""
    db = ctx.db()
    bad = os.path.join(HERE, 'bad.sql')
    p = ctx.fails(r'^tracesql: error: parse error near line 5 of .*bad\.sql: near "events": syntax error\n$',
                  'query', db, '-f', bad, '--format', 'csv')
    check(p.out == 'ok\n1\n', 'statements before the error ran: %r' % p.out)
    p = ctx.fails(r'^tracesql: error: runtime error near line 1 of <command line>: integer overflow\n$',
                  'query', db, 'SELECT abs(-9223372036854775807 - 1)')
    ctx.fails(r'^tracesql: error: parse error near line 2 of <command line>: no such table: nope\n$',
              'query', db, 'SELECT 1;\nSELECT * FROM nope')
    ctx.fails(r'give either SQL text or -f FILE', 'query', db)
    ctx.fails(r'give either SQL text or -f FILE', 'query', db, 'SELECT 1', '-f', bad)
    ctx.fails(r'nothere\.sql: cannot read SQL file', 'query', db, '-f', os.path.join(ctx.work, 'nothere.sql'))
    ctx.fails(r"no query named 'nosuch' \(see `tracesql queries`\)$", 'run', db, 'nosuch')
    # A misspelt name gets the closest query's name.
    ctx.fails(r"^tracesql: error: no query named 'op_sumary'; did you mean op_summary\? \(see `tracesql queries`\)\n$",
              'run', db, 'op_sumary')
    ctx.fails(r"no query named 'Top_Kernel'; did you mean top_kernels\?", 'run', db, 'Top_Kernel')
    ctx.fails(r"no query named 'idle_sumary'; did you mean idle_summary\?", 'queries', '--show', 'idle_sumary')
    p = ctx.run('shell', db, stdin='.run tmporal_breakdown\n.show stpes\n')
    check("no query named 'tmporal_breakdown'; did you mean temporal_breakdown? (see .queries)" in p.err
          and "no query named 'stpes'; did you mean steps? (see .queries)" in p.err, '.run/.show hint: %r' % p.err)


def test_params(ctx):
    """-p binds numbers as numbers and the rest as text; missing -> NULL; bad -p -> clear error."""
    db = ctx.db()
    p = ctx.ok('query', db, "SELECT typeof(:a), typeof(:b), typeof(:c), typeof(:d), :d, typeof(:e), typeof(@f), $g",
               '-p', 'a=5', '-p', 'b=2.5', '-p', 'c=x y', '-p', "d='42'", '-p', 'f=-1e3', '-p', ':g=+7',
               '--format', 'csv', '--no-header')
    check(p.out == 'integer,real,text,text,42,null,real,7\n', 'bind types: %r' % p.out)
    p = ctx.ok('query', db, 'SELECT :big AS big, typeof(:big) AS t', '-p', 'big=99999999999999999999',
               '--format', 'csv', '--no-header')
    check(p.out == '1e+20,real\n', 'beyond int64 binds as a real: %r' % p.out)
    # Text where SQLite needs a number: the error names the parameter (not for a quoted value,
    # which asked for text).
    qdir = os.path.join(HERE, 'queries')
    ctx.fails(r"line 5 of .*kernel_names\.sql: datatype mismatch \(text where a number is needed\? "
              r":limit = 'abc' is text\)$", 'run', db, 'kernel_names', '--queries-dir', qdir, '-p', 'limit=abc')
    p = ctx.fails(r'datatype mismatch$', 'query', db, 'SELECT 1 LIMIT :n', '-p', "n='x'")
    p = ctx.ok('run', db, 'kernel_names', '--queries-dir', qdir, '--format', 'csv')
    check(p.out == 'name\ngemm_kernel\nrelu_kernel\n', 'missing :limit is NULL -> coalesce default: %r' % p.out)
    p = ctx.ok('run', db, 'kernel_names', '--queries-dir', qdir, '-p', 'limit=1', '--format', 'csv')
    check(p.out == 'name\ngemm_kernel\n', '-p limit=1: %r' % p.out)
    p = ctx.ok('run', db, 'kernel_names', '--queries-dir', qdir, '-p', 'prefix=relu', '-p', 'limit=5',
               '--format', 'csv')
    check(p.out == 'name\nrelu_kernel\n', 'text parameter: %r' % p.out)
    ctx.fails(r"^tracesql: error: bad parameter 'limit': expected key=value\n$", 'run', db, 'top_kernels', '-p', 'limit')
    ctx.fails(r"bad parameter '1x=2': the name must be", 'query', db, 'SELECT :x', '-p', '1x=2')
    ctx.fails(r'top_kernels has no parameter :limt \(it takes :limit, :trace_id\)', 'run', db, 'top_kernels',
              '-p', 'limt=3')
    ctx.fails(r'the SQL has no parameter :y \(it takes :x\)', 'query', db, 'SELECT :x', '-p', 'y=1')
    # A parameter whose header line declares its kind takes only values of that kind: choices
    # ({a|b}), (integer), (number); the error lists what it takes.
    ctx.fails(r'^tracesql: error: op_summary: :sort cannot be bogus \(expected one of cpu_total, cpu_self, gpu_sum, '
              r'gpu_union, calls\)\n$', 'run', db, 'op_summary', '-p', 'sort=bogus')
    ctx.fails(r'temporal_breakdown: :variant cannot be nope \(expected one of tracelens, hta\)$',
              'run', db, 'temporal_breakdown', '-p', 'variant=nope')
    ctx.fails(r'flamegraph: :mode cannot be bogus \(expected one of cpu, gpu\)$', 'run', db, 'flamegraph',
              '-p', 'mode=bogus')
    ctx.fails(r'top_kernels: :trace_id cannot be abc \(expected an integer\)$', 'run', db, 'top_kernels',
              '-p', 'trace_id=abc')
    ctx.fails(r"top_kernels: :limit cannot be '5' \(expected an integer\)$", 'run', db, 'top_kernels',
              '-p', "limit='5'")
    ctx.fails(r'top_kernels: :limit cannot be 2.5 \(expected an integer\)$', 'run', db, 'top_kernels',
              '-p', 'limit=2.5')
    ctx.fails(r'idle_summary: :min_dur cannot be x \(expected a number\)$', 'run', db, 'idle_summary',
              '-p', 'min_dur=x')
    ctx.ok('run', db, 'idle_summary', '-p', 'min_dur=1e3')
    ctx.ok('run', db, 'op_summary', '-p', 'sort=calls', '-p', 'by_shape=1', '-p', 'limit=-1')
    ctx.ok('run', db, 'op_summary', '-p', "sort='calls'")
    # The shell checks .run's values and those set with .param alike.
    p = ctx.run('shell', db, stdin='.run op_summary sort=bogus\n.param set variant nope\n.run temporal_breakdown\n'
                                   '.param clear\n.run op_summary sort=gpu_sum limit=1\n')
    check(p.returncode == 1 and 'op_summary: :sort cannot be bogus (expected one of' in p.err
          and 'temporal_breakdown: :variant cannot be nope (expected one of tracelens, hta)' in p.err
          and p.err.count('\n') == 2, 'shell .run checks values: %r' % p.err)
    # The shell: .param set / list / unset / clear, and .run NAME k=v.
    p = ctx.ok('shell', '--format', 'csv', '--queries-dir', qdir, db, stdin=(
        ".param set limit 1\n.param set prefix 'relu'\n.param list\n.run kernel_names\n.param unset prefix\n"
        ".run kernel_names limit=5\n.param clear\nSELECT :limit AS l;\n"))
    check(p.out == ('name,value,type\n:limit,1,integer\n:prefix,\'relu\',text\n\nname\nrelu_kernel\n\n'
                    'name\ngemm_kernel\nrelu_kernel\n\nl\n\n'), 'shell params: %r' % p.out)
    p = ctx.run('shell', db, stdin='.param set 9 x\n.param bogus\n.run top_kernels limit\n')
    check("bad parameter '9=x'" in p.err and 'usage: .param' in p.err and "bad parameter 'limit'" in p.err, p.err)


def test_queries(ctx):
    """Bundled queries, user directories in order (--queries-dir, $TRACESQL_QUERIES, XDG), shadowing."""
    db = ctx.db()
    p = ctx.ok('queries', '--format', 'csv')
    rows = list(csv.DictReader(io.StringIO(p.out)))
    names = {r['name']: r for r in rows}
    for want in ['top_kernels', 'top_ops', 'idle_summary', 'steps', 'launch_delays']:
        check(want in names and names[want]['source'] == 'builtin:' + want and names[want]['description'],
              'bundled %s listed with a description' % want)
    check(names['top_kernels']['params'] == ':limit :trace_id', 'params column %r' % names['top_kernels']['params'])
    p = ctx.ok('queries', '--show', 'top_kernels')
    check(p.out.startswith('-- name: top_kernels\n'), '--show prints the file')
    # Bundled query headers: name matches the file, a description, documented params.
    for f in sorted(os.listdir(os.path.join(ROOT, 'queries'))):
        if not f.endswith('.sql'):
            continue  # queries/combine/: the combining SQL of queries over partitions (docs/scale.md)
        text = open(os.path.join(ROOT, 'queries', f), encoding='utf-8').read()
        check(text.startswith('-- name: %s\n' % f[:-4]), '%s: header starts with -- name: %s' % (f, f[:-4]))
        check(re.search(r'^-- description: \S', text, re.M), '%s: no description' % f)
        # Named parameters outside comments and string literals ('aten::mm' is not a parameter :mm).
        code = re.sub(r"'(?:[^']|'')*'", "''", re.sub(r'--.*$', '', text, flags=re.M))
        used = set(re.findall(r'(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)\b', code))
        documented = set(re.findall(r'^-- param :(\w+) ', text, re.M))
        check(used == documented, '%s: parameters used %s, documented %s' % (f, sorted(used), sorted(documented)))
        # Each declares the values it takes ((integer), (number) or {a|b|...}), but a free-form list.
        kinds = re.findall(r'^-- param :(\w+)(?: [^({\s]\S*)?( \((?:integer|number)\)| \{[^}]+\})?', text, re.M)
        untyped = {name for name, kind in kinds if not kind} - {'thresholds', 'window'}
        check(not untyped, '%s: parameters without a kind: %s' % (f, sorted(untyped)))
    q1 = os.path.join(HERE, 'queries')
    q2 = os.path.join(HERE, 'queries2')
    # --queries-dir shadows the bundled query; the listing says so.
    p = ctx.ok('run', db, 'top_kernels', '--queries-dir', q1, '--format', 'csv')
    check(p.out == 'source\nuser top_kernels\n', 'user query shadows bundled: %r' % p.out)
    p = ctx.ok('queries', '--queries-dir', q1, '--format', 'csv')
    rows = {r['name']: r for r in csv.DictReader(io.StringIO(p.out))}
    check(rows['top_kernels']['source'].endswith('queries/top_kernels.sql (shadows builtin)'), rows['top_kernels'])
    check(rows['kernel_names']['params'] == ':limit :prefix', 'user query params')
    # Order: --queries-dir, then $TRACESQL_QUERIES (colon-separated), then $XDG_CONFIG_HOME/tracesql/queries.
    p = ctx.ok('run', db, 'kernel_names', '--queries-dir', q2, '--format', 'csv', env={'TRACESQL_QUERIES': q1})
    check(p.out == 'source\nsecond dir\n', '--queries-dir before $TRACESQL_QUERIES')
    p = ctx.ok('run', db, 'only_in_second', '--format', 'csv', env={'TRACESQL_QUERIES': q1 + ':' + q2})
    check(p.out == 'source\nsecond dir\n', '$TRACESQL_QUERIES is colon-separated')
    xdg = os.path.join(ctx.work, 'xdg')
    os.makedirs(os.path.join(xdg, 'tracesql'), exist_ok=True)
    shutil.copytree(q2, os.path.join(xdg, 'tracesql', 'queries'), dirs_exist_ok=True)
    p = ctx.ok('run', db, 'kernel_names', '--format', 'csv', env={'XDG_CONFIG_HOME': xdg, 'TRACESQL_QUERIES': q1})
    check(p.out.startswith('name\n'), '$TRACESQL_QUERIES before XDG')
    p = ctx.ok('run', db, 'kernel_names', '--format', 'csv', env={'XDG_CONFIG_HOME': xdg})
    check(p.out == 'source\nsecond dir\n', 'XDG_CONFIG_HOME/tracesql/queries')
    home_q = os.path.join(ctx.env['HOME'], '.config', 'tracesql', 'queries')
    os.makedirs(home_q, exist_ok=True)
    shutil.copy(os.path.join(q2, 'only_in_second.sql'), home_q)
    p = ctx.ok('run', db, 'only_in_second', '--format', 'csv')
    check(p.out == 'source\nsecond dir\n', '~/.config/tracesql/queries')
    # A path runs as is; the shell's .queries / .show / .run see the same queries.
    p = ctx.ok('run', db, os.path.join(q1, 'kernel_names.sql'), '--format', 'csv')
    check(p.out.startswith('name\n'), 'run by path')
    p = ctx.ok('shell', '--format', 'csv', '--queries-dir', q1, db,
               stdin='.queries\n.show kernel_names\n.run top_kernels\n')
    check('kernel_names,' in p.out and 'launch_delays,' in p.out, '.queries: %r' % p.out)
    check('-- ' + os.path.join(q1, 'kernel_names.sql') + '\n-- name: kernel_names' in p.out, '.show')
    check(p.out.endswith('source\nuser top_kernels\n'), '.run uses the user query')
    # top_kernels on the fixture.
    p = ctx.ok('run', db, 'top_kernels', '--format', 'csv')
    check(p.out == 'name,short_name,calls,total_dur,avg_dur,max_dur,pct\ngemm_kernel,gemm_kernel,2,32000,16000,17000,91.43\n'
                   'relu_kernel,relu_kernel,1,3000,3000,3000,8.57\n', 'top_kernels: %r' % p.out)


def test_shortcut(ctx):
    """tracesql TRACE imports next to the trace (or reuses a newer database); tracesql DB opens it."""
    trace = os.path.join(ctx.work, 'run1.json')
    shutil.copy(os.path.join(HERE, 'fixtures', 'tiny.json'), trace)
    os.utime(trace, (time.time() - 100, time.time() - 100))
    db = os.path.join(ctx.work, 'run1.db')
    p = ctx.ok(trace, '--format', 'csv', stdin='SELECT count(*) AS n FROM kernels;\n')
    check(p.out == 'n\n3\n', 'shortcut query: %r' % p.out)
    check('imported 1 trace' in p.err and os.path.exists(db), 'imported next to the trace: %r' % p.err)
    mtime = os.stat(db).st_mtime_ns
    p = ctx.ok(trace, '--format', 'csv', stdin='SELECT 1;\n')
    check('imported' not in p.err and os.stat(db).st_mtime_ns == mtime, 'newer database reused: %r' % p.err)
    os.utime(trace, None)
    os.utime(db, (time.time() - 50, time.time() - 50))
    p = ctx.ok(trace, '--format', 'csv', stdin='SELECT 1;\n')
    check('is older than' in p.err and 'imported 1 trace' in p.err, 'older database re-imported: %r' % p.err)
    # A database made by an older tracesql (older schema version) is rebuilt, however new.
    con = sqlite3.connect(db)
    current = con.execute('PRAGMA user_version').fetchone()[0]
    con.execute('PRAGMA user_version = 1')
    con.commit()
    con.close()
    p = ctx.ok(trace, '--format', 'csv', stdin='SELECT count(*) AS n FROM kernels;\n')
    check(re.search(r'run1\.db was made by an older tracesql \(schema version 1; this one writes %d\): importing '
                    r'again\n' % current, p.err) and 'imported 1 trace' in p.err and 'warning' not in p.err
          and p.out == 'n\n3\n', 'older schema re-imported: %r' % p.err)
    con = sqlite3.connect(db)
    check(con.execute('PRAGMA user_version').fetchone()[0] == current, 'schema version after re-import')
    con.close()
    p = ctx.ok(db, '--format', 'csv', stdin='SELECT count(*) FROM traces;\n')
    check(p.out.endswith('\n1\n'), 'tracesql DB')
    gz = os.path.join(ctx.work, 'rank0.pt.trace.json.gz')
    import gzip
    with open(os.path.join(HERE, 'fixtures', 'tiny.json'), 'rb') as f, gzip.open(gz, 'wb') as g:
        g.write(f.read())
    ctx.ok(gz, stdin='')
    check(os.path.exists(os.path.join(ctx.work, 'rank0.pt.trace.db')), '.json.gz -> .db name')
    # A database of that name that is not tracesql's is never replaced.
    other_trace = os.path.join(ctx.work, 'other.json')
    shutil.copy(trace, other_trace)
    other_db = os.path.join(ctx.work, 'other.db')
    sqlite3.connect(other_db).execute('CREATE TABLE mine(x)').connection.commit()
    before = open(other_db, 'rb').read()
    ctx.fails(r'other\.db: exists and is not a tracesql database', other_trace, stdin='')
    check(open(other_db, 'rb').read() == before, 'foreign database untouched')
    # Nor is a database of that name that holds another trace (run1.json.gz and run1.json both give
    # run1.db) or several: it is neither opened for this trace nor replaced.
    run1_gz = os.path.join(ctx.work, 'run1.json.gz')
    shutil.copy(gz, run1_gz)
    before = open(db, 'rb').read()
    ctx.fails(r'^tracesql: error: .*run1\.db: holds the trace run1\.json, not run1\.json\.gz, so it is neither used '
              r'nor replaced; import elsewhere with `tracesql import .*run1\.json\.gz -o DB`\n$', run1_gz, stdin='')
    two = os.path.join(ctx.work, 'two.json')
    shutil.copy(trace, two)
    ctx.ok('import', '-q', two, trace, '-o', os.path.join(ctx.work, 'two.db'))
    ctx.fails(r'two\.db: holds the traces two\.json, run1\.json, not two\.json', two, stdin='')
    check(open(db, 'rb').read() == before, 'the other trace\'s database untouched')
    ctx.fails(r'nothere\.json: no such file', os.path.join(ctx.work, 'nothere.json'))
    txt = os.path.join(ctx.work, 'notes.txt')
    with open(txt, 'w') as f:
        f.write('hello')
    ctx.fails(r'notes\.txt: neither a trace .* nor a SQLite database', txt)
    # A file named as a trace that is not one (a PNG renamed): the import's own message.
    pic = os.path.join(ctx.work, 'pic.json')
    with open(pic, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR')
    imported = ctx.fails(r"pic\.json: byte 0: not a JSON trace: expected '\{' or '\[', found byte 0x89$",
                         'import', pic, '-o', os.path.join(ctx.work, 'pic.db'))
    opened = ctx.fails(r'pic\.json: byte 0', pic, stdin='')
    check(opened.err == imported.err, 'tracesql pic.json says what import says: %r vs %r' % (opened.err, imported.err))
    check(not os.path.exists(os.path.join(ctx.work, 'pic.db')), 'no database for pic.json')
    # The import subcommand still refuses to overwrite (unchanged behaviour).
    ctx.fails(r'database already exists \(use --force', 'import', trace, '-o', db)


def test_shortcut_readonly(ctx):
    """tracesql TRACE where the trace's directory is not writable: the database goes to the cache
    directory ($XDG_CACHE_HOME/tracesql, else ~/.cache/tracesql) under a name unique to the trace's
    path, is reused while newer than the trace, and a database already next to it is still used.
    As root (CI), the commands run as user 65534 through setpriv, for whom the directory is
    read-only; otherwise chmod is enough."""
    base = tempfile.mkdtemp(prefix='tq_ro_')  # readable by the other user, unlike ctx.work
    try:
        os.chmod(base, 0o755)
        tiny = os.path.join(HERE, 'fixtures', 'tiny.json')
        dirs = [os.path.join(base, d) for d in ('ro1', 'ro2', 'ro3')]
        for d in dirs:
            os.makedirs(d)
            shutil.copy(tiny, os.path.join(d, 'run1.json'))
            os.utime(os.path.join(d, 'run1.json'), (time.time() - 100, time.time() - 100))
        # ro3 already has an up-to-date database next to the trace.
        ctx.ok('import', '-q', os.path.join(dirs[2], 'run1.json'), '-o', os.path.join(dirs[2], 'run1.db'))
        cache = os.path.join(base, 'cache')
        os.makedirs(cache)
        tq, prefix = ctx.tq, []
        if os.geteuid() == 0:
            setpriv = shutil.which('setpriv')
            if not setpriv:
                raise Skip('running as root without setpriv: cannot make a directory read-only')
            tq = os.path.join(base, 'tracesql')
            shutil.copy(ctx.tq, tq)
            os.chmod(tq, 0o755)
            os.chown(cache, 65534, 65534)
            prefix = [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups']
            # A sanitizer build reads its suppressions as that user too: give it a copy it can read.
            supp = os.path.join(base, 'lsan.supp')
            shutil.copy(os.path.join(HERE, 'lsan.supp'), supp)
            os.chmod(supp, 0o644)
            ctx.env['LSAN_OPTIONS'] = ctx.env['LSAN_OPTIONS'].replace(os.path.join(HERE, 'lsan.supp'), supp)
        for d in dirs:
            os.chmod(d, 0o555)

        def run(trace, env=None):
            return ctx.run(trace, '--format', 'csv', stdin='SELECT count(*) AS n FROM kernels;\n',
                           env=dict({'XDG_CACHE_HOME': cache}, **(env or {})), cwd=base, command=prefix + [tq])

        t1 = os.path.join(dirs[0], 'run1.json')
        p = run(t1)
        check(p.returncode == 0 and p.out == 'n\n3\n', 'read-only dir: exit %d, %r %r' % (p.returncode, p.out, p.err))
        m = re.search(r'is not writable: the database is kept in (\S+)\n', p.err)
        check(m and 'imported 1 trace' in p.err, 'cache note and import: %r' % p.err)
        db1 = m.group(1)
        check(re.fullmatch(re.escape(os.path.join(cache, 'tracesql')) + r'/run1-[0-9a-f]{16}\.db', db1), db1)
        check(os.path.exists(db1) and sorted(os.listdir(dirs[0])) == ['run1.json'], 'nothing written next to the trace')
        mtime = os.stat(db1).st_mtime_ns
        p = run(t1)
        check(p.returncode == 0 and 'imported' not in p.err and db1 in p.err and os.stat(db1).st_mtime_ns == mtime,
              'cached database reused: %r' % p.err)
        # Newer trace: imported again into the same cache database.
        os.chmod(dirs[0], 0o755)
        os.utime(t1, None)
        os.utime(db1, (time.time() - 50, time.time() - 50))
        os.chmod(dirs[0], 0o555)
        p = run(t1)
        check(p.returncode == 0 and 'is older than' in p.err and 'imported 1 trace' in p.err, 'stale cache: %r' % p.err)
        # Same file name in another directory: another database.
        p = run(os.path.join(dirs[1], 'run1.json'))
        m2 = re.search(r'the database is kept in (\S+)\n', p.err)
        check(p.returncode == 0 and m2 and m2.group(1) != db1 and os.path.exists(m2.group(1)), 'second trace: %r' % p.err)
        # An up-to-date database next to the trace is used as before, read-only directory or not.
        p = run(os.path.join(dirs[2], 'run1.json'))
        check(p.returncode == 0 and p.out == 'n\n3\n' and p.err == '', 'database next to the trace: %r' % p.err)
        # A cache directory that cannot be made: one clear error, nothing left.
        p = run(os.path.join(dirs[1], 'run1.json'), env={'XDG_CACHE_HOME': os.path.join(dirs[0], 'cache')})
        check(p.returncode != 0 and re.search(r'ro1/cache/tracesql: cannot create the cache directory', p.err)
              and sorted(os.listdir(dirs[0])) == ['run1.json'], 'cache directory not writable: %r' % p.err)
        # No cache directory to fall back on: the import's own error.
        p = run(os.path.join(dirs[1], 'run1.json'), env={'XDG_CACHE_HOME': '', 'HOME': ''})
        check(p.returncode != 0 and re.search(r'run1\.db: cannot create database: directory .* is not writable', p.err),
              'no HOME: %r' % p.err)
    finally:
        for root, ds, _ in os.walk(base):
            for d in ds:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_safety(ctx):
    """trusted_schema=OFF and defensive mode; foreign, newer and non-SQLite files; --any-db."""
    db = ctx.db()
    p = ctx.ok('query', db, 'PRAGMA trusted_schema', '--format', 'csv', '--no-header')
    check(p.out == '0\n', 'trusted_schema is OFF: %r' % p.out)
    # Defensive mode: the schema cannot be edited, even with writable_schema.
    p = ctx.run('query', db, "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = 'x' WHERE name = 'events'")
    check(p.returncode != 0 and 'may not be modified' in p.err, 'defensive: %r' % p.err)
    p = ctx.ok('query', db, 'SELECT count(*) FROM events', '--format', 'csv', '--no-header')
    check(p.out == '10\n', 'database intact')
    # The JSON views work with trusted_schema=OFF (the args view uses json_extract).
    p = ctx.ok('query', db, "SELECT value FROM args WHERE key = 'correlation' ORDER BY event_id LIMIT 1",
               '--format', 'csv', '--no-header')
    check(p.out == '11\n', 'args view under trusted_schema=OFF: %r' % p.out)
    # A foreign SQLite file: refused with a hint, accepted with --any-db (its JSON views work too).
    foreign = os.path.join(ctx.work, 'foreign.db')
    con = sqlite3.connect(foreign)
    con.executescript("CREATE TABLE t(j); INSERT INTO t VALUES ('{\"a\": [1, 2]}');"
                      "CREATE VIEW v AS SELECT json_extract(j, '$.a[1]') AS second, j -> '$.a' AS arr FROM t;")
    con.commit()
    con.close()
    ctx.fails(r'^tracesql: error: .*foreign\.db: not a tracesql database \(application_id 0\); import a trace with '
              r'`tracesql import`, or pass --any-db to query it as plain SQLite\n$', 'shell', foreign, stdin='')
    ctx.fails(r'foreign\.db: not a tracesql database', 'query', foreign, 'SELECT 1')
    p = ctx.ok('shell', '--any-db', '--format', 'csv', foreign, stdin='SELECT * FROM v;\n')
    check(p.out == 'second,arr\n2,"[1,2]"\n', '--any-db: %r' % p.out)
    def with_version(name, version):  # a copy of db with another schema version
        path = os.path.join(ctx.work, name)
        shutil.copy(db, path)
        con = sqlite3.connect(path)
        con.execute('PRAGMA user_version = %d' % version)
        con.commit()
        con.close()
        return path
    # A newer schema version.
    newer = with_version('newer.db', 99)
    ctx.fails(r'newer\.db: database schema version 99 is newer than this tracesql supports \(\d+\); upgrade tracesql',
              'shell', newer, stdin='')
    # An older schema version opens, with a warning that bundled queries may need a new import.
    older = with_version('older.db', 1)
    p = ctx.ok('query', '--format', 'csv', '--no-header', older, 'SELECT count(*) > 0 FROM traces')
    check(p.out == '1\n' and re.search(r'warning: .*older\.db: database schema version 1 is older than this '
                                        r"tracesql's \(\d+\); bundled queries may fail on it: import the trace again",
                                        p.err) is not None, 'older schema: %r %r' % (p.out, p.err))
    # Not a database at all, a trace given as a database, a missing file.
    junk = os.path.join(ctx.work, 'junk.db')
    with open(junk, 'wb') as f:
        f.write(b'\x00garbage' * 100)
    ctx.fails(r'junk\.db: not a SQLite database', 'query', junk, 'SELECT 1')
    ctx.fails(r'tiny\.json: is a trace, not a database', 'query', os.path.join(HERE, 'fixtures', 'tiny.json'),
              'SELECT 1')
    ctx.fails(r'nope\.db: no such database', 'shell', os.path.join(ctx.work, 'nope.db'))
    # .open checks the same way and keeps the current database on failure.
    p = ctx.run('shell', '--format', 'csv', db, stdin='.open %s\nSELECT count(*) FROM traces;\n' % foreign)
    check('not a tracesql database' in p.err and p.out.endswith('\n1\n'), '.open refused: %r %r' % (p.out, p.err))
    # .output / .once never truncate the open database or an attached one (whatever the name used).
    link = os.path.join(ctx.work, 'tiny-link.db')
    os.symlink(db, link)
    other = os.path.join(ctx.work, 'other.db')
    shutil.copy(db, other)
    before = [open(f, 'rb').read() for f in (db, other)]
    p = ctx.run('shell', '--format', 'csv', '--attach', other, db,
                stdin='.output %s\n.once %s\nSELECT count(*) FROM events;\n' % (link, other))
    check(re.search(r"tiny-link\.db: is the database 'main' of this shell", p.err)
          and re.search(r"other\.db: is the database 'b' of this shell", p.err) and p.out == 'count(*)\n10\n',
          '.output over a database: %r %r' % (p.out, p.err))
    check([open(f, 'rb').read() for f in (db, other)] == before, '.output / .once left the databases intact')


def test_import_cmd(ctx):
    """.import adds traces to the open database (it re-imports them all into a new file)."""
    work = os.path.join(ctx.work, 'imp')
    os.makedirs(work)
    a = os.path.join(work, 'a.json')
    b = os.path.join(work, 'b.json')
    shutil.copy(os.path.join(HERE, 'fixtures', 'tiny.json'), a)
    shutil.copy(a, b)
    db = os.path.join(work, 'ab.db')
    ctx.ok('import', '-q', 'a.json', '-o', 'ab.db', cwd=work)
    p = ctx.ok('shell', '--format', 'csv', 'ab.db', cwd=work,
               stdin='.import b.json\nSELECT count(*) AS traces, sum(event_count) AS events FROM traces;\n')
    check(p.out == 'traces,events\n2,20\n', '.import: %r %r' % (p.out, p.err))
    check(os.path.exists(db), 'database in place')
    p = ctx.run('shell', 'ab.db', cwd=work, stdin='.import nothere.json\nSELECT count(*) FROM traces;\n')
    check(p.returncode == 1 and 'nothere.json' in p.err and p.out.endswith('\n2\n'), '.import failure keeps db')


def _pty_session(ctx, args, cols=100, env=None):
    pid, fd = pty.fork()
    if pid == 0:
        e = dict(ctx.env)
        e.update(env or {})
        os.chdir(ctx.work)
        os.execve(ctx.tq, [ctx.tq] + args, e)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, cols, 0, 0))
    return pid, fd


class Screen:
    """Everything the shell wrote to the terminal, as text without escape sequences."""

    def __init__(self, fd):
        self.fd = fd
        self.raw = b''

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.raw += data

    def text(self):
        t = self.raw.decode('utf-8', 'replace')
        t = re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', t)
        t = re.sub(r'\x1b[()][A-Z0-9]', '', t)
        return t.replace('\r', '')

    def wait_for(self, needle, seconds=10):
        end = time.time() + seconds
        while time.time() < end:
            if needle in self.text():
                return
            self.pump(0.1)
        raise Failure('screen never showed %r; screen:\n%s' % (needle, self.text()[-3000:]))

    def type(self, keys, settle=0.2):
        os.write(self.fd, keys.encode())
        self.pump(settle)


def test_pty(ctx):
    """The REPL under a pseudo-terminal: multi-line input, dot-commands, completion, Ctrl-C, history."""
    db = ctx.db()
    state = os.path.join(ctx.work, 'state')
    env = {'XDG_STATE_HOME': state}
    pid, fd = _pty_session(ctx, ['shell', db], cols=60, env=env)
    s = Screen(fd)
    try:
        s.wait_for('tracesql> ')
        check('Enter ".help"' in s.text(), 'banner')
        s.type('SELECT 40 + 2 AS answer,\r')
        s.wait_for('     ...> ')
        s.type("'multi' AS line;\r")
        s.wait_for('│     42 │ multi │')
        check('┌────────┬───────┐' in s.text(), 'box on a terminal:\n' + s.text())
        # Tab completion: a dot-command, a table, a column through an alias, a bundled query name.
        s.type('.tab\t')
        s.wait_for('.tables ')
        s.type('kernels\r')
        s.wait_for('\nkernels\n')
        s.type('SELECT count(*) AS n FROM runtime_ca\t')   # a table name (unique prefix)
        s.wait_for('FROM runtime_calls ')
        s.type('\x15')                                   # Ctrl-U: drop the line
        s.type('SELECT count(*) AS n FROM kernels ')
        s.type('k WHERE k.na\t')
        s.wait_for('k.name ')
        s.type("= 'gemm_kernel';\r")
        s.wait_for('│ 2 │')
        s.type('.run top_ke\t')
        s.wait_for('.run top_kernels ')
        s.type('limit=1\r')
        s.wait_for('gemm_kernel')
        # Wide columns are cut to the terminal width (60) in box mode.
        s.type("SELECT printf('%.200c', 'x') AS wide, 1 AS n;\r")
        s.wait_for('…')
        wide = [l for l in s.text().split('\n') if 'xxxxxxxx' in l]
        check(wide and all(len(l) <= 60 for l in wide), 'box fits 60 columns: %r' % wide)
        # Ctrl-C stops a long query, and the shell lives on.
        s.type('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;\r', 1.0)
        s.type('\x03')
        s.wait_for('interrupted')
        s.type('SELECT 7 * 6 AS after_interrupt;\r')
        s.wait_for('after_interrupt')
        # Ctrl-C at the continuation prompt drops the unfinished statement.
        s.type('SELECT 1,\r')
        s.wait_for('     ...> ')
        s.type('\x03')
        s.pump(0.3)
        s.type('.mode csv\r')
        s.type('SELECT 99 AS fresh;\r')
        s.wait_for('fresh\n99')
        # A parse error shows where.
        s.type('SELEC 1;\r')
        s.wait_for('^--- error here')
        check('Parse error: near "SELEC": syntax error' in s.text(), 'interactive parse error')
        # Ctrl-D exits with status 0.
        s.type('\x04', 0.5)
        _, status = os.waitpid(pid, 0)
        pid = None
        check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, 'exit status after Ctrl-D: %r' % status)
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    hist = os.path.join(state, 'tracesql', 'history')
    check(os.path.exists(hist), 'history saved in $XDG_STATE_HOME/tracesql/history')
    check(os.stat(hist).st_mode & 0o077 == 0, 'history is private')
    # A second run of the shell recalls the last statement with the Up arrow.
    pid, fd = _pty_session(ctx, ['shell', db], env=env)
    s = Screen(fd)
    try:
        s.wait_for('tracesql> ')
        s.type('\x1b[A', 0.5)
        s.wait_for('SELEC 1;')
        s.type('\x15.quit\r', 0.5)
        _, status = os.waitpid(pid, 0)
        pid = None
        check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, '.quit status')
    finally:
        if pid:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def result_sets(fmt, out):
    """How many result sets out holds, as far as fmt shows it (None: fmt cannot tell)."""
    if fmt == 'json':
        return len(json_documents(out))
    if fmt in ('csv', 'tsv'):
        # One header, then rows of as many fields; a second result set starts with a blank line.
        rows = list(csv.reader(io.StringIO(out, newline=''), delimiter=',' if fmt == 'csv' else '\t'))
        return 0 if not rows else 1 + sum(1 for r in rows[1:] if len(r) != len(rows[0]))
    if fmt == 'jsonl':
        return len({tuple(json.loads(l)) for l in out.split('\n') if l}) if out else None  # (no rows)
    if fmt == 'box':
        return sum(1 for l in out.split('\n') if l.startswith('\u250c'))
    if fmt == 'markdown':
        return sum(1 for l in out.split('\n') if re.fullmatch(r'\|( :?-+:? \|)+', l))
    return None


def test_bundled(ctx):
    """Every bundled query runs on a real database and returns exactly one result set, in every format;
    flamegraph writes a folded-stacks file by default."""
    if not ctx.sample or not os.path.exists(ctx.sample):
        raise Skip('no sample trace')
    db = os.path.join(ctx.work, 'sample.db')
    ctx.ok('import', '-q', ctx.sample, '-o', db)
    con = sqlite3.connect(db)
    objects = {r[0] for r in con.execute('SELECT name FROM sqlite_schema')}
    con.close()
    missing = {}
    for f in sorted(os.listdir(os.path.join(ROOT, 'queries'))):
        if not f.endswith('.sql'):
            continue
        name = f[:-4]
        text = open(os.path.join(ROOT, 'queries', f), encoding='utf-8').read()
        p = ctx.run('query', db, 'EXPLAIN ' + text.strip().rstrip(';'), '--format', 'csv')
        if p.returncode != 0:
            m = re.search(r'no such table: (\w+)', p.err)
            if m and m.group(1) not in objects:
                missing[name] = m.group(1)
                continue
            raise Failure('%s does not prepare: %s' % (name, p.err))
        # Every value a parameter declares ({a|b|...}) runs; another is refused with the list.
        for param, choices in re.findall(r'^-- param :(\w+) \S+ \{([^}]*)\} ', text, re.M):
            for choice in choices.split('|'):
                ctx.ok('run', db, name, '-p', '%s=%s' % (param, choice), '--format', 'json')
            ctx.fails(r'%s: :%s cannot be nosuch \(expected one of %s\)$' % (name, param, choices.replace('|', ', ')),
                      'run', db, name, '-p', param + '=nosuch')
        for fmt in FORMATS:
            p = ctx.ok('run', db, name, '--format', fmt)
            n = result_sets(fmt, p.out)
            check(n in (None, 1), '%s --format %s: %s result sets, not 1:\n%s' % (name, fmt, n, p.out[:2000]))
    if missing:
        raise Skip('views not in the schema yet: ' +
                   ', '.join('%s needs %s' % (k, v) for k, v in sorted(missing.items())))
    # flamegraph names `-- format: folded`: without --format, run writes 'stack value' lines, no header
    # (the trace and the values of tests/golden/q_flamegraph); --format still wins.
    fg = os.path.join(ctx.work, 'flame.db')
    ctx.ok('import', '-q', os.path.join(ROOT, 'tests', 'golden', 'q_flamegraph', 'trace1.json'), '-o', fg)
    p = ctx.ok('run', fg, 'flamegraph', '-p', 'mode=gpu')
    check(p.out == '(no launch);memset_k 5000\n'
                   'autograd::engine::evaluate_function: MmBackward0;aten::mm;cudaLaunchKernel;gemm_bwd 30000\n'
                   'main.py(1): <module>;ProfilerStep#*;aten::mm;cudaLaunchKernel;gemm 120000\n'
                   'main.py(1): <module>;ProfilerStep#*;aten::relu;cudaLaunchKernel;relu_k 10000\n',
          'flamegraph default output: %r' % p.out)
    p = ctx.ok('run', fg, 'flamegraph', '-p', 'mode=gpu', '--format', 'csv')
    check(p.out.startswith('stack,value\n(no launch);memset_k,5000\n'), 'flamegraph --format csv: %r' % p.out)
    p = ctx.ok('query', fg, "SELECT 'a;b' AS stack, 7 AS value UNION ALL SELECT 'a', 3", '--format', 'folded')
    check(p.out == 'a;b 7\na 3\n', '--format folded: %r' % p.out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tracesql', required=True)
    ap.add_argument('--sample')
    ap.add_argument('--update', action='store_true')
    ap.add_argument('group', choices=sorted(k[5:] for k in globals() if k.startswith('test_')))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='tq_shell_')
    try:
        sample = os.path.abspath(a.sample) if a.sample else None
        globals()['test_' + a.group](Ctx(os.path.abspath(a.tracesql), sample, a.update, work))
    except Skip as e:
        print('SKIP: %s' % e)
        return SKIP
    except Failure as e:
        print('FAIL: %s' % e)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
