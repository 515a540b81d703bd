#!/usr/bin/env python3
"""Untrusted databases (issue 6, item 6): a crafted .db given to `tracesql query`, `run` and the shell
gives an error or a working shell, never a crash, and nothing in it runs code or writes files.

  usage: untrusted_db.py TRACESQL SAMPLE_TRACE
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TQ, TRACE = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix='tq_untrusted_')
fails = []
passes = 0


def run(args, stdin=None):
    p = subprocess.run([TQ] + args, input=stdin, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=''):
    global passes
    if cond:
        passes += 1
    else:
        fails.append('%s: %s' % (name, detail))


def no_crash(name, rc, err):
    # A negative return code is a signal (SIGSEGV, SIGABRT...): never allowed.
    check(name + ' no crash', rc >= 0 and 'Sanitizer' not in err, 'rc=%d %s' % (rc, err[-300:]))


base = os.path.join(work, 'base.db')
rc, _, err = run(['import', '-q', TRACE, '-o', base])
check('import sample', rc == 0, err)


def variant(name, sql=None, mutate=None):
    path = os.path.join(work, name + '.db')
    shutil.copy(base, path)
    if sql:
        con = sqlite3.connect(path)
        con.executescript(sql)
        con.commit()
        con.close()
    if mutate:
        mutate(path)
    return path


marker = os.path.join(work, 'written_by_trigger')
cases = {
    # A view that calls a function that does not exist: querying it is an error, other queries work.
    'unknown_function': variant('unknown_function', "CREATE VIEW evil AS SELECT no_such_fn(1) AS x;"),
    # A trigger and a view that would write a file through ATTACH if anything executed them.
    'trigger': variant('trigger', "CREATE TABLE t(a); CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
                                  "SELECT load_extension('/nonexistent'); END;"),
    # A schema version from the future.
    'huge_user_version': variant('huge_user_version', "PRAGMA user_version = 2147483647;"),
    # A view using load_extension / writefile (refused: extensions are never enabled).
    'load_extension': variant('load_extension', "CREATE VIEW le AS SELECT load_extension('/nonexistent') AS x;"),
}


def corrupt(path):
    with open(path, 'r+b') as f:
        size = os.path.getsize(path)
        f.seek(size // 2)
        f.write(b'\xde\xad\xbe\xef' * 4096)


cases['corrupt_page'] = variant('corrupt_page', mutate=corrupt)

for name, path in cases.items():
    rc, out, err = run(['query', path, 'SELECT count(*) FROM events'])
    no_crash(name + ' query', rc, err)
    if name == 'huge_user_version':
        check(name + ' refused', rc != 0 and 'newer' in err, err)
    rc, out, err = run(['shell', path], stdin='SELECT 1 AS ok;\nSELECT * FROM evil;\nSELECT * FROM le;\n'
                                             'INSERT INTO t VALUES (1);\n.tables\n')
    no_crash(name + ' shell', rc, err)
    rc, out, err = run(['run', path, 'top_kernels'])
    no_crash(name + ' run', rc, err)

# Specific outcomes.
rc, out, err = run(['query', cases['unknown_function'], 'SELECT * FROM evil'])
check('unknown function is an error', rc != 0 and 'no_such_fn' in err, err)
rc, out, err = run(['query', '--format', 'csv', cases['unknown_function'], 'SELECT count(*) AS n FROM traces'])
check('rest of the database still works', rc == 0 and out.strip().endswith('1'), out + err)
rc, out, err = run(['query', cases['load_extension'], 'SELECT * FROM le'])
check('load_extension refused', rc != 0, out + err)
rc, out, err = run(['query', cases['trigger'], 'INSERT INTO t VALUES (1)'])
check('trigger calling load_extension refused', rc != 0, out + err)
check('nothing written', not os.path.exists(marker), marker)
rc, out, err = run(['query', cases['corrupt_page'], 'PRAGMA integrity_check'])
no_crash('corrupt integrity_check', rc, err)

shutil.rmtree(work, ignore_errors=True)
for f in fails:
    print('FAIL', f)
print('%d passed, %d failed' % (passes, len(fails)))
sys.exit(1 if fails else 0)
