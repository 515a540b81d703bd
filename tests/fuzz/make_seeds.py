#!/usr/bin/env python3
"""Builds the fuzz seed corpus: the golden test fixtures and small real traces.

    make_seeds.py OUT_DIR [TRACES_DIR]

* every tests/golden/*/trace*.json[.gz] (copied as is: the fuzzer also sees gzip input);
* from each real trace in TRACES_DIR (default ../shared/traces): a few windows of at most 40
  consecutive events, cut from the raw text (number literals keep their exact spelling), with the
  header keys that precede traceEvents and a handful of metadata (M) events, each under 24 KB.
  Traces whose JSON is under 24 KB are used whole.

The real traces are only read, never copied into the repository; the seeds are build products.
"""
import glob
import gzip
import json
import os
import sys

MAX_SEED = 24 << 10
WINDOW = 40
SCAN_EVENTS = 4000


def skip_ws(text, i):
    while i < len(text) and text[i] in ' \t\r\n':
        i += 1
    return i


def split_trace(text):
    """Returns (shape, header_before [(key, raw)], raw events (first SCAN_EVENTS), header_after)."""
    dec = json.JSONDecoder()
    i = skip_ws(text, 0)
    before, after, events = [], [], []
    if text[i] == '[':
        shape, i = 'array', i + 1
    else:
        shape = 'object'
        i += 1
        while True:
            i = skip_ws(text, i)
            if text[i] == ',':
                i += 1
                continue
            if text[i] == '}':
                return shape, before, events, after
            key, i = dec.raw_decode(text, i)
            i = skip_ws(text, i) + 1  # ':'
            i = skip_ws(text, i)
            if key == 'traceEvents':
                i += 1
                break
            _, end = dec.raw_decode(text, i)
            before.append((key, text[i:end]))
            i = end
    # Events.
    while len(events) < SCAN_EVENTS:
        i = skip_ws(text, i)
        if i >= len(text):
            return shape, before, events, after
        if text[i] == ',':
            i += 1
            continue
        if text[i] == ']':
            i += 1
            break
        _, end = dec.raw_decode(text, i)
        events.append(text[i:end])
        i = end
    else:
        return shape, before, events, after
    if shape == 'object':
        while True:
            i = skip_ws(text, i)
            if i >= len(text) or text[i] == '}':
                break
            if text[i] == ',':
                i += 1
                continue
            key, i = dec.raw_decode(text, i)
            i = skip_ws(text, skip_ws(text, i) + 1)  # past ':'
            _, end = dec.raw_decode(text, i)
            after.append((key, text[i:end]))
            i = end
    return shape, before, events, after


def build(shape, before, events, after):
    body = ',\n'.join(events)
    if shape == 'array':
        return '[' + body + ']'
    parts = [json.dumps(k) + ': ' + v for k, v in before]
    parts.append('"traceEvents": [' + body + ']')
    parts += [json.dumps(k) + ': ' + v for k, v in after]
    return '{' + ',\n'.join(parts) + '}'


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, '..', '..'))
    traces_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, '..', 'shared', 'traces')
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sorted(glob.glob(os.path.join(root, 'tests', 'golden', '*', 'trace*.json*'))):
        case = os.path.basename(os.path.dirname(path))
        with open(path, 'rb') as f, open(os.path.join(out, 'golden-%s-%s' % (case, os.path.basename(path))), 'wb') as g:
            g.write(f.read())
        n += 1
    for path in sorted(glob.glob(os.path.join(traces_dir, '*.json*'))):
        opener = gzip.open if path.endswith('.gz') else open
        with opener(path, 'rb') as f:
            text = f.read().decode('utf-8', 'replace')
        name = os.path.basename(path).split('.')[0]
        if len(text) <= MAX_SEED:
            with open(os.path.join(out, 'real-%s.json' % name), 'w') as g:
                g.write(text)
            n += 1
            continue
        try:
            shape, before, events, after = split_trace(text)
        except (ValueError, IndexError) as e:
            print('make_seeds: %s: skipped (%s)' % (path, e), file=sys.stderr)
            continue
        before = [(k, v) for k, v in before if len(v) < 4096]
        after = [(k, v) for k, v in after if len(v) < 4096]
        meta = [e for e in events if '"M"' in e][:6]
        timed = [e for e in events if '"M"' not in e]
        for w, start in enumerate((0, len(timed) // 3, (2 * len(timed)) // 3)):
            window = meta + timed[start:start + WINDOW]
            seed = build(shape, before, window, after)
            while len(seed) > MAX_SEED and len(window) > 2:
                window = window[:len(window) * 3 // 4]
                seed = build(shape, before, window, after)
            with open(os.path.join(out, 'real-%s-w%d.json' % (name, w)), 'w') as g:
                g.write(seed)
            n += 1
    print('make_seeds: %d seeds in %s' % (n, out), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
