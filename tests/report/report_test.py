#!/usr/bin/env python3
"""tracesql report in a real browser: the report of real traces is loaded in headless Chromium
(driven over the DevTools protocol) and checked: no console error or exception, no network request,
every section the data allows drawn (and the others saying why not), a non-blank screenshot of each
section, and every number in the page's tables and cards equal to what the `tracesql run` line the
page shows prints.

usage: report_test.py TRACESQL TRACES_DIR WORK_DIR [SHOTS_DIR]
"""
import json
import re
import os
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

TQ, TRACES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SHOTS = sys.argv[4] if len(sys.argv) > 4 else os.path.join(WORK, 'shots')

ALL = ['overview', 'utilization', 'temporal', 'steps', 'kernels', 'cpu_ops', 'idle', 'communication', 'memory', 'launch']
# Per case: the traces, and the sections that must hold a chart (the others must say why they have none).
CASES = [
    ('single_rank', ['hta_a100_nccl_train_fwdbwd.json.gz'],
     {'overview', 'utilization', 'temporal', 'steps', 'kernels', 'cpu_ops', 'idle', 'communication', 'launch'}),
    ('multi_rank', ['hta_sampled_rank0.json.gz', 'hta_sampled_rank1.json.gz'],
     {'overview', 'utilization', 'temporal', 'steps', 'kernels', 'cpu_ops', 'idle', 'communication', 'launch'}),
    ('no_gpu', ['hta_mtia_inference_rank0.json.gz'], {'cpu_ops'}),
    ('memory', ['kineto_tbplugin_resnet50_v100_2021_memory.json.gz'],
     {'overview', 'utilization', 'temporal', 'steps', 'kernels', 'cpu_ops', 'idle', 'memory', 'launch'}),
]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def same(value, cell):
    """A JSON value of `tracesql run --format json` against a DOM cell {v, null}."""
    if value is None:
        return cell['null']
    if cell['null']:
        return False
    if isinstance(value, bool):
        return str(int(value)) == cell['v']
    if isinstance(value, int):
        return str(value) == cell['v']
    if isinstance(value, float):
        try:
            return float(cell['v']) == value
        except ValueError:
            return False
    return str(value) == cell['v']


def run_command(command):
    args = shlex.split(command)
    assert args[0] == 'tracesql' and args[1] in ('run', 'advise'), command
    out = subprocess.run([TQ] + args[1:] + ['--format', 'json'], check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


DOM_TABLES = r"""
(() => {
  const out = [];
  for (const t of document.querySelectorAll('table.data[data-dataset]')) {
    const rows = [];
    for (const tr of t.querySelectorAll('tbody tr')) {
      rows.push({ row: Number(tr.dataset.row), cells: [...tr.querySelectorAll('td')].map((td) => ({
        col: td.dataset.col, v: td.dataset.v === undefined ? '' : td.dataset.v, null: td.dataset.null === '1' })) });
    }
    out.push({ key: t.dataset.dataset, rows });
  }
  for (const g of document.querySelectorAll('svg.heatmap[data-dataset]')) {
    out.push({ key: g.dataset.dataset, rows: [...g.querySelectorAll('rect.cell[data-row]')].map((c) => ({ row: Number(c.dataset.row),
      cells: [{ col: c.dataset.col, v: c.dataset.v === undefined ? '' : c.dataset.v, null: c.dataset.null === '1' }] })) });
  }
  for (const c of document.querySelectorAll('.card[data-dataset]')) {
    out.push({ key: c.dataset.dataset, rows: [{ row: Number(c.dataset.row), cells: [{ col: c.dataset.col, v: c.dataset.v, null: false }] }] });
  }
  return out;
})()
"""

SECTIONS = r"""
(() => [...document.querySelectorAll('main > section')].map((s) => {
  const r = s.getBoundingClientRect();
  return { id: s.id, charts: [...s.querySelectorAll('svg.chart')].filter((g) => g.querySelector('rect, path, circle')).length,
           notes: [...s.querySelectorAll('p.note')].map((p) => p.textContent),
           sources: s.querySelectorAll('.src code.cmd').length,
           x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
}))()
"""


COLUMNS = r"""
(() => {
  const g = document.querySelector('#utilization svg.chart.time');
  g.scrollIntoView({ block: 'center' });
  const r = g.getBoundingClientRect();
  const reset = g.parentElement.querySelector('button.reset');
  return { x: r.left, y: r.top + r.height / 2, w: r.width, n: g.querySelectorAll('g.hit').length,
           reset: reset.style.display !== 'none' };
})()
"""


def check_zoom(name, browser):
    """Dragging across the first utilisation chart zooms in (fewer buckets drawn, a reset button);
    the button zooms back out."""
    before = browser.eval(COLUMNS)
    x0, x1, y = before['x'] + before['w'] * 0.4, before['x'] + before['w'] * 0.6, before['y']
    for kind, x, buttons in (('mousePressed', x0, 1), ('mouseMoved', (x0 + x1) / 2, 1), ('mouseReleased', x1, 0)):
        browser.call('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': 'left', 'buttons': buttons,
                                                  'clickCount': 1})
    zoomed = browser.eval(COLUMNS)
    check(0 < zoomed['n'] < before['n'] and zoomed['reset'],
          '%s: dragging zooms the time axis (%d -> %d buckets drawn)' % (name, before['n'], zoomed['n']))
    browser.eval("document.querySelector('#utilization button.reset').click()")
    after = browser.eval(COLUMNS)
    check(after['n'] == before['n'] and not after['reset'], '%s: reset zoom draws every bucket again' % name)


HEATMAP = r"""
(() => {
  const g = document.querySelector('#communication svg.heatmap');
  if (!g) return null;
  return { metric: g.dataset.metric, dataset: g.dataset.dataset,
           cells: [...g.querySelectorAll('rect.cell')].map((c) => ({ row: Number(c.dataset.row), v: c.dataset.v, fill: c.getAttribute('fill') })),
           ranks: [...g.querySelectorAll('text')].map((t) => t.textContent).filter((t) => /^rank /.test(t)) };
})()
"""


def check_heatmap(name, browser, multi):
    """The rank x collective heatmap (multi-rank databases only): one cell per row of its query's
    output, holding that row's dur; the toggle redraws it with wait_ns; a row label per rank."""
    before = browser.eval(HEATMAP)
    if not multi:
        check(before is None, '%s: no rank x collective heatmap for one rank' % name)
        return
    check(before is not None, '%s: a rank x collective heatmap' % name)
    if before is None:
        return
    command = browser.eval('DATA.datasets.%s.command' % before['dataset'])
    expected = run_command(command)
    check(len(before['cells']) == len(expected) > 0,
          '%s: heatmap has one cell per row of `%s` (%d cells, %d rows)' % (name, command, len(before['cells']), len(expected)))
    ranks = sorted({str(r['rank']) for r in expected}, key=int)
    check(before['ranks'] == ['rank ' + r for r in ranks], '%s: heatmap rows are the ranks %s: %s' % (name, ranks, before['ranks']))
    check(len({c['fill'] for c in before['cells']}) > 1, '%s: heatmap cells are not all one colour' % name)
    for metric, state in (('dur', before), ('wait_ns', None)):
        if state is None:
            browser.eval("document.querySelector('#communication .toggle button[data-metric=\"wait_ns\"]').click()")
            state = browser.eval(HEATMAP)
        check(state['metric'] == metric, '%s: heatmap shows %s' % (name, metric))
        bad = [c for c in state['cells'] if str(expected[c['row']][metric]) != c['v']]
        check(not bad, '%s: heatmap %s cells equal the query output (%d differ, first %s)' % (name, metric, len(bad), bad[:1]))


def check_case(name, traces, charted, browser):
    case_dir = os.path.join(WORK, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    db = os.path.join(case_dir, 'trace.db')
    subprocess.run([TQ, 'import', '-q', '-o', db] + [os.path.join(TRACES, t) for t in traces], check=True)
    html = os.path.join(case_dir, 'report.html')
    subprocess.run([TQ, 'report', db, '-o', html], check=True, capture_output=True)
    text = open(html, encoding='utf-8').read()
    check("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" in text, name + ': CSP meta forbidding loads')
    # Nothing in the page but its data may name another resource (the SVG namespace is a name, not a load).
    start = text.index('id="tq-data">')
    page = text[:start] + text[text.index('</script>', start):]
    page = page.replace('http://www.w3.org/2000/svg', '')
    for bad in ('http://', 'https://', 'src=', '@import', '<link', '<iframe', 'fetch(', 'XMLHttpRequest'):
        check(bad not in page, '%s: no %s in the page outside its data' % (name, bad))
    check(not re.search(r'url\((?!#)', page), '%s: no url() but to an element of the page' % name)
    url = 'file://' + os.path.abspath(html)
    browser.events.clear()
    browser.open(url)
    events = browser.drain()
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert', 'warning'):
            check(False, '%s: console %s: %s' % (name, p.get('type'), [a.get('value', a.get('description')) for a in p.get('args', [])]))
        if m == 'Runtime.exceptionThrown':
            check(False, '%s: exception: %s' % (name, p.get('exceptionDetails')))
        if m == 'Log.entryAdded' and p.get('entry', {}).get('level') == 'error':
            check(False, '%s: log error: %s' % (name, p['entry'].get('text')))
        if m == 'Network.requestWillBeSent':
            u = p.get('request', {}).get('url', '')
            check(u == url or u.startswith('data:'), '%s: network request to %s' % (name, u))
    sections = {s['id']: s for s in browser.eval(SECTIONS)}
    for sid in ALL:
        check(sid in sections, '%s: section %s present' % (name, sid))
        if sid not in sections:
            continue
        s = sections[sid]
        check(s['sources'] >= 1, '%s: section %s names its query and `tracesql run` line' % (name, sid))
        if sid in charted:
            check(s['charts'] >= 1, '%s: section %s has a chart' % (name, sid))
            check(not any('failed' in n for n in s['notes']), '%s: section %s: %s' % (name, sid, s['notes']))
        else:
            check(s['charts'] == 0 and s['notes'], '%s: section %s says why it has no chart' % (name, sid))
        clip = {'x': s['x'], 'y': s['y'], 'width': s['width'], 'height': min(s['height'], 1600)}
        png = browser.screenshot(clip)
        os.makedirs(SHOTS, exist_ok=True)
        with open(os.path.join(SHOTS, '%s_%s.png' % (name, sid)), 'wb') as f:
            f.write(png)
        share, colors = cdp.ink(png)
        need = 0.01 if sid in charted else 0.002
        check(share >= need and colors >= 3, '%s: screenshot of %s is not blank (ink %.4f, %d colours)' % (name, sid, share, colors))
    if 'utilization' in charted:
        check_zoom(name, browser)
    if 'communication' in charted:
        check_heatmap(name, browser, len(traces) > 1)
    # Numbers in the DOM against the page's own `tracesql run` lines.
    data = browser.eval('DATA.datasets')
    cached = {}
    compared = 0
    for t in browser.eval(DOM_TABLES):
        d = data[t['key']]
        if t['key'] not in cached:
            cached[t['key']] = run_command(d['command'])
        expected = cached[t['key']]
        for r in t['rows']:
            check(0 <= r['row'] < len(expected), '%s: %s row %d exists in the query output' % (name, t['key'], r['row']))
            if not 0 <= r['row'] < len(expected):
                continue
            for c in r['cells']:
                ok = same(expected[r['row']].get(c['col']), c)
                compared += 1
                check(ok, '%s: %s row %d %s: page %r, query %r' % (name, t['key'], r['row'], c['col'], c, expected[r['row']].get(c['col'])))
    check(compared > 0, '%s: the page has numbers to compare' % name)
    print('%s: %d sections, %d values equal to the query output, %d KB' % (name, len(sections), compared, len(text) // 1024))


def main():
    browser = cdp.Browser()
    try:
        for name, traces, charted in CASES:
            check_case(name, traces, charted, browser)
    finally:
        browser.close()
    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('ok')


main()
