// tracesql report: lays out the result sets of bundled queries (embedded as JSON in #tq-data) as
// SVG charts and sortable tables. Every number shown comes from a query; this script only places
// and formats them (no sums, ratios or other arithmetic on the data).
'use strict';

const DATA = JSON.parse(document.getElementById('tq-data').textContent);
const SVGNS = 'http://www.w3.org/2000/svg';
const COLORS = {
  busy: '#2f6fd0', host: '#e4572e', device: '#f3a712', unknown: '#9aa3b2',
  compute: '#2f6fd0', comm: '#8e44ad', memcpy: '#17a589', other: '#b7950b', idle: '#d5d8dc',
  bar: '#2f6fd0', alloc: '#2f6fd0', reserved: '#17a589', peak: '#e4572e', step: '#5d6778',
};

// ---- DOM helpers ----
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
function s(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
}

// ---- values and formatting ----
// Integers beyond 2^53 arrive as strings (exact); num() is for placing things on an axis only.
function num(v) { return v === null || v === undefined ? NaN : Number(v); }
function raw(v) { return v === null || v === undefined ? '' : String(v); }
function fmtInt(v) {
  const t = raw(v);
  return /^-?\d+$/.test(t) ? t.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : t;
}
function fmtNs(v) {
  if (v === null || v === undefined) return '';
  const x = num(v), a = Math.abs(x);
  if (a < 1e3) return fmtInt(v) + ' ns';
  if (a < 1e6) return (x / 1e3).toFixed(a < 1e4 ? 2 : 1) + ' µs';
  if (a < 1e9) return (x / 1e6).toFixed(a < 1e7 ? 2 : 1) + ' ms';
  return (x / 1e9).toFixed(3) + ' s';
}
function fmtBytes(v) {
  if (v === null || v === undefined) return '';
  const x = num(v), a = Math.abs(x);
  if (a < 1024) return fmtInt(v) + ' B';
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let u = -1, y = x;
  while (Math.abs(y) >= 1024 && u < units.length - 1) { y /= 1024; u++; }
  return y.toFixed(Math.abs(y) < 10 ? 2 : 1) + ' ' + units[u];
}
function kindOf(col) {
  if (/(^|_)ts$|_event_id$|^trace_id$|^step$|^seq$|^rank$|^device|^bucket$|_id$/.test(col)) return 'id';
  if (/pct$/.test(col)) return 'pct';
  if (/bytes$|allocated|reserved|total_memory/.test(col)) return 'bytes';
  if (/_ns$|^dur$|_dur$|delay|^cpu_(total|avg|min|max)$|^gpu_avg$|^s2s_|^total_avg$/.test(col)) return 'ns';
  return 'plain';
}
function fmt(col, v) {
  if (v === null || v === undefined) return '';
  switch (kindOf(col)) {
    case 'pct': return raw(v) + ' %';
    case 'bytes': return fmtBytes(v);
    case 'ns': return fmtNs(v);
    case 'id': return raw(v);
    default: return typeof v === 'number' ? fmtInt(v) : raw(v);
  }
}

// ---- tooltip ----
const tip = document.getElementById('tip');
function attachTip(node, text) {
  node.addEventListener('mousemove', (ev) => {
    tip.textContent = text;
    tip.style.display = 'block';
    const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const y = ev.clientY + 16 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 16;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  node.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
}
// "column = exact value (formatted)" lines of a row, for tooltips.
function rowTip(ds, row, cols) {
  return (cols || ds.columns).map((c) => {
    const i = ds.columns.indexOf(c), v = row[i];
    const f = fmt(c, v);
    return c + ' = ' + raw(v) + (f !== raw(v) && f !== '' ? '  (' + f + ')' : '');
  }).join('\n');
}

// ---- datasets ----
function ds(key) { return DATA.datasets[key]; }
function col(d, name) { return d.columns.indexOf(name); }
function rows(d) { return d && !d.error && !d.unavailable ? d.rows : []; }
// A dataset the page could not have (its query failed, or it is not available where the report was
// made: srcLine says why), as opposed to one with no rows.
function absent(d) { return !d || Boolean(d.error || d.unavailable); }
function get(d, row, name) { return row[col(d, name)]; }
function srcLine(d) {
  const div = h('div', { class: 'src', 'data-query': d.query });
  if (d.unavailable) {
    div.append('Query ', h('code', { text: d.query }), ' — not available in this report');
    div.append(h('p', { class: 'note unavailable', 'data-dataset': d.key, text: 'Not available: ' + d.unavailable }));
    return div;
  }
  div.append('Query ', h('code', { text: d.query }), ' — reproduce: ', h('code', { class: 'cmd', text: d.command }));
  if (d.error) div.append(h('p', { class: 'note', text: 'This query failed, so its chart is missing: ' + d.error }));
  return div;
}
function note(text) { return h('p', { class: 'note', text }); }

// ---- sortable table ----
function table(d, opts) {
  opts = opts || {};
  const cols = opts.columns || d.columns;
  const idx = cols.map((c) => col(d, c));
  const t = h('table', { class: 'data', 'data-query': d.query, 'data-dataset': d.key });
  const head = h('tr');
  cols.forEach((c) => head.append(h('th', { text: c, 'data-col': c, title: 'Sort by ' + c })));
  t.append(h('thead', {}, head));
  const body = h('tbody');
  let data = rows(d).map((r, i) => ({ r, i }));
  if (opts.limit) data = data.slice(0, opts.limit);
  const fill = () => {
    body.textContent = '';
    for (const { r, i } of data) {
      const tr = h('tr', { 'data-row': i });
      idx.forEach((k, j) => {
        const v = r[k], c = cols[j];
        const isNum = typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v) && kindOf(c) !== 'plain');
        const td = h('td', { class: isNum ? 'num' : (typeof v === 'string' && v.length > 40 ? 'name' : null),
                             'data-col': c, 'data-v': v === null ? null : raw(v), title: typeof v === 'string' && v.length > 40 ? v : null,
                             text: fmt(c, v) });
        if (v === null) td.setAttribute('data-null', '1');
        tr.append(td);
      });
      body.append(tr);
    }
  };
  fill();
  t.append(body);
  let sortCol = -1, asc = true;
  head.querySelectorAll('th').forEach((th, j) => th.addEventListener('click', () => {
    asc = sortCol === j ? !asc : false;
    sortCol = j;
    const k = idx[j];
    data.sort((a, b) => {
      const x = a.r[k], y = b.r[k];
      if (x === y) return a.i - b.i;
      if (x === null) return 1;
      if (y === null) return -1;
      const nx = num(x), ny = num(y);
      const c = !isNaN(nx) && !isNaN(ny) && typeof x !== 'boolean' && String(x).trim() !== '' && nx !== ny
        ? nx - ny : String(x).localeCompare(String(y));
      return asc ? c : -c;
    });
    head.querySelectorAll('th').forEach((e) => e.classList.remove('sorted-asc', 'sorted-desc'));
    th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
    fill();
  }));
  return h('div', { class: 'tablewrap' }, t);
}

function legend(items) {
  const d = h('div', { class: 'legend' });
  for (const [name, color] of items) {
    const i = h('i');
    i.style.background = color;
    d.append(h('span', {}, i, name));
  }
  return d;
}

// ---- charts ----
function niceTicks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const step0 = (hi - lo) / n, p = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((st) => st >= step0) || step0;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
  return out;
}

// Horizontal bars: items [{label, value, tip}] (value: a query's number), one bar each.
function hbars(items, opts) {
  opts = opts || {};
  const W = opts.width || 900, labelW = opts.labelWidth || 300, rowH = 20, valueW = 110;
  const H = items.length * rowH + 24;
  // The scale's end: opts.max (100 for percentages), else the longest bar.
  const max = opts.max || Math.max(0, ...items.map((it) => num(it.value)).filter((x) => !isNaN(x)));
  const plotW = W - labelW - valueW;
  const g = s('svg', { class: 'chart hbars', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-chart': opts.name || '' });
  items.forEach((it, i) => {
    const y = i * rowH + 2, v = num(it.value);
    const w = max > 0 && v > 0 ? Math.max(1, (v / max) * plotW) : 0;
    const label = s('text', { x: labelW - 6, y: y + 13, 'text-anchor': 'end', text: it.label.length > 44 ? it.label.slice(0, 43) + '…' : it.label });
    const bar = s('rect', { class: 'hit', x: labelW, y, width: w, height: rowH - 5, fill: it.color || COLORS.bar, 'data-v': raw(it.value) });
    const val = s('text', { x: labelW + w + 6, y: y + 13, text: it.formatted !== undefined ? it.formatted : raw(it.value) });
    attachTip(bar, it.tip);
    attachTip(label, it.tip);
    g.append(label, bar, val);
  });
  g.append(s('line', { class: 'axis', x1: labelW, x2: labelW, y1: 0, y2: items.length * rowH, stroke: '#9aa3b2' }));
  return g;
}

// Stacked horizontal bars: cats [{label, parts: [{name, value, color, fmt}], tip}].
function stacked(cats, series, opts) {
  opts = opts || {};
  const W = opts.width || 900, labelW = opts.labelWidth || 200, rowH = 24;
  const H = cats.length * rowH + 10;
  const plotW = W - labelW - 20;
  // Bar lengths only: the longest stack spans the plot.
  const totals = cats.map((c) => c.parts.reduce((a, p) => a + Math.max(0, num(p.value)), 0));
  const max = Math.max(0, ...totals.filter((x) => !isNaN(x)));
  const g = s('svg', { class: 'chart stacked', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-chart': opts.name || '' });
  cats.forEach((c, i) => {
    const y = i * rowH + 3;
    g.append(s('text', { x: labelW - 6, y: y + 14, 'text-anchor': 'end', text: c.label }));
    let x = labelW;
    c.parts.forEach((p) => {
      const v = Math.max(0, num(p.value));
      const w = max > 0 ? (v / max) * plotW : 0;
      if (w <= 0) return;
      const r = s('rect', { class: 'hit', x, y, width: w, height: rowH - 6, fill: p.color, 'data-series': p.name, 'data-v': raw(p.value) });
      attachTip(r, c.label + '\n' + p.name + ' = ' + raw(p.value) + (p.fmt ? '  (' + p.fmt + ')' : '') + (c.tip ? '\n\n' + c.tip : ''));
      g.append(r);
      x += w;
    });
  });
  return h('div', {}, legend(series), g);
}

// Vertical columns over a time axis, stacked; zoom by dragging across the plot, double-click or
// the button to reset. spec: {x0, x1, bars: [{x, w, parts: [{name, value, color}], scale, tip}],
// markers: [{x, label, tip}], yLabel, fmtX(x)}. A bar's parts are drawn as fractions of its scale
// (the bucket's width from the query), so the plot reads as a percentage of each bucket.
function timeColumns(spec) {
  const W = spec.width || 1100, H = spec.height || 170, L = 48, R = 12, T = 8, B = 26;
  const wrap = h('div', { class: 'timechart' });
  const reset = h('button', { class: 'reset', type: 'button', text: 'reset zoom' });
  reset.style.display = 'none';
  wrap.append(h('span', { class: 'zoomhint', text: 'Drag across the chart to zoom into a time range.' }), reset);
  let lo = spec.x0, hi = spec.x1;
  const draw = () => {
    const old = wrap.querySelector('svg');
    if (old) old.remove();
    const g = s('svg', { class: 'chart time', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-chart': spec.name || '' });
    const X = (x) => L + ((x - lo) / (hi - lo || 1)) * (W - L - R);
    const Y = (f) => T + (1 - f) * (H - T - B);
    for (const f of [0, 0.25, 0.5, 0.75, 1]) {
      g.append(s('line', { class: 'grid', x1: L, x2: W - R, y1: Y(f), y2: Y(f) }));
      g.append(s('text', { x: L - 4, y: Y(f) + 4, 'text-anchor': 'end', text: (f * 100) + ' %' }));
    }
    const clip = 'clip' + Math.random().toString(36).slice(2);
    g.append(s('clipPath', { id: clip }, s('rect', { x: L, y: 0, width: W - L - R, height: H })));
    const plot = s('g', { 'clip-path': `url(#${clip})` });
    for (const b of spec.bars) {
      if (b.x + b.w < lo || b.x > hi) continue;
      const x = X(b.x), w = Math.max(0.5, X(b.x + b.w) - x);
      let acc = 0;
      const scale = num(b.scale);
      const grp = s('g', { class: 'hit' });
      for (const p of b.parts) {
        const f = scale > 0 ? Math.max(0, num(p.value)) / scale : 0;
        if (f <= 0) continue;
        grp.append(s('rect', { x, y: Y(acc + f), width: w, height: Y(acc) - Y(acc + f), fill: p.color, 'data-series': p.name }));
        acc += f;
      }
      attachTip(grp, b.tip);
      plot.append(grp);
    }
    for (const m of spec.markers || []) {
      if (m.x < lo || m.x > hi) continue;
      const line = s('line', { x1: X(m.x), x2: X(m.x), y1: T, y2: H - B, stroke: COLORS.step, 'stroke-dasharray': '3,3', class: 'marker' });
      const lab = s('text', { x: X(m.x) + 2, y: T + 9, text: m.label, fill: COLORS.step });
      attachTip(line, m.tip);
      plot.append(line, lab);
    }
    g.append(plot);
    g.append(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#9aa3b2' }));
    for (const t of niceTicks(lo - spec.x0, hi - spec.x0, 8)) {
      const x = X(spec.x0 + t);
      if (x < L - 1 || x > W - R + 1) continue;
      g.append(s('line', { x1: x, x2: x, y1: H - B, y2: H - B + 4, stroke: '#9aa3b2' }));
      g.append(s('text', { x, y: H - B + 16, 'text-anchor': 'middle', text: fmtNs(t) }));
    }
    // Brush: drag to zoom.
    let start = null, brush = null;
    const toX = (ev) => {
      const r = g.getBoundingClientRect();
      const px = ((ev.clientX - r.left) / r.width) * W;
      return lo + ((Math.min(Math.max(px, L), W - R) - L) / (W - L - R)) * (hi - lo);
    };
    g.addEventListener('mousedown', (ev) => { start = toX(ev); brush = s('rect', { class: 'brush', x: X(start), y: T, width: 0, height: H - T - B }); g.append(brush); ev.preventDefault(); });
    g.addEventListener('mousemove', (ev) => {
      if (start === null) return;
      const x = toX(ev);
      brush.setAttribute('x', X(Math.min(start, x)));
      brush.setAttribute('width', Math.abs(X(x) - X(start)));
    });
    g.addEventListener('mouseup', (ev) => {
      if (start === null) return;
      const x = toX(ev);
      const a = Math.min(start, x), b = Math.max(start, x);
      start = null;
      if (X(b) - X(a) > 4) { lo = a; hi = b; reset.style.display = ''; }
      draw();
    });
    g.addEventListener('dblclick', () => { lo = spec.x0; hi = spec.x1; reset.style.display = 'none'; draw(); });
    wrap.append(g);
  };
  reset.addEventListener('click', () => { lo = spec.x0; hi = spec.x1; reset.style.display = 'none'; draw(); });
  draw();
  return wrap;
}

// Step lines over time (memory): series [{name, color, points: [{x, y, tip}]}], markers [{x, y, label, tip}].
function timeLines(spec) {
  const W = spec.width || 1100, H = spec.height || 200, L = 70, R = 12, T = 10, B = 26;
  const xs = spec.series.flatMap((se) => se.points.map((p) => p.x));
  const ys = spec.series.flatMap((se) => se.points.map((p) => p.y)).filter((y) => !isNaN(y));
  const x0 = Math.min(...xs), x1 = Math.max(...xs), ymax = Math.max(1, ...ys);
  const X = (x) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
  const Y = (y) => T + (1 - y / ymax) * (H - T - B);
  const g = s('svg', { class: 'chart lines', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-chart': spec.name || '' });
  for (const t of niceTicks(0, ymax, 4)) {
    g.append(s('line', { class: 'grid', x1: L, x2: W - R, y1: Y(t), y2: Y(t) }));
    g.append(s('text', { x: L - 4, y: Y(t) + 4, 'text-anchor': 'end', text: spec.fmtY(t) }));
  }
  for (const se of spec.series) {
    let d = '';
    se.points.forEach((p, i) => { if (!isNaN(p.y)) d += (d ? 'L' : 'M') + X(p.x).toFixed(1) + ',' + Y(p.y).toFixed(1); });
    if (d) g.append(s('path', { d, fill: 'none', stroke: se.color, 'stroke-width': 1.6, 'data-series': se.name }));
    for (const p of se.points) {
      if (isNaN(p.y)) continue;
      const c = s('circle', { class: 'hit', cx: X(p.x), cy: Y(p.y), r: 2.2, fill: se.color });
      attachTip(c, p.tip);
      g.append(c);
    }
  }
  for (const m of spec.markers || []) {
    const c = s('circle', { cx: X(m.x), cy: Y(m.y), r: 5, fill: 'none', stroke: COLORS.peak, 'stroke-width': 2, class: 'marker' });
    attachTip(c, m.tip);
    g.append(c, s('text', { x: X(m.x) + 7, y: Y(m.y) + 4, text: m.label, fill: COLORS.peak }));
  }
  g.append(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#9aa3b2' }));
  for (const t of niceTicks(0, x1 - x0, 8)) {
    g.append(s('text', { x: X(x0 + t), y: H - B + 16, 'text-anchor': 'middle', text: fmtNs(t) }));
  }
  return g;
}

// A heatmap cell's colour: a light tint of color (f = 0) to color itself (f = 1); white stays for
// no value.
function shade(color, f) {
  const c = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  const mix = c.map((v) => Math.round(255 + (v - 255) * (0.1 + 0.9 * Math.min(1, Math.max(0, f)))));
  return 'rgb(' + mix.join(',') + ')';
}

// Rank × collective heatmap of one column of a collective_ranks result: a row per rank, a column per
// collective (process_group, seq) in the query's order; each cell's colour places its value between
// the smallest and the largest value drawn (placement only); a blank cell: that rank has no such op.
function heatmap(d, metric, color) {
  const list = rows(d);
  const rankOf = (r) => raw(get(d, r, 'rank'));
  const collOf = (r) => raw(get(d, r, 'process_group')) + ' #' + raw(get(d, r, 'seq'));
  const ranks = [...new Set(list.map(rankOf))].sort((a, b) => (num(a) - num(b)) || a.localeCompare(b));
  const colIndex = new Map(), heads = [];
  for (const r of list) {
    if (!colIndex.has(collOf(r))) { colIndex.set(collOf(r), heads.length); heads.push(r); }
  }
  const L = 84, R = 12, T = 6, B = 46;
  const cw = Math.max(4, Math.min(48, Math.floor((1100 - L - R) / Math.max(1, heads.length))));
  const rh = ranks.length > 48 ? 8 : ranks.length > 24 ? 12 : 18;
  const W = L + heads.length * cw + R, H = T + ranks.length * rh + B;
  const values = list.map((r) => num(get(d, r, metric))).filter((x) => !isNaN(x));
  const min = values.length ? Math.min(...values) : 0, max = values.length ? Math.max(...values) : 0;
  const minRaw = list.map((r) => get(d, r, metric)).find((v) => num(v) === min);
  const maxRaw = list.map((r) => get(d, r, metric)).find((v) => num(v) === max);
  const g = s('svg', { class: 'chart heatmap', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-chart': 'collective_ranks',
                       'data-dataset': d.key, 'data-metric': metric });
  const labelEvery = Math.ceil(ranks.length / Math.floor((ranks.length * rh) / 12 || 1));
  ranks.forEach((rk, i) => {
    if (i % labelEvery === 0) g.append(s('text', { x: L - 6, y: T + i * rh + rh / 2 + 4, 'text-anchor': 'end', text: 'rank ' + rk }));
  });
  list.forEach((r, i) => {
    const v = get(d, r, metric);
    const f = max > min && !isNaN(num(v)) ? (num(v) - min) / (max - min) : 0;
    const cell = s('rect', { class: 'hit cell', x: L + colIndex.get(collOf(r)) * cw, y: T + ranks.indexOf(rankOf(r)) * rh,
                             width: Math.max(1, cw - 1), height: Math.max(1, rh - 1), fill: v === null ? '#eceef2' : shade(color, f),
                             'data-row': i, 'data-col': metric, 'data-v': v === null ? null : raw(v) });
    if (v === null) cell.setAttribute('data-null', '1');
    attachTip(cell, rowTip(d, r));
    g.append(cell);
  });
  // Column labels: the collective's name and number (and group, when there are several), as often
  // as they fit.
  const groups = new Set(heads.map((r) => raw(get(d, r, 'process_group'))));
  const label = (r) => (groups.size > 1 ? raw(get(d, r, 'process_group')) + ' · ' : '') + raw(get(d, r, 'collective')) +
    ' #' + raw(get(d, r, 'seq'));
  const y0 = T + ranks.length * rh;
  const every = Math.ceil((Math.max(...heads.map((r) => label(r).length)) * 6.5 + 14) / cw);
  heads.forEach((r, j) => {
    if (j % every !== 0) return;
    const x = L + j * cw + cw / 2;
    g.append(s('line', { x1: x, x2: x, y1: y0, y2: y0 + 4, stroke: '#9aa3b2' }));
    g.append(s('text', { x: L + j * cw, y: y0 + 16, text: label(r) }));
  });
  // The colour scale: the lightest tint for the smallest value drawn, the full colour for the largest.
  const ly = y0 + 26;
  for (let k = 0; k < 10; k++) g.append(s('rect', { x: L + k * 12, y: ly, width: 12, height: 10, fill: shade(color, (k + 0.5) / 10) }));
  g.append(s('text', { x: L - 6, y: ly + 9, 'text-anchor': 'end', text: fmt(metric, minRaw) }));
  g.append(s('text', { x: L + 126, y: ly + 9, text: fmt(metric, maxRaw) + ' (' + metric + ': smallest to largest drawn) · columns: the collectives of the result, in time order · blank: no such op on that rank · hover a cell for its row' }));
  return g;
}

// ---- sections ----
const SECTIONS = [];
function section(id, title, build) { SECTIONS.push({ id, title, build }); }

function deviceLabel(d, r) {
  const rank = col(d, 'rank') >= 0 ? get(d, r, 'rank') : null;
  const dev = col(d, 'device') >= 0 ? get(d, r, 'device') : (col(d, 'device_id') >= 0 ? get(d, r, 'device_id') : null);
  return 'trace ' + raw(get(d, r, 'trace_id')) + (rank !== null && rank !== undefined ? ' (rank ' + raw(rank) + ')' : '') +
    (dev !== null && dev !== undefined ? ' · device ' + raw(dev) : '');
}
// Per-device charts: at most MAX_DEVICE_CHARTS groups (a job of many ranks would draw hundreds).
// With more, the SQL chooses them: the devices of the dataset 'devices' (bundled query
// worst_devices: the straggler ranks, then the lowest GPU busy share), in its order, the worst
// first; a note names them and where every device's numbers are. idOf(list): a group's trace id and
// device (null: any device of the trace), as raw() strings.
const MAX_DEVICE_CHARTS = 16;  // kDeviceCharts (include/tracesql/report.h): worst_devices' -p limit on the page
function chosenDevices(sec, groups, where, idOf) {
  const all = [...groups.entries()];
  if (all.length <= MAX_DEVICE_CHARTS) return all;
  const wd = ds('devices');
  if (!rows(wd).length) {
    // Not run (a database of at most 16 traces whose traces have several devices), or failed.
    const why = wd ? 'worst_devices, which chooses them, gave none here' : 'worst_devices chooses them in a job of more than ' + MAX_DEVICE_CHARTS + ' traces';
    sec.append(h('p', { class: 'note', 'data-devices-shown': MAX_DEVICE_CHARTS, 'data-devices': all.length,
      text: `Charts of the first ${MAX_DEVICE_CHARTS} of ${all.length} devices (${why}); ${where}.` }));
    return all.slice(0, MAX_DEVICE_CHARTS);
  }
  const pick = (list) => {
    const [t, dv] = idOf(list);
    return rows(wd).findIndex((r) => raw(get(wd, r, 'trace_id')) === t && (dv === null || raw(get(wd, r, 'device')) === dv));
  };
  const chosen = all.map((g) => [pick(g[1]), g]).filter(([i]) => i >= 0)
    .sort((a, b) => a[0] - b[0]).slice(0, MAX_DEVICE_CHARTS).map(([, g]) => g);
  const names = [...new Set(chosen.map(([, list]) => {
    const [t, dv] = idOf(list);
    const r = rows(wd).find((x) => raw(get(wd, x, 'trace_id')) === t && (dv === null || raw(get(wd, x, 'device')) === dv));
    const rank = get(wd, r, 'rank');
    return (rank !== null ? 'rank ' + raw(rank) : 'trace ' + raw(get(wd, r, 'trace_id'))) +
      (get(wd, r, 'straggler_skew_ns') !== null ? ' (straggler)' : '');
  }))];
  sec.append(h('p', { class: 'note', 'data-devices-shown': chosen.length, 'data-devices': all.length,
    'data-chosen': chosen.map(([, list]) => idOf(list).join('/')).join(' '),
    text: `Charts of ${chosen.length} of ${all.length} devices, the worst first as worst_devices ranks them ` +
      `(straggler ranks, then the lowest GPU busy share; why each: in Overview): ${names.join(', ')}. ` +
      `${where[0].toUpperCase() + where.slice(1)}; every device ranked: ${allDevicesCommand(wd)}.` }));
  return chosen;
}
// The `tracesql run` line ranking every device: the page's worst_devices line with -p limit=-1.
function allDevicesCommand(wd) { return wd.command.replace(/ -p limit=\d+$/, '') + ' -p limit=-1'; }

// A group of rows of one device: its trace id and device.
function devId(d) { return (list) => [raw(get(d, list[0], 'trace_id')), raw(get(d, list[0], 'device'))]; }

function groupBy(list, keyFn) {
  const m = new Map();
  for (const x of list) { const k = keyFn(x); if (!m.has(k)) m.set(k, []); m.get(k).push(x); }
  return m;
}

section('findings', 'Findings', (sec) => {
  const d = ds('findings');
  if (!d) { sec.append(note('No findings in this report (the advisor was not run).')); return; }
  sec.append(srcLine(d));
  if (d.unavailable) return;
  if (d.error) { sec.append(note('The query failed: ' + d.error)); return; }
  if (!rows(d).length) { sec.append(note('The advisor found nothing to report.')); return; }
  const t = table(d, {});
  t.querySelectorAll('td[data-col="severity"]').forEach((td) => td.classList.add('sev-' + td.textContent));
  sec.append(t);
});

// The devices the per-device charts draw when they cannot draw every one: worst_devices' rows and
// why each is there.
function chosenList(sec, devices) {
  const wd = ds('devices');
  if (!wd || (absent(wd) ? devices <= MAX_DEVICE_CHARTS : rows(wd).length >= devices)) return false;
  sec.append(h('h3', { text: 'The devices the per-device charts draw, the worst first' }), srcLine(wd));
  if (absent(wd)) return true;
  sec.append(note(`More than ${MAX_DEVICE_CHARTS} devices: the per-device charts below (utilisation, steps, idle gaps, ` +
    'memory, launch delays) are drawn for these, as worst_devices ranks them: first the straggler ranks (the rank the ' +
    'others wait for, last to start most collectives, as the advisor\'s rule stragglers finds it), then the lowest GPU ' +
    `busy share. Every device ranked: ${allDevicesCommand(wd)}; a device's own charts: the sections' \`tracesql run\` ` +
    'lines with -p trace_id=N.'));
  sec.append(table(wd, { columns: ['pick', 'trace_id', 'rank', 'device', 'busy_pct', 'idle_ns', 'reason'] }));
  return true;
}

section('overview', 'Overview', (sec) => {
  const d = ds('overview'), tb = ds('temporal');
  if (chosenList(sec, rows(d).length)) sec.append(h('h3', { text: 'Every trace and device' }));
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('The database holds no traces.')); return; }
  const cards = h('div', { class: 'cards' });
  const withBusy = groupBy(rows(d).filter((r) => get(d, r, 'busy_pct') !== null), (r) => rows(d).indexOf(r));
  for (const [, [r]] of chosenDevices(sec, withBusy, 'every device\'s busy share is in the bars below', devId(d))) {
    const c = h('div', { class: 'card', 'data-dataset': d.key, 'data-row': rows(d).indexOf(r), 'data-col': 'busy_pct', 'data-v': raw(get(d, r, 'busy_pct')) },
      h('div', { class: 'k', text: 'GPU busy · ' + deviceLabel(d, r) }), h('div', { class: 'v', text: fmt('busy_pct', get(d, r, 'busy_pct')) }));
    cards.append(c);
  }
  if (cards.childElementCount) {
    sec.append(cards);
    const busy = rows(d).filter((r) => get(d, r, 'busy_pct') !== null);
    sec.append(hbars(busy.map((r) => ({
      label: deviceLabel(d, r), value: get(d, r, 'busy_pct'), formatted: fmt('busy_pct', get(d, r, 'busy_pct')) + ' busy',
      tip: rowTip(d, r, ['device_name', 'gpu_ops', 'gpu_span_ns', 'busy_ns', 'busy_pct']),
    })), { name: 'busy', labelWidth: 300, max: 100 }));
  } else {
    sec.append(note('No GPU ops in these traces: no GPU busy time to show.'));
  }
  sec.append(table(d));
  if (tb && (tb.unavailable || rows(tb).length)) {
    sec.append(h('h3', { text: 'Where the GPU time went (temporal breakdown)' }), srcLine(tb));
    if (!tb.unavailable) sec.append(table(tb, { columns: ['trace_id', 'rank', 'device', 'span_ns', 'compute_pct', 'exposed_comm_pct', 'exposed_memcpy_pct', 'exposed_other_pct', 'idle_pct'] }));
  }
});

section('utilization', 'GPU utilisation over time', (sec) => {
  const d = ds('util'), st = ds('steps');
  sec.append(srcLine(d));
  if (st && (st.unavailable || rows(st).length)) sec.append(srcLine(st));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No GPU ops with durations: nothing to plot.')); return; }
  sec.append(legend([['busy', COLORS.busy], ['idle: host (CPU launched late)', COLORS.host], ['idle: device (queued / latency)', COLORS.device], ['idle: unknown', COLORS.unknown]]));
  const byDev = groupBy(rows(d), (r) => raw(get(d, r, 'trace_id')) + '/' + raw(get(d, r, 'device')));
  for (const [, list] of chosenDevices(sec, byDev, 'every device\'s busy share is in Overview, its time by category in Temporal breakdown, and its buckets in the `tracesql run` line above', devId(d))) {
    const first = list[0], last = list[list.length - 1];
    const x0 = num(get(d, first, 'ts')), x1 = num(get(d, last, 'ts')) + num(get(d, last, 'dur'));
    const bars = list.map((r) => ({
      x: num(get(d, r, 'ts')), w: num(get(d, r, 'dur')), scale: get(d, r, 'dur'),
      parts: [{ name: 'busy', value: get(d, r, 'busy_ns'), color: COLORS.busy },
              { name: 'idle_host', value: get(d, r, 'idle_host_ns'), color: COLORS.host },
              { name: 'idle_device', value: get(d, r, 'idle_device_ns'), color: COLORS.device },
              { name: 'idle_unknown', value: get(d, r, 'idle_unknown_ns'), color: COLORS.unknown }],
      tip: rowTip(d, r, ['bucket', 'offset_ns', 'dur', 'busy_pct', 'busy_ns', 'idle_host_ns', 'idle_device_ns', 'idle_unknown_ns']),
    }));
    const markers = rows(st).filter((r) => raw(get(st, r, 'trace_id')) === raw(get(d, first, 'trace_id')) &&
      raw(get(st, r, 'device')) === raw(get(d, first, 'device'))).map((r) => ({
      x: num(get(st, r, 'window_ts')), label: 'step ' + raw(get(st, r, 'step')),
      tip: rowTip(st, r, ['step', 'window_ts', 'window_ns', 'gpu_util_pct']),
    }));
    sec.append(h('h3', { text: deviceLabel(d, first) }));
    sec.append(timeColumns({ name: 'utilization', x0, x1, bars, markers }));
  }
});

section('temporal', 'Temporal breakdown', (sec) => {
  const d = ds('temporal');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No GPU ops: no breakdown.')); return; }
  const series = [['compute', COLORS.compute], ['exposed comm', COLORS.comm], ['exposed memcpy', COLORS.memcpy], ['exposed other', COLORS.other], ['idle', COLORS.idle]];
  const cats = rows(d).map((r) => ({
    label: deviceLabel(d, r),
    parts: [['compute_ns', 'compute_pct', COLORS.compute], ['exposed_comm_ns', 'exposed_comm_pct', COLORS.comm], ['exposed_memcpy_ns', 'exposed_memcpy_pct', COLORS.memcpy],
            ['exposed_other_ns', 'exposed_other_pct', COLORS.other], ['idle_ns', 'idle_pct', COLORS.idle]]
      .map(([c, p, color]) => ({ name: c, value: get(d, r, c), color, fmt: fmtNs(get(d, r, c)) + ', ' + raw(get(d, r, p)) + ' %' })),
    tip: 'span_ns = ' + raw(get(d, r, 'span_ns')),
  }));
  sec.append(stacked(cats, series, { name: 'temporal', labelWidth: 240 }));
  sec.append(table(d));
});

section('steps', 'Steps', (sec) => {
  const d = ds('steps'), sm = ds('step_summary');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No ProfilerStep#N annotations in the trace: no steps to show.')); return; }
  if (sm && (sm.unavailable || rows(sm).length)) {
    sec.append(srcLine(sm));
    const cards = h('div', { class: 'cards' });
    for (const r of rows(sm)) {
      for (const c of ['min_ns', 'median_ns', 'max_ns', 'spread_pct']) {
        cards.append(h('div', { class: 'card', 'data-dataset': sm.key, 'data-row': rows(sm).indexOf(r), 'data-col': c, 'data-v': raw(get(sm, r, c)) },
          h('div', { class: 'k', text: c.replace('_ns', '').replace('_pct', '') + ' step · trace ' + raw(get(sm, r, 'trace_id')) }),
          h('div', { class: 'v', text: fmt(c, get(sm, r, c)) })));
      }
    }
    sec.append(cards);
  }
  const byDev = groupBy(rows(d), (r) => raw(get(d, r, 'trace_id')) + '/' + raw(get(d, r, 'device')));
  for (const [, list] of chosenDevices(sec, byDev, 'every device\'s steps are in the table below', devId(d))) {
    sec.append(h('h3', { text: deviceLabel(d, list[0]) }));
    const cats = list.map((r) => ({
      label: 'step ' + raw(get(d, r, 'step')),
      parts: [{ name: 'gpu_busy_ns', value: get(d, r, 'gpu_busy_ns'), color: COLORS.busy, fmt: fmtNs(get(d, r, 'gpu_busy_ns')) },
              { name: 'gpu_idle_ns', value: get(d, r, 'gpu_idle_ns'), color: COLORS.idle, fmt: fmtNs(get(d, r, 'gpu_idle_ns')) }],
      tip: rowTip(d, r, ['window_ns', 'gpu_util_pct', 'compute_ns', 'exposed_comm_ns', 'memcpy_ns', 'cpu_dur', 'gpu_ops']),
    }));
    sec.append(stacked(cats, [['GPU busy', COLORS.busy], ['GPU idle', COLORS.idle]], { name: 'steps', labelWidth: 120 }));
  }
  sec.append(table(d));
});

function topBars(sec, d, labelCol, valueCol, shortCol, emptyText) {
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note(emptyText)); return; }
  sec.append(hbars(rows(d).map((r) => ({
    label: raw(get(d, r, shortCol || labelCol)), value: get(d, r, valueCol), formatted: fmt(valueCol, get(d, r, valueCol)),
    tip: rowTip(d, r),
  })), { name: d.key }));
  sec.append(table(d));
}

section('kernels', 'Top kernels', (sec) => {
  topBars(sec, ds('kernels'), 'name', 'total_dur', 'short_name', 'No GPU kernels in the trace.');
});

section('cpu_ops', 'Top CPU ops', (sec) => {
  topBars(sec, ds('cpu_ops'), 'name', 'cpu_self_ns', null, 'No CPU ops in the trace.');
});

section('idle', 'Idle gaps', (sec) => {
  const d = ds('idle');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No GPU idle gaps (or no GPU ops).')); return; }
  const byDev = groupBy(rows(d), (r) => raw(get(d, r, 'trace_id')) + '/' + raw(get(d, r, 'device')));
  for (const [, list] of chosenDevices(sec, byDev, 'every device\'s gaps are in the `tracesql run` line above', devId(d))) {
    sec.append(h('h3', { text: deviceLabel(d, list[0]) }));
    for (const [dim, title, color] of [['cause', 'By cause', null], ['length', 'Gap lengths (histogram)', COLORS.device], ['host_op', 'Host ops running when the GPU went idle', COLORS.host]]) {
      const part = list.filter((r) => get(d, r, 'dimension') === dim);
      if (!part.length) continue;
      sec.append(h('div', { class: 'k', text: title }));
      sec.append(hbars(part.map((r) => ({
        label: raw(get(d, r, 'bucket')), value: get(d, r, 'idle_ns'), formatted: fmtNs(get(d, r, 'idle_ns')) + ' · ' + fmtInt(get(d, r, 'gaps')) + ' gaps',
        color: color || COLORS[get(d, r, 'bucket')] || COLORS.unknown, tip: rowTip(d, r),
      })), { name: 'idle_' + dim, labelWidth: 280 }));
    }
  }
  sec.append(table(d));
});

section('communication', 'Communication', (sec) => {
  const d = ds('comm'), c = ds('collectives');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length || rows(d).every((r) => num(get(d, r, 'comm_ops')) === 0)) {
    sec.append(note('No communication ops (kernel_class_rules class communication) in the trace.'));
    return;
  }
  const cats = rows(d).map((r) => ({
    label: deviceLabel(d, r),
    parts: [{ name: 'overlapped_ns', value: get(d, r, 'overlapped_ns'), color: COLORS.compute, fmt: fmtNs(get(d, r, 'overlapped_ns')) },
            { name: 'exposed_ns', value: get(d, r, 'exposed_ns'), color: COLORS.comm, fmt: fmtNs(get(d, r, 'exposed_ns')) }],
    tip: rowTip(d, r, ['comm_ops', 'comm_ns', 'overlap_pct', 'compute_ns']),
  }));
  sec.append(stacked(cats, [['comm hidden under compute', COLORS.compute], ['comm exposed', COLORS.comm]], { name: 'comm', labelWidth: 240 }));
  sec.append(table(d));
  const cr = ds('coll_ranks');
  if (cr) {
    sec.append(h('h3', { text: 'Collectives by rank: duration, and the wait for the last rank to arrive' }), srcLine(cr));
    const ranks = new Set(rows(cr).map((r) => raw(get(cr, r, 'rank'))));
    if (absent(cr)) {
      // srcLine says why
    } else if (ranks.size < 2) {
      sec.append(note('One rank: the rank × collective heatmap needs one trace per rank in the database (tracesql import rank*.json -o job.db).'));
    } else {
      const wrap = h('div', { class: 'heatwrap' });
      const pick = h('div', { class: 'toggle' });
      const metrics = [['dur', 'duration', COLORS.busy], ['wait_ns', 'wait for the last rank', COLORS.host]];
      const draw = (m) => {
        wrap.textContent = '';
        wrap.append(heatmap(cr, m[0], m[2]));
        pick.querySelectorAll('button').forEach((b) => b.classList.toggle('on', b.dataset.metric === m[0]));
      };
      for (const m of metrics) {
        const b = h('button', { type: 'button', 'data-metric': m[0], text: m[1] });
        b.addEventListener('click', () => draw(m));
        pick.append(b);
      }
      sec.append(pick, wrap);
      draw(metrics[0]);
    }
  }
  if (c) {
    sec.append(h('h3', { text: 'Collectives across ranks (stragglers: largest end skew first)' }), srcLine(c));
    if (absent(c)) return;
    const multi = rows(c).filter((r) => num(get(c, r, 'ranks')) > 1);
    if (!multi.length) { sec.append(note('No collective was matched across two or more ranks (a single-rank database, or no process group metadata).')); return; }
    const k = col(c, 'end_skew_ns');
    const top = multi.slice().sort((a, b) => num(b[k]) - num(a[k])).slice(0, 20);
    sec.append(hbars(top.map((r) => ({
      label: raw(get(c, r, 'collective')) + ' #' + raw(get(c, r, 'seq')) + ' (slowest rank ' + raw(get(c, r, 'slowest_rank')) + ')',
      value: get(c, r, 'end_skew_ns'), formatted: fmtNs(get(c, r, 'end_skew_ns')), color: COLORS.comm, tip: rowTip(c, r),
    })), { name: 'collectives', labelWidth: 320 }));
    sec.append(table(c, { columns: ['process_group', 'seq', 'collective', 'ranks', 'msg_bytes', 'dur_min_ns', 'dur_max_ns', 'start_skew_ns', 'end_skew_ns', 'slowest_rank', 'algo_gb_per_s', 'bus_gb_per_s'] }));
  }
});

section('memory', 'Memory', (sec) => {
  const d = ds('memory'), p = ds('memory_peak');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No allocator events ([memory], recorded with profile_memory=True) in the trace.')); return; }
  if (p) sec.append(srcLine(p));
  const key = (dd, r) => raw(get(dd, r, 'trace_id')) + '/' + raw(get(dd, r, 'device_type')) + '/' + raw(get(dd, r, 'device_id'));
  const byDev = groupBy(rows(d), (r) => key(d, r));
  const memId = (list) => [raw(get(d, list[0], 'trace_id')), num(get(d, list[0], 'device_id')) < 0 ? null : raw(get(d, list[0], 'device_id'))];
  for (const [k, list] of chosenDevices(sec, byDev, 'every device\'s peak is in the table below', memId)) {
    const label = 'trace ' + raw(get(d, list[0], 'trace_id')) + ' · ' + (num(get(d, list[0], 'device_id')) < 0 ? 'CPU' : 'device ' + raw(get(d, list[0], 'device_id')));
    sec.append(h('h3', { text: label }));
    const pt = (r, c) => ({ x: num(get(d, r, 'ts')), y: num(get(d, r, c)), tip: rowTip(d, r) });
    const series = [{ name: 'allocated_max', color: COLORS.alloc, points: list.map((r) => pt(r, 'allocated_max')) }];
    if (list.some((r) => get(d, r, 'reserved_max') !== null)) series.push({ name: 'reserved_max', color: COLORS.reserved, points: list.map((r) => pt(r, 'reserved_max')) });
    const markers = rows(p).filter((r) => key(p, r) === k).map((r) => ({
      x: num(get(p, r, 'peak_ts')), y: num(get(p, r, 'peak_allocated')), label: 'peak ' + fmtBytes(get(p, r, 'peak_allocated')), tip: rowTip(p, r),
    }));
    sec.append(legend(series.map((se) => [se.name, se.color]).concat([['peak (memory_peak)', COLORS.peak]])));
    sec.append(timeLines({ name: 'memory', series, markers, fmtY: fmtBytes }));
  }
  if (p && rows(p).length) sec.append(table(p));
});

section('launch', 'Launch delays', (sec) => {
  const d = ds('launch_hist'), w = ds('launch_worst');
  sec.append(srcLine(d));
  if (absent(d)) return;
  if (!rows(d).length) { sec.append(note('No GPU ops with a known launch call in the trace.')); return; }
  const byTrace = groupBy(rows(d), (r) => raw(get(d, r, 'trace_id')));
  for (const [, list] of chosenDevices(sec, byTrace, 'every trace\'s distribution is in the `tracesql run` line above', (list) => [raw(get(d, list[0], 'trace_id')), null])) {
    sec.append(h('h3', { text: 'Distribution · ' + deviceLabel(d, list[0]) }));
    sec.append(hbars(list.map((r) => ({
      label: raw(get(d, r, 'bucket')), value: get(d, r, 'ops'), formatted: fmtInt(get(d, r, 'ops')) + ' ops · ' + raw(get(d, r, 'pct_ops')) + ' %',
      color: COLORS.device, tip: rowTip(d, r),
    })), { name: 'launch_hist', labelWidth: 120 }));
  }
  if (w && (w.unavailable || rows(w).length)) {
    sec.append(h('h3', { text: 'Largest total launch delay by launch call and GPU op' }), srcLine(w));
    if (w.unavailable) return;
    sec.append(hbars(rows(w).map((r) => ({
      label: raw(get(w, r, 'gpu_short_name') || get(w, r, 'gpu_name')), value: get(w, r, 'total_delay'), formatted: fmtNs(get(w, r, 'total_delay')), tip: rowTip(w, r),
    })), { name: 'launch_worst' }));
    sec.append(table(w));
  }
});

// ---- page ----
function main() {
  const m = DATA.meta;
  document.getElementById('subtitle').textContent = m.database + ' · tracesql ' + m.version + ' · written ' + m.written;
  const toc = document.getElementById('toc'), mainEl = document.getElementById('main');
  for (const sct of SECTIONS) {
    if (sct.id === 'findings' && !ds('findings')) continue;
    const sec = h('section', { id: sct.id }, h('h2', { text: sct.title }));
    mainEl.append(sec);
    toc.append(h('a', { href: '#' + sct.id, text: sct.title }));
    try {
      sct.build(sec);
    } catch (e) {
      sec.append(note('This section could not be drawn: ' + e));
      console.error(e);
    }
  }
  // Datasets whose query failed are named where they would have been drawn.
  for (const [key, d] of Object.entries(DATA.datasets)) {
    if (d.error) console.warn('query ' + d.query + ' (' + key + ') failed: ' + d.error);
  }
}
main();
