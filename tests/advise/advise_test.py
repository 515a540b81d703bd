#!/usr/bin/env python3
"""Tests of `tracesql advise` and its rules (rules/*.sql).

Usage: advise_test.py --tracesql BIN GROUP [ARGS...]
  case RULE        cases/RULE/trigger*.json: `advise --rule RULE` prints exactly cases/RULE/expected.csv;
                   cases/RULE/quiet*.json (a close case): no finding. --update rewrites expected.csv.
  real TRACE|DB... every rule runs without error on each trace (--all lists every rule)
  shadow           a user rule in $XDG_CONFIG_HOME/tracesql/rules (and --rules-dir) replaces the bundled one
  malformed        a rule with the wrong columns, a bad uses line or a syntax error: an error naming the file
  cli              ranking, --all, --list, -p, unknown rule or parameter, a trace as input, exit status
  shell            .advise in the shell, on a read-only database too
"""
import argparse
import csv
import glob
import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COLUMNS = ['trace_id', 'rule', 'severity', 'time_lost_ns', 'title', 'evidence', 'advice']


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Ctx:
    def __init__(self, tq, work):
        self.tq = tq
        self.work = work
        self.env = {k: v for k, v in os.environ.items() if k not in ('XDG_CONFIG_HOME',)}
        self.env['HOME'] = os.path.join(work, 'home')
        os.makedirs(self.env['HOME'], exist_ok=True)

    def run(self, *args, stdin=None, env=None, ok=True):
        p = subprocess.run([self.tq, *args], input=stdin, capture_output=True, text=True,
                           env=env or self.env, timeout=300)
        if ok and p.returncode != 0:
            raise Failure(f"tracesql {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return p

    def db(self, name, traces):
        path = os.path.join(self.work, name + '.db')
        self.run('import', *traces, '-o', path, '-q', '--force')
        return path

    def findings(self, db, *args, env=None):
        out = self.run('advise', db, '--format', 'csv', *args, env=env).stdout
        rows = list(csv.reader(io.StringIO(out)))
        check(rows and rows[0] == COLUMNS, f'advise output header: {rows[:1]}')
        return rows[1:]


def group_case(ctx, rule, update):
    d = os.path.join(HERE, 'cases', rule)
    trigger = sorted(glob.glob(os.path.join(d, 'trigger*.json')))
    quiet = sorted(glob.glob(os.path.join(d, 'quiet*.json')))
    check(trigger and quiet, f'{d}: needs trigger*.json and quiet*.json')
    out = ctx.run('advise', ctx.db('trigger', trigger), '--rule', rule, '--format', 'csv').stdout
    expected_path = os.path.join(d, 'expected.csv')
    if update:
        with open(expected_path, 'w') as f:
            f.write(out)
    with open(expected_path) as f:
        expected = f.read()
    check(out == expected, f'{rule}: trigger case differs from expected.csv:\n--- got\n{out}--- expected\n{expected}')
    rows = list(csv.reader(io.StringIO(out)))[1:]
    check(len(rows) >= 1 and all(r[1] == rule for r in rows), f'{rule}: the trigger case finds nothing')
    check(ctx.findings(ctx.db('quiet', quiet), '--rule', rule) == [], f'{rule}: the close case must not trigger')


def group_real(ctx, traces):
    rules = [r[0] for r in csv.reader(io.StringIO(ctx.run('advise', '--list', '--format', 'csv').stdout))][1:]
    check(len(rules) >= 11, f'only {len(rules)} rules')
    for t in traces:
        db = t if t.endswith('.db') else ctx.db('real', [t])  # a .db: one trace's database, read as it is
        p = ctx.run('advise', db, '--all', '--format', 'csv', ok=False)
        check(p.returncode == 0, f'{t}: exit {p.returncode}: {p.stderr.strip()}')
        parts = p.stdout.split('\n\n')
        check(len(parts) == 2, f'{t}: expected the findings and the rules run')
        findings = list(csv.reader(io.StringIO(parts[0])))
        check(findings[0] == COLUMNS, f'{t}: header {findings[0]}')
        lost = [int(r[3]) for r in findings[1:]]
        check(lost == sorted(lost, reverse=True), f'{t}: findings not sorted by time_lost_ns: {lost}')
        for r in findings[1:]:
            check(r[2] in ('high', 'medium', 'low'), f'{t}: severity {r[2]!r}')
            check(r[1] in rules and r[4] and r[5] and r[6], f'{t}: incomplete finding {r}')
        run = list(csv.reader(io.StringIO(parts[1])))
        check([r[0] for r in run[1:]] == rules, f'{t}: --all lists {[r[0] for r in run[1:]]}')
        print(f'{os.path.basename(t)}: {len(findings) - 1} findings: {", ".join(r[1] for r in findings[1:])}')


SHADOW = """-- title: My host rule
-- param :min_share 0.5 — mine
SELECT id AS trace_id, 'host_bound_idle' AS rule, 'low' AS severity, 42 AS time_lost_ns, 'user rule ran' AS title,
       'none' AS evidence, 'none' AS advice
FROM traces
"""


def group_shadow(ctx):
    db = ctx.db('t', [os.path.join(HERE, 'cases', 'host_bound_idle', 'trigger.json')])
    conf = os.path.join(ctx.work, 'conf')
    os.makedirs(os.path.join(conf, 'tracesql', 'rules'))
    with open(os.path.join(conf, 'tracesql', 'rules', 'host_bound_idle.sql'), 'w') as f:
        f.write(SHADOW)
    env = dict(ctx.env, XDG_CONFIG_HOME=conf)
    rows = ctx.findings(db, '--rule', 'host_bound_idle', env=env)
    check(rows == [['1', 'host_bound_idle', 'low', '42', 'user rule ran', 'none', 'none']], f'shadowed: {rows}')
    listing = ctx.run('advise', '--list', '--format', 'csv', env=env).stdout
    check('(shadows builtin)' in listing and 'My host rule' in listing, f'--list: {listing}')
    # Without the user rule the bundled one runs.
    rows = ctx.findings(db, '--rule', 'host_bound_idle')
    check(len(rows) == 1 and rows[0][3] == '760000', f'bundled: {rows}')
    # --rules-dir comes before the config directory, and a new rule there runs with the others.
    mine = os.path.join(ctx.work, 'mine')
    os.makedirs(mine)
    with open(os.path.join(mine, 'host_bound_idle.sql'), 'w') as f:
        f.write(SHADOW.replace('user rule ran', 'rules-dir rule ran'))
    with open(os.path.join(mine, 'zz_extra.sql'), 'w') as f:
        f.write(SHADOW.replace("'host_bound_idle' AS rule", "'zz_extra' AS rule").replace('42', '7'))
    rows = ctx.findings(db, '--rules-dir', mine, env=env)
    check(['1', 'host_bound_idle', 'low', '42', 'rules-dir rule ran', 'none', 'none'] in rows, f'rules-dir: {rows}')
    check(['1', 'zz_extra', 'low', '7', 'user rule ran', 'none', 'none'] in rows, f'extra rule: {rows}')


def group_malformed(ctx):
    db = ctx.db('t', [os.path.join(HERE, 'cases', 'host_bound_idle', 'trigger.json')])
    rules = os.path.join(ctx.work, 'rules')
    os.makedirs(rules)
    bad = {
        'wrong_columns': ("SELECT id AS trace_id, 'x' AS rule, 1 AS time_lost_ns FROM traces",
                          'a rule returns the columns trace_id, rule, severity, time_lost_ns, title, evidence, '
                          'advice; this one returns trace_id, rule, time_lost_ns'),
        'syntax': ('SELEC 1', 'syntax error'),
        'two_statements': ("SELECT 1; SELECT 2", 'more than one statement'),
        'bad_uses': ("-- uses: no_such_query\nSELECT 1", "uses 'no_such_query', which is no bundled query"),
    }
    for name, (sql, message) in bad.items():
        path = os.path.join(rules, name + '.sql')
        with open(path, 'w') as f:
            f.write(sql + '\n')
        p = ctx.run('advise', db, '--rules-dir', rules, '--rule', name, ok=False)
        check(p.returncode == 1, f'{name}: exit {p.returncode}')
        check(path in p.stderr and message in p.stderr, f'{name}: stderr {p.stderr!r}')
        check(p.stdout == '', f'{name}: printed {p.stdout!r}')
        os.remove(path)


def group_cli(ctx):
    cases = os.path.join(HERE, 'cases')
    # Several rules fire on the sync trace (sync_calls, host_bound_idle): most time lost first.
    db = ctx.db('sync', [os.path.join(cases, 'sync_calls', 'trigger.json')])
    rows = ctx.findings(db)
    lost = [int(r[3]) for r in rows]
    check(len(rows) >= 2 and lost == sorted(lost, reverse=True), f'not ranked: {rows}')
    check({'sync_calls', 'host_bound_idle'} <= {r[1] for r in rows}, f'rules found: {[r[1] for r in rows]}')
    # -p changes a threshold; an unknown parameter or rule is an error.
    check(ctx.findings(db, '--rule', 'sync_calls', '-p', 'min_share=0.6') == [], '-p min_share=0.6 still finds')
    p = ctx.run('advise', db, '-p', 'no_such=1', ok=False)
    check(p.returncode == 1 and 'no rule takes the parameter :no_such' in p.stderr, p.stderr)
    p = ctx.run('advise', db, '--rule', 'no_such_rule', ok=False)
    check(p.returncode == 1 and "no rule named 'no_such_rule'" in p.stderr, p.stderr)
    # Nothing found: exit 0, the header alone; --all lists every rule as passed.
    quiet = ctx.db('quiet', [os.path.join(cases, 'exposed_h2d_copy', 'quiet.json')])
    p = ctx.run('advise', quiet, '--rule', 'exposed_h2d_copy', '--all', '--format', 'csv')
    check(p.stdout == ','.join(COLUMNS) + '\n\nrule,result,title,source\n'
          'exposed_h2d_copy,passed,Host-to-device copies not overlapped with compute,'
          'builtin:rules/exposed_h2d_copy.sql\n', f'--all: {p.stdout!r}')
    # A trace is imported next to itself first (as `tracesql TRACE`), then advised.
    trace = os.path.join(ctx.work, 'pageable.json')
    shutil.copy(os.path.join(cases, 'pageable_memcpy', 'trigger.json'), trace)
    rows = ctx.findings(trace, '--rule', 'pageable_memcpy')
    check(len(rows) == 1 and rows[0][3] == '280000', f'trace input: {rows}')
    check(os.path.exists(os.path.join(ctx.work, 'pageable.db')), 'no database next to the trace')
    # --list: every bundled rule with its parameters.
    listing = list(csv.reader(io.StringIO(ctx.run('advise', '--list', '--format', 'csv').stdout)))
    names = sorted(os.path.basename(f)[:-4] for f in glob.glob(os.path.join(ROOT, 'rules', '*.sql')))
    check([r[0] for r in listing[1:]] == names, f'--list: {listing}')
    check(all(r[1] for r in listing[1:]), 'a rule without a title')
    # Not a database or trace; no file.
    p = ctx.run('advise', os.path.join(ctx.work, 'missing.db'), ok=False)
    check(p.returncode == 1 and 'no such file' in p.stderr, p.stderr)


def group_shell(ctx):
    db = ctx.db('sync', [os.path.join(HERE, 'cases', 'sync_calls', 'trigger.json')])
    os.chmod(db, stat.S_IRUSR)  # read-only: the findings live in temp tables
    p = ctx.run('shell', db, '--format', 'csv',
                stdin='.advise sync_calls\nSELECT rule, time_lost_ns FROM advise_findings;\n'
                      '.advise sync_calls min_share=0.6\n.advise nope\n', ok=False)
    check(p.returncode == 1, f'shell exit {p.returncode} after an error')
    out = p.stdout.split('\n\n')
    check(out[0].startswith(','.join(COLUMNS) + '\n1,sync_calls,high,390000,'), f'.advise: {out[0]!r}')
    check(out[1] == 'rule,time_lost_ns\nsync_calls,390000', f'advise_findings: {out[1]!r}')
    check(out[2].strip() == ','.join(COLUMNS), f'.advise with a parameter: {out[2]!r}')
    check("no rule named 'nope'" in p.stderr, f'.advise nope: {p.stderr!r}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tracesql', required=True)
    ap.add_argument('--update', action='store_true')
    ap.add_argument('group')
    ap.add_argument('args', nargs='*')
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='tq_advise_')
    ctx = Ctx(os.path.abspath(a.tracesql), work)
    try:
        if a.group == 'case':
            group_case(ctx, a.args[0], a.update)
        elif a.group == 'real':
            group_real(ctx, a.args)
        else:
            {'shadow': group_shadow, 'malformed': group_malformed, 'cli': group_cli, 'shell': group_shell}[a.group](ctx)
    except Failure as e:
        print(f'FAIL: {e}', file=sys.stderr)
        return 1
    finally:
        for root, dirs, files in os.walk(work):
            for n in files:
                os.chmod(os.path.join(root, n), stat.S_IRUSR | stat.S_IWUSR)
        shutil.rmtree(work, ignore_errors=True)
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
