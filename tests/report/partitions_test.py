#!/usr/bin/env python3
"""tracesql report DIR: the report of a partition directory (docs/scale.md) against the report of
the database merging its partitions, on a generated 3-rank job.

usage: partitions_test.py TRACESQL GEN_TRACE_PY [browser]

Checks:
- every dataset whose query has a combining SQL (queries/combine/NAME.sql) holds the merged page's
  rows, and its `tracesql run DIR NAME ...` line prints them; every other dataset, and the findings,
  is marked not available, naming why and `tracesql merge`;
- with `browser` (Chromium, over the DevTools protocol): no console error or exception; every
  number in the page's tables and cards of a combinable dataset, and every chart mark of their
  sections, equals the merged page's, in the same place; the sections of the other datasets and the
  findings show their not-available note; and the page with every dataset marked not available
  (as when no query has combining SQL) shows that note in every section and nothing else;
- bad input: a partition directory with a missing partition, a directory among other inputs, an
  output that is a partition: one error line, exit 1, nothing written.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
TQ, GEN = os.path.abspath(sys.argv[1]), sys.argv[2]
BROWSER = 'browser' in sys.argv[3:]
COMBINABLE = {f[:-4] for f in os.listdir(os.path.join(SOURCE, 'queries', 'combine'))
              if f.endswith('.sql') and f.count('.') == 1}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def run(args, expect=0, cwd=None):
    r = subprocess.run([TQ] + args, capture_output=True, text=True, cwd=cwd, timeout=120)
    if r.returncode != expect:
        sys.exit('FAIL: tracesql %s: exit %d, expected %d\n%s' % (' '.join(args), r.returncode, expect, r.stderr))
    return r


def page_data(html):
    text = open(html, encoding='utf-8').read()
    start = text.index('id="tq-data">') + len('id="tq-data">')
    return json.loads(text[start:text.index('</script>', start)])


def same(value, v):
    """A JSON value of `tracesql run --format json` against a value of the page's data."""
    if isinstance(value, float) or isinstance(v, float):
        return v is not None and value is not None and float(v) == float(value)
    if isinstance(value, int) and isinstance(v, str):  # integers beyond 2^53: exact strings in the page
        return str(value) == v
    return value == v


DOM = r"""
(() => {
  const cells = (tds) => [...tds].map((td) => [td.dataset.col, td.dataset.null === '1' ? null : td.dataset.v]);
  const out = [];
  for (const t of document.querySelectorAll('table.data[data-dataset]')) {
    out.push([t.dataset.dataset, [...t.querySelectorAll('tbody tr')].map((tr) => [Number(tr.dataset.row), cells(tr.querySelectorAll('td'))])]);
  }
  for (const c of document.querySelectorAll('.card[data-dataset]')) {
    out.push([c.dataset.dataset, [[Number(c.dataset.row), [[c.dataset.col, c.dataset.v]]]]]);
  }
  for (const g of document.querySelectorAll('svg.heatmap[data-dataset]')) out.push([g.dataset.dataset, []]);
  const notes = {};
  for (const p of document.querySelectorAll('p.note.unavailable')) notes[p.dataset.dataset] = p.closest('section').id + ': ' + p.textContent;
  const charts = {};
  for (const s of document.querySelectorAll('main > section')) {
    charts[s.id] = [...s.querySelectorAll('svg.chart')].map((g) => g.dataset.chart + ':' + g.querySelectorAll('[data-v], .hit').length);
  }
  const other = {};  // the other notes of each section (no data, failed)
  for (const p of document.querySelectorAll('main > section p.note:not(.unavailable)')) {
    (other[p.closest('section').id] = other[p.closest('section').id] || []).push(p.textContent);
  }
  return { dom: out, notes, other, charts, sections: [...document.querySelectorAll('main > section')].map((s) => s.id) };
})()
"""


def open_page(browser, html, name):
    url = 'file://' + os.path.abspath(html)
    browser.events.clear()
    browser.open(url)
    for e in browser.drain():
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert', 'warning'):
            check(False, '%s: console %s: %s' % (name, p.get('type'), [a.get('value', a.get('description')) for a in p.get('args', [])]))
        if m == 'Runtime.exceptionThrown':
            check(False, '%s: exception: %s' % (name, p.get('exceptionDetails')))
        if m == 'Network.requestWillBeSent':
            u = p.get('request', {}).get('url', '')
            check(u == url or u.startswith('data:'), '%s: network request to %s' % (name, u))
    return browser.eval(DOM)


def every_dataset_unavailable(html, out):
    """The page with every dataset marked not available, as one whose queries have no combining SQL."""
    text = open(html, encoding='utf-8').read()
    start = text.index('id="tq-data">') + len('id="tq-data">')
    end = text.index('</script>', start)
    data = json.loads(text[start:end])
    for d in data['datasets'].values():
        d.update(columns=[], rows=[], unavailable='%s has no combining SQL (test)' % d['query'])
        d.pop('error', None)
    with open(out, 'w', encoding='utf-8') as f:
        f.write(text[:start] + json.dumps(data).replace('<', '\\u003c') + text[end:])


def check_browser(dir_html, db_html, datasets):
    sys.path.insert(0, HERE)
    import cdp  # noqa: E402
    every = os.path.join(os.path.dirname(dir_html), 'every.html')
    every_dataset_unavailable(dir_html, every)
    browser = cdp.Browser()
    try:
        job = open_page(browser, dir_html, 'report DIR')
        merged = open_page(browser, db_html, 'report DB')
        none = open_page(browser, every, 'every dataset not available')
    finally:
        browser.close()
    # Each section of a page without any dataset says so, and draws nothing: no chart, no table, no
    # "no data" note.
    shown = {n.split(': ')[0] for n in none['notes'].values()}
    check(shown == set(none['sections']) and not none['dom'] and not any(none['charts'].values()) and not none['other'],
          'every section shows its datasets not available and nothing else: notes in %s of %s; dom %s; charts %s; other notes %s'
          % (sorted(shown), none['sections'], none['dom'][:1], {k: v for k, v in none['charts'].items() if v}, none['other']))
    check(job['sections'] == merged['sections'], 'the same sections: %s / %s' % (job['sections'], merged['sections']))
    # The combinable datasets' numbers, in page order, against the merged database's page.
    mine = [(k, rows) for k, rows in job['dom'] if k in datasets and not datasets[k].get('unavailable')]
    theirs = [(k, rows) for k, rows in merged['dom'] if k in datasets and not datasets[k].get('unavailable')]
    cells = sum(len(c) for _, rows in mine for _, c in rows)
    check(mine == theirs, 'the DOM numbers of the combinable datasets equal the merged page\'s (%d cells; first differing: %s)'
          % (cells, next(((a[0], a[1][:1], b[1][:1]) for a, b in zip(mine, theirs) if a != b), len(mine) - len(theirs))))
    check(cells > 500, 'the page has numbers to compare: %d cells' % cells)
    # A section of combinable datasets only draws the merged page's charts, mark for mark.
    whole = [sid for sid in job['sections'] if not any(n.startswith(sid + ': ') for n in job['notes'].values())]
    check(all(job['charts'][sid] == merged['charts'][sid] for sid in whole) and sum(len(job['charts'][sid]) for sid in whole) >= 8,
          'the charts of the sections of combinable datasets equal the merged page\'s: %s / %s'
          % ({sid: job['charts'][sid] for sid in whole}, {sid: merged['charts'][sid] for sid in whole}))
    for key, d in datasets.items():
        if d.get('unavailable'):
            note = job['notes'].get(key, '')
            check('merge' in note and d['query'] in note or key == 'findings' and 'merge' in note,
                  '%s: its section shows it not available: %r' % (key, note))
            check(not any(k == key for k, _ in job['dom']), '%s: no table, card or heatmap of it' % key)
    check(job['notes'].get('findings', '').startswith('findings: '), 'the findings section says why it is empty: %s' % job['notes'])
    print('ok: browser: %d cells of %d combinable datasets and the charts of %s equal the merged page\'s; %d not available'
          % (cells, len({k for k, _ in mine}), whole, len(job['notes'])))


def main():
    with tempfile.TemporaryDirectory() as d:
        p = lambda name: os.path.join(d, name)
        subprocess.run([sys.executable, GEN, '--ranks', '3', '--steps', '2', '--layers', '2', '--hidden', '64', '--seqlen', '16',
                        '--batch', '1', '--vocab', '128', '--compact', '-q', '-o', p('rank{rank}.json')],
                       check=True, stderr=subprocess.DEVNULL)
        run(['import', '-q', '--partitioned'] + [p('rank%d.json' % r) for r in range(3)] + ['-o', p('job')])
        run(['merge', '-q', p('job'), '-o', p('job.db')])
        # The directory as a user names it (relative, with a slash): the page's commands name it so.
        run(['report', 'job/', '-o', 'dir.html'], cwd=d)
        run(['report', 'job.db', '-o', 'db.html'], cwd=d)
        job, merged = page_data(p('dir.html'))['datasets'], page_data(p('db.html'))['datasets']
        check(list(job) == list(merged), 'the same datasets: %s / %s' % (list(job), list(merged)))

        combined = unavailable = 0
        for key, m in merged.items():
            j = job[key]
            if key == 'findings' or m['query'] not in COMBINABLE:
                why = j.get('unavailable', '')
                check(why and 'tracesql merge job/ -o' in why and not j['rows'],
                      '%s (%s): not available, naming tracesql merge: %r' % (key, m['query'], why))
                check(key == 'findings' or 'queries/combine/%s.sql' % m['query'] in why, '%s: names its combining file: %r' % (key, why))
                unavailable += 1
                continue
            combined += 1
            check(not j.get('error') and not j.get('unavailable'), '%s: %s' % (key, j.get('error') or j.get('unavailable')))
            check((j['columns'], j['rows']) == (m['columns'], m['rows']),
                  '%s (%s): the rows equal the merged page\'s (%d / %d rows)' % (key, m['query'], len(j['rows']), len(m['rows'])))
            args = shlex.split(j['command'])
            check(args[:3] == ['tracesql', 'run', 'job/'] and args[3] == m['query'], '%s: the reproduce line %r' % (key, j['command']))
            printed = json.loads(run(args[1:] + ['--format', 'json'], cwd=d).stdout or '[]')
            check(len(printed) == len(j['rows']) and all(same(r.get(c), v) for r, row in zip(printed, j['rows'])
                                                         for c, v in zip(j['columns'], row)),
                  '%s: `%s` prints the page\'s rows' % (key, j['command']))
        check(combined >= 8 and unavailable >= 1, '%d combined, %d not available' % (combined, unavailable))
        print('ok: %d datasets combined over the partitions equal the merged page\'s and their `tracesql run DIR` lines; '
              '%d not available' % (combined, unavailable))

        if BROWSER:
            check_browser(p('dir.html'), p('db.html'), job)

        # Bad input: one error line, exit 1, nothing written.
        shutil.copytree(p('job'), p('broken'))
        os.remove(p('broken/part-00002.db'))
        before = sorted(os.listdir(d))
        for args, words in ((['report', p('broken'), '-o', p('broken.html')], [p('broken/part-00002.db'), 'missing']),
                            (['report', p('job'), p('job.db'), '-o', p('two.html')], [p('job'), 'partition directory']),
                            (['report', p('job'), '-o', p('job/part-00001.db'), '--force'], ['part-00001.db', 'input'])):
            r = run(args, expect=1)
            check(r.stderr.count('\n') == 1 and r.stderr.startswith('tracesql: error: ') and all(w in r.stderr for w in words),
                  '%s: one error line naming %s: %r' % (args[1:3], words, r.stderr))
        check(sorted(os.listdir(d)) == before, 'the refused reports left nothing: %s' % (set(os.listdir(d)) ^ set(before)))
        check(sorted(os.listdir(p('job'))) == ['manifest.json', 'part-00001.db', 'part-00002.db', 'part-00003.db'],
              'the partition directory is untouched: %s' % os.listdir(p('job')))
    if failures:
        sys.exit('%d check(s) failed' % len(failures))
    print('ok')


main()
