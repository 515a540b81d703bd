#!/usr/bin/env python3
"""Query plans the bundled queries' speed rests on (EXPLAIN QUERY PLAN through `tracesql query`).

    query_plans_test.py TRACESQL TRACE

launch_stats (every :group / :include_memory) and launch_delays group the GPU ops with a launch by
(trace, launch call name, GPU op name id) reading only the covering index
op_kernel_links_launch_name: no temp b-tree for that GROUP BY, no seek into op_kernel_links or
events per op. Exits 1 with the plans that break this.
"""
import os
import subprocess
import sys
import tempfile

INDEX = 'op_kernel_links_launch_name'
CASES = [
    ('launch_stats', []),
    ('launch_stats', ['-p', 'group=api']),
    ('launch_stats', ['-p', 'include_memory=0']),
    ('launch_stats', ['-p', 'group=api', '-p', 'include_memory=0']),
    ('launch_stats', ['-p', 'trace_id=1']),
    ('launch_delays', []),
    ('launch_delays', ['-p', 'trace_id=1']),
]


def plan(tq, db, sql, params):
    out = subprocess.run([tq, 'query', db, 'EXPLAIN QUERY PLAN ' + sql, '--format', 'tsv', '--no-header'] + params,
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        node, parent, _, detail = line.split('\t', 3)
        rows.append((int(node), int(parent), detail))
    return rows


def main():
    tq, trace = sys.argv[1], sys.argv[2]
    problems = []
    with tempfile.TemporaryDirectory() as w:
        db = os.path.join(w, 't.db')
        subprocess.run([tq, 'import', '-q', trace, '-o', db], check=True)
        for name, params in CASES:
            sql = subprocess.run([tq, 'queries', '--show', name], check=True, capture_output=True, text=True).stdout
            rows = plan(tq, db, sql, params)
            what = ' '.join([name] + params)
            scans = [r for r in rows if ('USING COVERING INDEX %s' % INDEX) in r[2] and r[2].startswith('SCAN')]
            if len(scans) != 1:
                problems.append('%s: no single SCAN ... USING COVERING INDEX %s' % (what, INDEX))
                continue
            parent = scans[0][1]
            for node, par, d in rows:
                if par == parent and node != scans[0][0] and (d.startswith(('SCAN', 'SEARCH')) or 'TEMP B-TREE' in d):
                    problems.append('%s: the GROUP BY over %s also does %r' % (what, INDEX, d))
    for p in problems:
        print('FAIL: ' + p)
    print('query plans: %d cases, %d problems' % (len(CASES), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
