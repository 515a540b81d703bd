#!/usr/bin/env python3
"""Independent checker for tracesql imports (Python 3 standard library only).

    verify_import.py DB TRACE [TRACE...]      TRACEs were imported in this order as trace_id 1..n
    verify_import.py --invariants DB [TRACE...]   also run tests/invariants/*.sql first
    verify_import.py --by-path DB TRACE...    match TRACEs to trace ids by traces.path basename
    verify_import.py --summary TRACE...       no DB: print what the checker derives from files

The script reads each Kineto / Chrome-trace JSON file itself and compares what it finds with the
tables tracesql wrote. It does not share tracesql's code or output. The file-side rules follow
shared/DESIGN.md and the column comments in sql/schema/*.sql:

  * events  = every trace event that is not metadata (ph M) and not a flow point (ph s/t/f); a B/E
              pair on one (pid, tid) track is one row with ph 'B' (an E closes the latest open B of
              its track; an E with no open B is not stored).
  * times   = integer ns: the JSON number text scaled by 1000 exactly (round half-even beyond three
              decimals), plus top-level baseTimeNanoseconds when present.
  * tracks  = (pid, tid) with canonical decimal strings ("25738") read as integers.
  * flows   = flow points grouped by (cat, id), bound to slices by the DESIGN.md rule: the
              innermost slice of the point's track containing its ts (latest start; ties: the
              shortest; a zero-length slice contains only its own ts); launch flows (ac2g, async,
              async_cpu_to_gpu, async_gpu) prefer a containing slice whose args.correlation is the
              flow id; an f without bp "e" binds to the first slice starting at or after its ts
              (ties: the longest). One flows row per end (src = the group's first start), else
              one per start.

Checks per trace (each one names itself in the mismatch list):
  counts      events by (ph, cat); traces.event_count
  events      the whole multiset of (pid, tid, ts, dur, name, ph, cat) rows
  times       sum(dur) of kernels, traces.start_ts/end_ts, sum(ts) of all rows
  tracks      distinct threads, per-track event counts, thread kind of GPU/CPU-only tracks
  flows       rows per cat, bound ends, starts, and per point the bound event (ts, dur, name)
  args        each event's args against the file's (values Decimal-exact and type-aware, key
              order as in the file; every event, or every 7th event key above 50k events), the
              promoted arg columns, the args view (row count; key/value/value_type for a sample
              that covers every JSON value kind and every integer beyond int64) and event_args.
              Stored args are read from events.args (JSON object) or, in the compact layout,
              rebuilt from events.arg_values (JSON array) + arg_keys(shape_id, idx, key, path),
              a value without a path from input_shapes, its promoted column or memory_args.
  metadata    traces row (metadata JSON, base_time_ns, rank, world_size, sizes, shape), devices
  names       processes / threads names, labels, sort indices from M events (last one wins)

Exit status 0 when everything matches, 1 with a list of mismatches otherwise, 2 on usage errors.
"""

import argparse
import bisect
import collections
import decimal
import glob
import gzip
import json
import os
import re
import sqlite3
import sys
from decimal import Decimal

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_EVEN)

FLOW_PHASES = ('s', 't', 'f')
LAUNCH_FLOW_CATS = frozenset(('ac2g', 'async', 'async_cpu_to_gpu', 'async_gpu'))
KERNEL_CATS = ('kernel', 'Kernel')
GPU_OP_CATS = frozenset(('kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset'))
CPU_ONLY_CATS = frozenset(('cpu_op', 'Operator', 'cuda_runtime', 'Runtime', 'cuda_driver'))

# Promoted arg columns: column -> (arg keys that fill it, arg keys an importer may also use).
PROMOTED = (
    ('external_id', ('External id', 'external id'), ()),
    ('correlation', ('correlation',), ()),
    ('seq_num', ('Sequence number',), ('seq_num',)),
    ('fwd_thread_id', ('Fwd thread id',), ()),
    ('python_id', ('Python id',), ()),
    ('python_parent_id', ('Python parent id',), ()),
    ('device', ('device',), ('Device',)),
    ('stream', ('stream',), ()),
)

# The allocator args of [memory] instants, in memory_args column order.
MEMORY_KEYS = ('Bytes', 'Addr', 'Total Allocated', 'Total Reserved', 'Device Type', 'Device Id')

MAX_LISTED = 15          # mismatches listed per check and trace
ARGS_SAMPLE_ABOVE = 50000  # above this many events, args are checked on every 7th event key
ARGS_SAMPLE_STEP = 7
ARGS_VIEW_SAMPLE = 60    # events whose args-view rows are checked one by one (plus special ones)


# ----------------------------------------------------------------------------------------------
# Reading the trace file
# ----------------------------------------------------------------------------------------------

_CANON_INT = re.compile(r'-?[0-9]+\Z')


def norm_id(v):
    """pid/tid normalisation: a canonical decimal string within int64 is that integer."""
    if isinstance(v, str) and _CANON_INT.match(v):
        n = int(v)
        if str(n) == v and INT64_MIN <= n <= INT64_MAX:
            return n
    return v


def to_ns(v):
    """Microsecond JSON number -> integer ns (exact; half-even beyond 3 decimals). None if absent."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, Decimal):
        return int(CTX.multiply(v, Decimal(1000)).to_integral_value(
            rounding=decimal.ROUND_HALF_EVEN, context=CTX))
    if isinstance(v, str):
        try:
            return to_ns(Decimal(v))
        except decimal.InvalidOperation:
            return None
    return None


def as_int(v):
    """An int (not bool) or canonical integer text -> int; anything else -> None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and _CANON_INT.match(v) and str(int(v)) == v:
        return int(v)
    if isinstance(v, Decimal) and v == v.to_integral_value():
        return int(v)
    return None


def canon(v):
    """Hashable, type-aware canonical form of a JSON value parsed with parse_float=Decimal.

    Integers outside int64 and strings holding the exact digits of such an integer have the same
    form, because tracesql stores those integers as JSON strings. Floats compare by exact value
    (68.0 == 68.00) but never equal an integer (68.0 != 68)."""
    if v is None:
        return ('null',)
    if v is True or v is False:
        return ('bool', v)
    if isinstance(v, int):
        if INT64_MIN <= v <= INT64_MAX:
            return ('int', v)
        return ('bigint', str(v))
    if isinstance(v, Decimal):
        if not v.is_finite():
            return ('num', str(v))
        return ('num', v.as_integer_ratio())
    if isinstance(v, str):
        if _CANON_INT.match(v):
            n = int(v)
            if str(n) == v and not INT64_MIN <= n <= INT64_MAX:
                return ('bigint', v)
        return ('str', v)
    if isinstance(v, list):
        return ('array', tuple(canon(x) for x in v))
    if isinstance(v, dict):
        return ('object', tuple(sorted((k, canon(x)) for k, x in v.items())))
    return ('other', repr(v))


def short(v, n=120):
    s = v if isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[:n] + '...(%d chars)' % len(s)


class Ev(object):
    __slots__ = ('idx', 'ph', 'cat', 'name', 'pid', 'tid', 'ts', 'dur', 'args')

    @property
    def track(self):
        return (self.pid, self.tid)

    def key(self):
        return (self.pid, self.tid, self.ts, self.dur, self.name, self.ph, self.cat)

    def end(self):
        return self.ts + (self.dur or 0) if self.ts is not None else None

    def describe(self):
        return 'ph=%s cat=%s name=%s pid=%r tid=%r ts=%s dur=%s' % (
            self.ph, self.cat, short(self.name, 80), self.pid, self.tid, self.ts, self.dur)


class FlowPoint(object):
    __slots__ = ('idx', 'ph', 'cat', 'id', 'name', 'pid', 'tid', 'ts', 'bp', 'bound')


class Trace(object):
    """Everything the checker derives from one trace file, without looking at the database."""

    def __init__(self, path):
        self.path = path
        self.notes = []
        raw = open(path, 'rb').read()
        self.file_bytes = len(raw)
        self.compressed = raw[:2] == b'\x1f\x8b'
        if self.compressed:
            raw = gzip.decompress(raw)
        self.json_bytes = len(raw)
        root = json.loads(raw.decode('utf-8'), parse_float=Decimal)
        del raw
        if isinstance(root, list):
            self.root_shape = 'array'
            self.meta = {}
            items = root
        elif isinstance(root, dict):
            self.root_shape = 'object'
            self.meta = collections.OrderedDict((k, v) for k, v in root.items() if k != 'traceEvents')
            items = root.get('traceEvents')
            if not isinstance(items, list):
                raise ValueError('%s: no traceEvents array' % path)
        else:
            raise ValueError('%s: root is neither an object nor an array' % path)

        base = self.meta.get('baseTimeNanoseconds')
        self.base_time_ns = as_int(base) if base is not None else None
        if base is not None and self.base_time_ns is None:
            self.notes.append('baseTimeNanoseconds %r is not an integer; ignored' % (base,))
        offset = self.base_time_ns or 0

        dist = self.meta.get('distributedInfo')
        dist = dist if isinstance(dist, dict) else {}
        self.rank = dist.get('rank')
        self.world_size = dist.get('world_size')

        self.events = []
        self.flow_points = []
        self.proc_meta = collections.defaultdict(dict)    # pid -> {name, labels, sort_index}
        self.thread_meta = collections.defaultdict(dict)  # (pid, tid) -> {name, sort_index}
        self.unmatched_e = 0
        open_b = collections.defaultdict(list)
        for idx, e in enumerate(items):
            if not isinstance(e, dict):
                self.notes.append('traceEvents[%d] is not an object; skipped' % idx)
                continue
            ph = e.get('ph')
            pid, tid = norm_id(e.get('pid')), norm_id(e.get('tid'))
            ts = to_ns(e.get('ts'))
            if ts is not None:
                ts += offset
            if ph == 'M':
                self._meta_event(e, pid, tid)
                continue
            if ph in FLOW_PHASES:
                p = FlowPoint()
                p.idx, p.ph, p.cat, p.id, p.name = idx, ph, e.get('cat'), e.get('id'), e.get('name')
                p.pid, p.tid, p.ts, p.bp = pid, tid, ts, e.get('bp')
                self.flow_points.append(p)
                continue
            if ph == 'E':
                stack = open_b.get((pid, tid))
                if not stack:
                    self.unmatched_e += 1
                    continue
                b = stack.pop()
                if ts is not None and b.ts is not None:
                    b.dur = ts - b.ts
                eargs = e.get('args')
                if isinstance(eargs, dict) and eargs:
                    merged = dict(b.args) if isinstance(b.args, dict) else {}
                    merged.update(eargs)
                    b.args = merged
                continue
            ev = Ev()
            ev.idx, ev.ph, ev.cat, ev.name = idx, ph, e.get('cat'), e.get('name')
            ev.pid, ev.tid, ev.ts = pid, tid, ts
            ev.dur = None if ph == 'B' else to_ns(e.get('dur'))
            ev.args = e.get('args')
            self.events.append(ev)
            if ph == 'B':
                open_b[(pid, tid)].append(ev)
        if self.unmatched_e:
            self.notes.append('%d E event(s) without an open B (assumed not stored)' % self.unmatched_e)
        for e in self.events:
            if e.ts is None:
                self.notes.append('event without a usable ts: %s' % e.describe())
                break
        self._bind_flows()

    def _meta_event(self, e, pid, tid):
        name, args = e.get('name'), e.get('args')
        if not isinstance(args, dict):
            return
        if name == 'process_name' and 'name' in args:
            self.proc_meta[pid]['name'] = args['name']
        elif name == 'process_labels' and 'labels' in args:
            self.proc_meta[pid]['labels'] = args['labels']
        elif name == 'process_sort_index' and 'sort_index' in args:
            self.proc_meta[pid]['sort_index'] = args['sort_index']
        elif name == 'thread_name' and 'name' in args:
            self.thread_meta[(pid, tid)]['name'] = args['name']
        elif name == 'thread_sort_index' and 'sort_index' in args:
            self.thread_meta[(pid, tid)]['sort_index'] = args['sort_index']

    # -- flow binding ----------------------------------------------------------------------------

    def _bind_flows(self):
        tracks = collections.defaultdict(list)
        for e in self.events:
            if e.dur is not None and e.ts is not None:
                tracks[e.track].append(e)
        self.slice_tracks = {}
        for tr, sl in tracks.items():
            sl.sort(key=lambda s: (s.ts, -s.dur))
            ts = [s.ts for s in sl]
            maxend, m = [], None
            for s in sl:
                end = s.ts + s.dur
                m = end if m is None or end > m else m
                maxend.append(m)
            self.slice_tracks[tr] = (sl, ts, maxend)
        self.fallback_walks = 0
        for p in self.flow_points:
            p_cands = self.bind_point(p)
            p.bound = p_cands  # list of acceptable slices (ties), [] when unbound

    @staticmethod
    def _corr_matches(s, fid):
        if not isinstance(s.args, dict) or fid is None:
            return False
        c = as_int(s.args.get('correlation'))
        return c is not None and c == as_int(fid)

    def bind_point(self, p):
        t = p.ts
        entry = self.slice_tracks.get((p.pid, p.tid))
        if entry is None or t is None:
            return []
        sl, ts, maxend = entry
        if p.ph == 'f' and p.bp != 'e':
            i = bisect.bisect_left(ts, t)
            if i >= len(sl):
                return []
            return self._ties(sl, i, None)
        launch = p.cat in LAUNCH_FLOW_CATS
        i = bisect.bisect_right(ts, t) - 1
        innermost = None
        walked = 0
        while i >= 0:
            if maxend[i] < t or (maxend[i] <= t and ts[i] < t):
                break
            s = sl[i]
            if t < s.ts + s.dur or (s.dur == 0 and s.ts == t):
                if innermost is None:
                    innermost = i
                    if not launch or self._corr_matches(s, p.id):
                        return self._ties(sl, i, p.id if launch else None)
                elif self._corr_matches(s, p.id):
                    return self._ties(sl, i, p.id)
            i -= 1
            walked += 1
        if innermost is None:
            return []
        if walked > 1000:
            self.fallback_walks += 1
        return self._ties(sl, innermost, None)

    def _ties(self, sl, i, corr):
        """The slice at i and those with the same (ts, dur) (in the same correlation class)."""
        s0 = sl[i]
        out = []
        j = i
        while j > 0 and sl[j - 1].ts == s0.ts and sl[j - 1].dur == s0.dur:
            j -= 1
        while j < len(sl) and sl[j].ts == s0.ts and sl[j].dur == s0.dur:
            if corr is None or self._corr_matches(sl[j], corr):
                out.append(sl[j])
            j += 1
        return out


# ----------------------------------------------------------------------------------------------
# Comparing with the database
# ----------------------------------------------------------------------------------------------

class Report(object):
    def __init__(self):
        self.items = collections.OrderedDict()  # check -> list of messages
        self.counts = collections.Counter()

    def add(self, check, msg):
        self.counts[check] += 1
        lst = self.items.setdefault(check, [])
        if len(lst) < MAX_LISTED:
            lst.append(msg)

    def total(self):
        return sum(self.counts.values())

    def lines(self):
        out = []
        for check, msgs in self.items.items():
            for m in msgs:
                out.append('  [%s] %s' % (check, m))
            extra = self.counts[check] - len(msgs)
            if extra > 0:
                out.append('  [%s] ... and %d more' % (check, extra))
        return out


def db_rows(con, sql, params=()):
    return con.execute(sql, params).fetchall()


def table_columns(con, table):
    return [r[1] for r in con.execute('PRAGMA table_info(%s)' % table)]


def parse_db_json(text):
    return json.loads(text, parse_float=Decimal)


def event_desc(row):
    """(pid, tid, ts, dur, name, correlation) of a DB event row or a file Ev. The correlation
    tells apart identical zero-length runtime calls at one ts (seen in real traces)."""
    if isinstance(row, Ev):
        corr = as_int(row.args.get('correlation')) if isinstance(row.args, dict) else None
        return (row.pid, row.tid, row.ts, row.dur, row.name, corr)
    return tuple(row)


def fmt_desc(d):
    if d is None:
        return 'NULL'
    pid, tid, ts, dur, name, corr = d
    return '(pid=%r tid=%r ts=%s dur=%s name=%s correlation=%r)' % (
        pid, tid, ts, dur, short(name, 70), corr)


class TraceCheck(object):
    def __init__(self, con, trace_id, tr, rep):
        self.con, self.tid, self.tr, self.rep = con, trace_id, tr, rep
        self.stats = collections.OrderedDict()

    def run(self):
        row = db_rows(self.con, 'SELECT * FROM traces WHERE id = ?', (self.tid,))
        if not row:
            self.rep.add('metadata', 'no traces row with id %d' % self.tid)
            return
        self.check_counts()
        self.check_events_and_args()
        self.check_times()
        self.check_tracks()
        self.check_flows()
        self.check_metadata()
        self.check_names()

    # 1. counts by (ph, cat)
    def check_counts(self):
        mine = collections.Counter((e.ph, e.cat) for e in self.tr.events)
        db = collections.Counter({(ph, cat): n for ph, cat, n in db_rows(
            self.con, 'SELECT ph, cat, count(*) FROM events WHERE trace_id = ? GROUP BY 1, 2',
            (self.tid,))})
        for k in sorted(set(mine) | set(db), key=repr):
            if mine[k] != db[k]:
                self.rep.add('counts', 'ph=%r cat=%r: file has %d events, db has %d'
                             % (k[0], k[1], mine[k], db[k]))
        (ec,), = db_rows(self.con, 'SELECT event_count FROM traces WHERE id = ?', (self.tid,))
        if ec != len(self.tr.events):
            self.rep.add('counts', 'traces.event_count = %r, file has %d events'
                         % (ec, len(self.tr.events)))
        self.stats['events'] = len(self.tr.events)

    # full event identity, args, promoted columns, args view
    def check_events_and_args(self):
        cols = table_columns(self.con, 'events')
        prom = [spec for spec in PROMOTED if spec[0] in cols]
        # A promoted key out of line (arg_keys.path NULL) has its value only in its column.
        self.column_of_key = {k: 9 + j for j, spec in enumerate(prom) for k in spec[1]}
        for c, _, _ in PROMOTED:
            if c not in cols:
                self.rep.add('args', 'events has no column %s' % c)
        # Two storage layouts are understood: events.args (a JSON object per event), or
        # events.arg_shape_id + events.arg_values (a JSON array of values) with the keys of each
        # shape in arg_keys(shape_id, idx, key). The object is rebuilt here, not read from a view.
        # In the shape layout a key whose arg_keys.path is NULL ('Input Dims' / 'Input type') has its
        # value in input_shapes(id, input_dims, input_type) through events.input_shape_id.
        if 'args' in cols:
            self.arg_layout = 'object'
            argsel = 'args, NULL, NULL'
        elif 'arg_values' in cols and 'arg_shape_id' in cols:
            self.arg_layout = 'shape'
            argsel = 'arg_values, arg_shape_id, %s' % ('input_shape_id' if 'input_shape_id' in cols else 'NULL')
            self.shape_keys = collections.defaultdict(list)
            has_path = 'path' in table_columns(self.con, 'arg_keys')
            for sid, idx, key, path in self.con.execute(
                    'SELECT shape_id, idx, key, %s FROM arg_keys ORDER BY shape_id, idx'
                    % ('path' if has_path else "'$[' || idx || ']'")):
                self.shape_keys[sid].append((idx, key, path))
            self.memory_args = {}
            if self.con.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_args'").fetchone():
                mcols = ('bytes', 'addr', 'total_allocated', 'total_reserved', 'device_type', 'device_id')
                for row in self.con.execute('SELECT event_id, %s FROM memory_args' % ', '.join(mcols)):
                    self.memory_args[row[0]] = dict(zip(MEMORY_KEYS, row[1:]))
            self.input_shapes = {}
            if 'input_shape_id' in cols:
                for sid, dims, types in self.con.execute('SELECT id, input_dims, input_type FROM input_shapes'):
                    self.input_shapes[sid] = {'Input Dims': dims, 'Input dims': dims, 'Input type': types}
        else:
            self.rep.add('args', 'events has neither an args column nor arg_shape_id/arg_values')
            self.arg_layout = None
            argsel = 'NULL, NULL, NULL'
        sel = 'SELECT id, pid, tid, ts, dur, name, ph, cat, %s%s FROM events WHERE trace_id = ?' % (
            argsel, ''.join(', ' + spec[0] for spec in prom))
        db_by_key = collections.defaultdict(list)
        self.db_events = {}
        for r in self.con.execute(sel, (self.tid,)):
            # r becomes (id, pid, tid, ts, dur, name, ph, cat, (args-text, shape, input shape), promoted...)
            r = r[:8] + (r[8:11],) + r[11:]
            key = (r[1], r[2], r[3], r[4], r[5], r[6], r[7])
            db_by_key[key].append(r)
            self.db_events[r[0]] = r
        self.db_by_key = db_by_key
        mine_by_key = collections.defaultdict(list)
        for e in self.tr.events:
            mine_by_key[e.key()].append(e)

        # the whole multiset of (pid, tid, ts, dur, name, ph, cat)
        missing, extra = [], []
        for k, lst in mine_by_key.items():
            n = len(db_by_key.get(k, ()))
            if n < len(lst):
                missing.append((k, len(lst) - n))
        for k, lst in db_by_key.items():
            n = len(mine_by_key.get(k, ()))
            if n < len(lst):
                extra.append((k, len(lst) - n))
        keyfmt = lambda k: 'pid=%r tid=%r ts=%r dur=%r name=%s ph=%r cat=%r' % (
            k[0], k[1], k[2], k[3], short(k[4], 70), k[5], k[6])
        for k, n in sorted(missing, key=repr):
            self.rep.add('events', 'in file, not in db (x%d): %s' % (n, keyfmt(k)))
        for k, n in sorted(extra, key=repr):
            self.rep.add('events', 'in db, not in file (x%d): %s' % (n, keyfmt(k)))

        # args, sampled by key
        keys = sorted(mine_by_key, key=repr)
        if len(self.tr.events) > ARGS_SAMPLE_ABOVE:
            keys = keys[::ARGS_SAMPLE_STEP]
        checked = 0
        bad_json = 0
        for k in keys:
            mine = mine_by_key[k]
            dbl = db_by_key.get(k)
            if not dbl or len(dbl) != len(mine):
                continue  # already reported by the event identity check
            pool = []
            for r in dbl:
                val, err = self._db_args(r)
                if err:
                    bad_json += 1
                    self.rep.add('args', 'event id %d: %s' % (r[0], err))
                pool.append((r, val))
            for e in mine:
                checked += 1
                want = e.args if isinstance(e.args, dict) and e.args else None
                if e.args is not None and not isinstance(e.args, dict):
                    self.tr.notes.append('args of %s is not an object' % e.describe())
                wkeys = list(want.keys()) if want else []
                found = None
                for i, (r, val) in enumerate(pool):
                    if canon(val) == canon(want) and self._promoted_ok(e, r, prom) is None \
                            and (list(val.keys()) if val else []) == wkeys:
                        found = i
                        break
                if found is not None:
                    pool.pop(found)
                    continue
                # explain the mismatch against the first remaining candidate
                r, val = pool[0] if pool else (None, None)
                if r is None:
                    continue
                got = val
                if canon(got) != canon(want):
                    self.rep.add('args', '%s (db id %d): %s' % (
                        e.describe(), r[0], self._args_diff(want, got)))
                elif (list(got.keys()) if got else []) != wkeys:
                    self.rep.add('args', '%s (db id %d): key order %s, file order %s' % (
                        e.describe(), r[0], short(repr(list(got.keys()))), short(repr(wkeys))))
                else:
                    self.rep.add('args', '%s (db id %d): promoted column %s' % (
                        e.describe(), r[0], self._promoted_ok(e, r, prom)))
                pool.pop(0)
        self.stats['args_checked'] = checked
        self.check_args_view(mine_by_key, db_by_key)

    def _db_args(self, r):
        """(args as an ordered dict or None, error text or None) of db events row r."""
        txt, shape, input_shape = r[8]
        if txt is None and shape is None:
            return None, None
        if self.arg_layout == 'object':
            try:
                val = parse_db_json(txt)   # dicts keep the key order of the text
            except (ValueError, TypeError) as ex:
                return None, 'args is not valid JSON (%s): %s' % (ex, short(txt))
            if not isinstance(val, dict):
                return None, 'args is not a JSON object: %s' % short(txt)
            return (val or None), None
        if self.arg_layout == 'shape':
            if txt is None or shape is None:
                return None, 'arg_shape_id %r with arg_values %s' % (shape, short(repr(txt)))
            try:
                arr = json.loads(txt, parse_float=Decimal)
            except (ValueError, TypeError) as ex:
                return None, 'arg_values is not valid JSON (%s): %s' % (ex, short(txt))
            keys = self.shape_keys.get(shape, [])   # a shape may have no keys (args {})
            inline = [k for k in keys if k[2] is not None]
            if not isinstance(arr, list) or len(arr) != len(inline) or \
                    [i for i, _, _ in keys] != list(range(len(keys))) or \
                    [p for _, _, p in inline] != ['$[%d]' % n for n in range(len(inline))]:
                return None, 'arg_values %s does not fit shape %r (%d keys, %d in line)' % (
                    short(txt, 60), shape, len(keys), len(inline))
            val = collections.OrderedDict()
            values = iter(arr)
            for _, k, path in keys:
                if k in val:
                    return None, 'shape %r repeats key %r' % (shape, k)
                if path is not None:
                    val[k] = next(values)
                    continue
                if k in self.column_of_key or k in MEMORY_KEYS:
                    v = r[self.column_of_key[k]] if k in self.column_of_key else \
                        self.memory_args.get(r[0], {}).get(k)
                    if not isinstance(v, int):
                        return None, 'key %r out of line, but its column holds %r' % (k, v)
                    val[k] = v
                    continue
                text = self.input_shapes.get(input_shape, {}).get(k)
                if text is None:
                    return None, 'key %r out of line, but input_shape_id %r holds no value for it' % (k, input_shape)
                try:
                    val[k] = json.loads(text, parse_float=Decimal)
                except ValueError as ex:
                    return None, 'input_shapes %r %r is not valid JSON (%s)' % (input_shape, k, ex)
            return (val or None), None
        return None, None

    @staticmethod
    def _args_diff(want, got):
        if not isinstance(want, dict) or not isinstance(got, dict):
            return 'file args %s, db args %s' % (short(json_text(want)), short(json_text(got)))
        parts = []
        for k in want:
            if k not in got:
                parts.append('key %r missing in db (file: %s)' % (k, short(json_text(want[k]), 60)))
            elif canon(want[k]) != canon(got[k]):
                parts.append('key %r: file %s, db %s' % (
                    k, short(json_text(want[k]), 60), short(json_text(got[k]), 60)))
        for k in got:
            if k not in want:
                parts.append('key %r only in db (%s)' % (k, short(json_text(got[k]), 60)))
        return '; '.join(parts[:4]) + ('; ...' if len(parts) > 4 else '')

    @staticmethod
    def _promoted_ok(e, r, prom):
        """None when every promoted column of db row r fits the file event, else a description.
        prom is the list of PROMOTED specs whose column the events table has."""
        args = e.args if isinstance(e.args, dict) else {}
        for j, spec in enumerate(prom):
            col = spec[0]
            got = r[9 + j]
            if got is None and not any(k in args for k in spec[1]) and not any(k in args for k in spec[2]):
                continue
            raw = None
            present = False
            for k in spec[1]:
                if k in args:
                    raw, present = args[k], True
                    break
            ok = set()
            if present and isinstance(raw, int) and not isinstance(raw, bool) \
                    and INT64_MIN <= raw <= INT64_MAX:
                ok.add(raw)          # an integer arg must be promoted
            else:
                ok.add(None)
                if present and as_int(raw) is not None and INT64_MIN <= as_int(raw) <= INT64_MAX:
                    ok.add(as_int(raw))   # numeric text: either NULL or its value is accepted
                for k in spec[2]:
                    v = as_int(args.get(k))
                    if v is not None:
                        ok.add(v)
            if isinstance(got, bool) or got not in ok or (got is not None and not isinstance(got, int)):
                return '%s = %r, expected %s (arg %s)' % (
                    col, got, ' or '.join(repr(x) for x in sorted(ok, key=repr)),
                    short(json_text(raw), 40) if present else 'absent')
        return None

    def check_args_view(self, mine_by_key, db_by_key):
        try:
            (n,), = db_rows(self.con, 'SELECT count(*) FROM args WHERE trace_id = ?', (self.tid,))
        except sqlite3.Error as ex:
            self.rep.add('args', 'args view failed: %s' % ex)
            return
        want = sum(len(e.args) for e in self.tr.events if isinstance(e.args, dict))
        if n != want:
            self.rep.add('args', 'args view has %d rows for this trace, file has %d arg keys' % (n, want))
        # pick events whose key is unique on both sides: special values first, then a spread
        uniq = [k for k, lst in mine_by_key.items()
                if len(lst) == 1 and len(db_by_key.get(k, ())) == 1 and isinstance(lst[0].args, dict)
                and lst[0].args]
        uniq.sort(key=repr)
        special, seen_kinds = [], set()
        for k in uniq:
            kinds = set(value_kinds(mine_by_key[k][0].args))
            if 'bigint' in kinds or kinds - seen_kinds:
                special.append(k)
                seen_kinds |= kinds
        step = max(1, len(uniq) // ARGS_VIEW_SAMPLE)
        chosen = list(dict.fromkeys(special + uniq[::step]))
        has_event_args = self.con.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'event_args'").fetchone() is not None
        for k in chosen:
            e = mine_by_key[k][0]
            eid = db_by_key[k][0][0]
            if has_event_args:
                row = self.con.execute('SELECT args FROM event_args WHERE event_id = ?', (eid,)).fetchone()
                try:
                    obj = parse_db_json(row[0]) if row and row[0] is not None else None
                except ValueError:
                    obj = 'invalid JSON: %s' % short(row[0])
                if canon(obj) != canon(e.args) or \
                        (isinstance(obj, dict) and list(obj.keys()) != list(e.args.keys())):
                    self.rep.add('args', 'event_args view for db id %d (%s): %s' % (
                        eid, e.describe(), self._args_diff(e.args, obj) if isinstance(obj, dict)
                        else short(repr(obj))) + ('' if canon(obj) != canon(e.args) else
                                                  ' (key order differs from the file)'))
            rows = db_rows(self.con, 'SELECT key, value, value_type FROM args WHERE event_id = ?', (eid,))
            got_keys = [r[0] for r in rows]
            if sorted(got_keys) != sorted(e.args.keys()):
                self.rep.add('args', 'args view for db id %d (%s): keys %s, file keys %s' % (
                    eid, e.describe(), short(repr(got_keys)), short(repr(list(e.args.keys())))))
                continue
            for key, value, vtype in rows:
                err = view_value_error(e.args[key], value, vtype)
                if err:
                    self.rep.add('args', 'args view for db id %d (%s) key %r: %s' % (
                        eid, e.describe(), key, err))
        self.stats['args_view_checked'] = len(chosen)

    # 2. exact times
    def check_times(self):
        ev = self.tr.events
        ksum = sum(e.dur for e in ev if e.cat in KERNEL_CATS and e.dur is not None)
        try:
            (dbk,), = db_rows(self.con, "SELECT sum(dur) FROM events WHERE trace_id = ? AND cat IN "
                              "('kernel', 'Kernel')", (self.tid,))
        except sqlite3.Error:
            dbk = sum(r[0] for r in self.con.execute(
                "SELECT dur FROM events WHERE trace_id = ? AND cat IN ('kernel', 'Kernel') "
                "AND dur IS NOT NULL", (self.tid,)))
        if (dbk or 0) != ksum:
            self.rep.add('times', 'sum(dur) of kernel events: file %d ns, db %r' % (ksum, dbk))
        timed = [e for e in ev if e.ts is not None]
        start = min((e.ts for e in timed), default=None)
        end = max((e.end() for e in timed), default=None)
        (dstart, dend), = db_rows(self.con, 'SELECT start_ts, end_ts FROM traces WHERE id = ?', (self.tid,))
        if dstart != start:
            self.rep.add('times', 'traces.start_ts = %r, file min(ts) = %r' % (dstart, start))
        if dend != end:
            self.rep.add('times', 'traces.end_ts = %r, file max(ts + dur) = %r' % (dend, end))
        tsum = sum(e.ts for e in timed)
        dsum = 0
        for (t,) in self.con.execute('SELECT ts FROM events WHERE trace_id = ?', (self.tid,)):
            if isinstance(t, int):
                dsum += t
            elif t is not None:
                self.rep.add('times', 'events.ts is not an integer: %r' % (t,))
        if dsum != tsum:
            self.rep.add('times', 'sum(ts) over all events: file %d, db %d (diff %d ns)'
                         % (tsum, dsum, dsum - tsum))
        bad = db_rows(self.con, "SELECT id, typeof(ts), typeof(dur) FROM events WHERE trace_id = ? AND "
                      "(typeof(ts) NOT IN ('integer', 'null') OR typeof(dur) NOT IN ('integer', 'null')) "
                      "LIMIT 5", (self.tid,))
        for r in bad:
            self.rep.add('times', 'event id %d stores ts as %s, dur as %s' % r)

    # 3. tracks
    def check_tracks(self):
        mine = collections.Counter(e.track for e in self.tr.events)
        (n,), = db_rows(self.con, 'SELECT count(DISTINCT thread_id) FROM events WHERE trace_id = ?',
                        (self.tid,))
        if n != len(mine):
            self.rep.add('tracks', 'events use %d distinct thread_id, file has %d (pid, tid) tracks'
                         % (n, len(mine)))
        db = collections.Counter()
        for pid, tid, cnt in db_rows(
                self.con, 'SELECT t.pid, t.tid, count(*) FROM events AS e JOIN threads AS t '
                'ON t.id = e.thread_id WHERE e.trace_id = ? GROUP BY t.id', (self.tid,)):
            db[(pid, tid)] += cnt
        for k in sorted(set(mine) | set(db), key=repr):
            if mine[k] != db[k]:
                self.rep.add('tracks', 'track pid=%r tid=%r: file %d events, db threads row has %d'
                             % (k[0], k[1], mine[k], db[k]))
        self.stats['tracks'] = len(mine)
        # kind of tracks holding only GPU ops / only host ops
        cats = collections.defaultdict(set)
        for e in self.tr.events:
            cats[e.track].add(e.cat)
        cols = table_columns(self.con, 'threads')
        if 'kind' in cols:
            kinds = {(p, t): k for p, t, k in db_rows(
                self.con, 'SELECT pid, tid, kind FROM threads WHERE trace_id = ?', (self.tid,))}
            for tr, cs in cats.items():
                want = None
                if cs & GPU_OP_CATS and not cs & CPU_ONLY_CATS:
                    want = 'gpu'
                elif cs & CPU_ONLY_CATS and not cs & GPU_OP_CATS:
                    want = 'cpu'
                if want and tr in kinds and kinds[tr] != want:
                    self.rep.add('tracks', 'thread pid=%r tid=%r (cats %s) has kind %r, expected %r'
                                 % (tr[0], tr[1], sorted(cs, key=repr), kinds[tr], want))

    # 4. flows
    def check_flows(self):
        groups = collections.OrderedDict()
        for p in self.tr.flow_points:
            groups.setdefault((p.cat, p.id), {'s': [], 't': [], 'f': []})[p.ph].append(p)
        expect = collections.defaultdict(list)   # (cat, id) -> [(src point, dst point)]
        per_cat = collections.defaultdict(collections.Counter)
        dup_starts = 0
        for (cat, fid), g in groups.items():
            starts, ends = g['s'], g['f']
            if len(starts) > 1:
                dup_starts += 1
            src = starts[0] if starts else None
            if ends:
                for f in ends:
                    expect[(cat, fid)].append((src, f))
            else:
                for s in starts:
                    expect[(cat, fid)].append((s, None))
            c = per_cat[cat]
            c['rows'] += len(ends) if ends else len(starts)
            c['ends'] += len(ends)
            c['ends_bound'] += sum(1 for f in ends if f.bound)
            c['starts'] += len(starts)
            c['starts_bound'] += sum(1 for s in starts if s.bound)
            c['groups_with_bound_start'] += 1 if any(s.bound for s in starts) else 0
        if dup_starts:
            self.tr.notes.append('%d flow (cat, id) groups have more than one start; src taken as the '
                                 'first start in file order' % dup_starts)
        steps = sum(len(g['t']) for g in groups.values())
        if steps:
            self.tr.notes.append('%d flow step (t) points ignored in row counts' % steps)

        cols = table_columns(self.con, 'flows')
        has_ts = 'src_ts' in cols and 'dst_ts' in cols
        has_corr = 'correlation' in table_columns(self.con, 'events')
        q = ('SELECT f.cat, f.flow_id, f.src_event_id, f.dst_event_id, %s, '
             's.pid, s.tid, s.ts, s.dur, s.name, %s, d.pid, d.tid, d.ts, d.dur, d.name, %s '
             'FROM flows AS f LEFT JOIN events AS s ON s.id = f.src_event_id '
             'LEFT JOIN events AS d ON d.id = f.dst_event_id WHERE f.trace_id = ?'
             % ('f.src_ts, f.dst_ts' if has_ts else 'NULL, NULL',
                's.correlation' if has_corr else 'NULL', 'd.correlation' if has_corr else 'NULL'))
        db_groups = collections.defaultdict(list)
        db_cat = collections.defaultdict(collections.Counter)
        db_src_groups = collections.defaultdict(set)
        for r in self.con.execute(q, (self.tid,)):
            cat, fid, sid, did, sts, dts = r[:6]
            sdesc = tuple(r[6:12]) if sid is not None else None
            ddesc = tuple(r[12:18]) if did is not None else None
            if not has_corr:  # compare without correlation
                sdesc = sdesc and sdesc[:5] + (None,)
                ddesc = ddesc and ddesc[:5] + (None,)
            if sid is not None and r[8] is None:
                self.rep.add('flows', 'flow cat=%r id=%r: src_event_id %r does not exist' % (cat, fid, sid))
            if did is not None and r[14] is None:
                self.rep.add('flows', 'flow cat=%r id=%r: dst_event_id %r does not exist' % (cat, fid, did))
            db_groups[(cat, fid)].append((sdesc, ddesc, sts, dts))
            c = db_cat[cat]
            c['rows'] += 1
            c['ends_bound'] += 1 if did is not None else 0
            if sid is not None:
                db_src_groups[cat].add(fid)
        for cat in set(db_src_groups):
            db_cat[cat]['groups_with_bound_start'] = len(db_src_groups[cat])

        for cat in sorted(set(per_cat) | set(db_cat), key=repr):
            m, d = per_cat[cat], db_cat[cat]
            for what in ('rows', 'ends_bound', 'groups_with_bound_start'):
                if m[what] != d[what]:
                    self.rep.add('flows', 'cat=%r: %s: file %d, db %d' % (cat, what, m[what], d[what]))

        # per flow point: the bound events
        def accepts(cands, desc):
            if not cands:
                return desc is None
            return desc is not None and any(
                event_desc(c)[:5] == desc[:5] and (not has_corr or event_desc(c)[5] == desc[5])
                for c in cands)

        def want_text(cands):
            if not cands:
                return 'NULL'
            s = fmt_desc(event_desc(cands[0]))
            return s + (' (or %d tied slices)' % (len(cands) - 1) if len(cands) > 1 else '')

        for key in sorted(set(expect) | set(db_groups), key=repr):
            exp = expect.get(key, [])
            got = list(db_groups.get(key, []))
            if len(exp) != len(got):
                self.rep.add('flows', 'cat=%r id=%r: file gives %d row(s), db has %d' % (
                    key[0], key[1], len(exp), len(got)))
                continue
            for src, dst in exp:
                match = None
                for i, (sdesc, ddesc, sts, dts) in enumerate(got):
                    if accepts(src.bound if src else [], sdesc) and \
                            accepts(dst.bound if dst else [], ddesc) and \
                            (not has_ts or ((src.ts if src else None) == sts
                                            and (dst.ts if dst else None) == dts)):
                        match = i
                        break
                if match is not None:
                    got.pop(match)
                    continue
                # report against the row with the same end/start ts, else the first one
                pick = 0
                for i, g in enumerate(got):
                    if has_ts and dst is not None and g[3] == dst.ts:
                        pick = i
                        break
                sdesc, ddesc, sts, dts = got.pop(pick)
                msgs = []
                if not accepts(src.bound if src else [], sdesc):
                    msgs.append('src: expected %s, db %s' % (want_text(src.bound if src else []),
                                                            fmt_desc(sdesc)))
                if not accepts(dst.bound if dst else [], ddesc):
                    msgs.append('dst: expected %s, db %s' % (want_text(dst.bound if dst else []),
                                                            fmt_desc(ddesc)))
                if has_ts and (src.ts if src else None) != sts:
                    msgs.append('src_ts: expected %r, db %r' % (src.ts if src else None, sts))
                if has_ts and (dst.ts if dst else None) != dts:
                    msgs.append('dst_ts: expected %r, db %r' % (dst.ts if dst else None, dts))
                where = ('end at ts %s on pid=%r tid=%r' % (dst.ts, dst.pid, dst.tid)) if dst else \
                        ('start at ts %s on pid=%r tid=%r' % (src.ts, src.pid, src.tid))
                self.rep.add('flows', 'cat=%r id=%r %s: %s' % (key[0], key[1], where, '; '.join(msgs)))
        tot = collections.Counter()
        for c in per_cat.values():
            tot.update(c)
        self.stats['flow_rows'] = tot['rows']
        self.stats['flow_ends_bound'] = '%d/%d' % (tot['ends_bound'], tot['ends'])
        self.stats['flow_starts_bound'] = '%d/%d' % (tot['starts_bound'], tot['starts'])
        if self.tr.fallback_walks:
            self.tr.notes.append('%d flow points needed a long search for a correlated slice'
                                 % self.tr.fallback_walks)

    # 6. traces row and devices
    def check_metadata(self):
        tr = self.tr
        cols = table_columns(self.con, 'traces')
        row = dict(zip(cols, db_rows(self.con, 'SELECT * FROM traces WHERE id = ?', (self.tid,))[0]))
        try:
            meta = parse_db_json(row.get('metadata') or 'null')
        except ValueError as ex:
            self.rep.add('metadata', 'traces.metadata is not valid JSON: %s' % ex)
            meta = None
        if not isinstance(meta, dict):
            self.rep.add('metadata', 'traces.metadata is not a JSON object: %s' % short(row.get('metadata')))
        else:
            for k, v in tr.meta.items():
                if k not in meta:
                    self.rep.add('metadata', 'top-level key %r missing from traces.metadata' % k)
                elif canon(meta[k]) != canon(v):
                    self.rep.add('metadata', 'top-level key %r: file %s, db %s' % (
                        k, short(json_text(v)), short(json_text(meta[k]))))
            for k in meta:
                if k not in tr.meta:
                    self.rep.add('metadata', 'traces.metadata has key %r not in the file' % k)
        expect = {
            'base_time_ns': tr.base_time_ns,
            'rank': tr.rank,
            'world_size': tr.world_size,
            'file_bytes': tr.file_bytes,
            'json_bytes': tr.json_bytes,
            'compressed': 1 if tr.compressed else 0,
            'root_shape': tr.root_shape,
            'truncated': 0,
        }
        for col, want in expect.items():
            if col in row and canon(row[col]) != canon(want):
                self.rep.add('metadata', 'traces.%s = %r, expected %r' % (col, row[col], want))
        if 'path' in row and os.path.basename(str(row['path'])) != os.path.basename(tr.path):
            self.rep.add('metadata', 'traces.path = %r, expected a path to %r'
                         % (row['path'], os.path.basename(tr.path)))
        # devices
        props = tr.meta.get('deviceProperties')
        props = props if isinstance(props, list) else []
        try:
            dcols = table_columns(self.con, 'devices')
        except sqlite3.Error:
            dcols = []
        if not dcols:
            return
        want = collections.Counter()
        for p in props:
            if not isinstance(p, dict):
                continue
            want[(canon(p.get('id')), canon(p.get('name')), canon(p.get('computeMajor')),
                  canon(p.get('computeMinor')), canon(p.get('totalGlobalMem')),
                  canon(p.get('numSms')), canon(p))] += 1
        got = collections.Counter()
        for r in db_rows(self.con, 'SELECT device, name, compute_major, compute_minor, total_memory, '
                         'num_sms, properties FROM devices WHERE trace_id = ?', (self.tid,)):
            try:
                pj = canon(parse_db_json(r[6]))
            except (ValueError, TypeError):
                pj = ('invalid', r[6])
            got[tuple(canon(x) for x in r[:6]) + (pj,)] += 1
        if want != got:
            self.rep.add('metadata', 'devices: file has %d deviceProperties entries, db %d rows; '
                         '%d file entries have no equal row' % (
                             sum(want.values()), sum(got.values()), sum((want - got).values())))
            for k in list((want - got))[:3]:
                self.rep.add('metadata', 'devices: no row for device %r name %r (major %r minor %r '
                             'mem %r sms %r)' % tuple(c[1] if len(c) > 1 else None for c in k[:6]))

    # 7. processes / threads
    def check_names(self):
        tr = self.tr
        procs = collections.defaultdict(list)
        for r in db_rows(self.con, 'SELECT id, pid, name, labels, sort_index FROM processes '
                         'WHERE trace_id = ?', (self.tid,)):
            procs[r[1]].append(r)
        for pid, lst in procs.items():
            if len(lst) > 1:
                self.rep.add('names', 'processes has %d rows for pid %r' % (len(lst), pid))
        used_pids = set(e.pid for e in tr.events)
        for pid in sorted(used_pids, key=repr):
            if pid not in procs:
                self.rep.add('names', 'no processes row for pid %r (has events)' % (pid,))
        for pid, lst in procs.items():
            m = tr.proc_meta.get(pid, {})
            _, _, name, labels, sidx = lst[0]
            for col, got in (('name', name), ('labels', labels), ('sort_index', sidx)):
                want = m.get(col)
                if canon(got) != canon(want):
                    self.rep.add('names', 'process pid=%r %s = %s, file says %s' % (
                        pid, col, short(json_text(got)), short(json_text(want))))
        for pid in tr.proc_meta:
            if pid not in procs:
                self.tr.notes.append('pid %r has process metadata but no processes row' % (pid,))
                break

        threads = collections.defaultdict(list)
        for r in db_rows(self.con, 'SELECT t.id, t.pid, t.tid, t.name, t.sort_index, p.pid FROM threads '
                         'AS t LEFT JOIN processes AS p ON p.id = t.process_id WHERE t.trace_id = ?',
                         (self.tid,)):
            threads[(r[1], r[2])].append(r)
        for k, lst in threads.items():
            if len(lst) > 1:
                self.rep.add('names', 'threads has %d rows for pid=%r tid=%r' % (len(lst), k[0], k[1]))
            if lst[0][5] != k[0]:
                self.rep.add('names', 'thread pid=%r tid=%r belongs to process with pid %r'
                             % (k[0], k[1], lst[0][5]))
        for k, lst in threads.items():
            m = tr.thread_meta.get(k, {})
            for col, got in (('name', lst[0][3]), ('sort_index', lst[0][4])):
                want = m.get(col)
                if canon(got) != canon(want):
                    self.rep.add('names', 'thread pid=%r tid=%r %s = %s, file says %s' % (
                        k[0], k[1], col, short(json_text(got)), short(json_text(want))))
        unlisted = [k for k in tr.thread_meta if k not in threads]
        if unlisted:
            self.tr.notes.append('%d thread_name/sort (pid, tid) without a threads row, e.g. %r'
                                 % (len(unlisted), unlisted[0]))


def value_kinds(v):
    if isinstance(v, dict):
        for x in v.values():
            for k in value_kinds(x):
                yield k
        yield 'object'
    elif isinstance(v, list):
        yield 'array'
    else:
        c = canon(v)
        yield c[0] if c[0] != 'bool' else ('true' if v else 'false')


def view_value_error(want, value, vtype):
    """Why the args view's (value, value_type) does not reproduce the file value, or None."""
    c = canon(want)
    kind = c[0]
    if kind == 'int':
        ok = vtype == 'integer' and isinstance(value, int) and value == want
        exp = 'integer %d' % want
    elif kind == 'bigint':
        ok = vtype == 'text' and value == c[1]
        exp = "text '%s' (integer beyond int64)" % c[1]
    elif kind == 'num':
        try:
            f = float(want)
        except (OverflowError, ValueError):
            f = None
        ok = vtype == 'real' and isinstance(value, float) and f is not None and \
            (value == f or abs(value - f) <= abs(f) * 4e-16)
        exp = 'real %s' % want
    elif kind == 'str':
        ok = vtype == 'text' and value == want
        exp = 'text %s' % short(json.dumps(want), 60)
    elif kind == 'bool':
        ok = vtype == ('true' if want else 'false') and value == (1 if want else 0)
        exp = 'json %s' % ('true' if want else 'false')
    elif kind == 'null':
        ok = vtype == 'null' and value is None
        exp = 'null'
    elif kind in ('array', 'object'):
        try:
            got = parse_db_json(value) if isinstance(value, str) else None
        except ValueError:
            got = None
        ok = vtype == kind and got is not None and canon(got) == c
        exp = '%s %s' % (kind, short(json_text(want), 60))
    else:
        return None
    if ok:
        return None
    return 'value %s (type %s), expected %s' % (short(repr(value), 60), vtype, exp)


class _DecEnc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Decimal):
            return float(o)
        return json.JSONEncoder.default(self, o)


def json_text(v):
    if isinstance(v, Decimal):
        return str(v)
    try:
        return json.dumps(v, cls=_DecEnc, separators=(',', ':'))
    except (TypeError, ValueError):
        return repr(v)


# ----------------------------------------------------------------------------------------------
# Invariants
# ----------------------------------------------------------------------------------------------

def default_invariants_dir():
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'invariants'))


def run_invariants(db, inv_dir):
    """Run every *.sql in inv_dir (each must return zero rows) plus integrity/foreign-key checks.
    Returns a list of failure lines (empty when all hold)."""
    failures = []
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    try:
        rows = con.execute('PRAGMA integrity_check').fetchall()
        if rows != [('ok',)]:
            failures.append('integrity_check: %s' % '; '.join(str(r[0]) for r in rows[:5]))
        rows = con.execute('PRAGMA foreign_key_check').fetchall()
        if rows:
            failures.append('foreign_key_check: %d violation(s), e.g. %r' % (len(rows), rows[0]))
        files = sorted(glob.glob(os.path.join(inv_dir, '*.sql')))
        if not files:
            failures.append('no invariant files in %s' % inv_dir)
        for path in files:
            name = os.path.splitext(os.path.basename(path))[0]
            sql = open(path).read()
            try:
                cur = con.execute(sql)
                cols = [d[0] for d in cur.description or ()]
                bad = cur.fetchmany(4)
                more = len(cur.fetchall()) if bad else 0
            except sqlite3.Error as ex:
                failures.append('%s: query failed: %s' % (name, ex))
                continue
            if bad:
                ex = ', '.join('(%s)' % ', '.join('%s=%s' % (c, short(repr(v), 40)) for c, v in zip(cols, r))
                               for r in bad[:3])
                failures.append('%s: %d violating row(s), e.g. %s' % (name, len(bad) + more, ex))
    finally:
        con.close()
    return failures


# ----------------------------------------------------------------------------------------------

def print_summary(tr):
    ev = tr.events
    print('%s: root=%s events=%d flow_points=%d tracks=%d base_time_ns=%r rank=%r world_size=%r' % (
        os.path.basename(tr.path), tr.root_shape, len(ev), len(tr.flow_points),
        len(set(e.track for e in ev)), tr.base_time_ns, tr.rank, tr.world_size))
    c = collections.Counter((e.ph, e.cat) for e in ev)
    print('  by (ph, cat): ' + ', '.join('%s/%s=%d' % (k[0], k[1], n) for k, n in sorted(c.items(), key=repr)))
    timed = [e for e in ev if e.ts is not None]
    print('  start_ts=%r end_ts=%r sum(ts)=%d sum(kernel dur)=%d' % (
        min((e.ts for e in timed), default=None), max((e.end() for e in timed), default=None),
        sum(e.ts for e in timed), sum(e.dur for e in ev if e.cat in KERNEL_CATS and e.dur is not None)))
    fc = collections.defaultdict(collections.Counter)
    groups = collections.defaultdict(lambda: collections.Counter())
    for p in tr.flow_points:
        k = fc[p.cat]
        k[p.ph] += 1
        k[p.ph + '_bound'] += 1 if p.bound else 0
        k[p.ph + '_tied'] += 1 if len(p.bound) > 1 else 0
        groups[(p.cat, p.id)][p.ph] += 1
    for cat, k in sorted(fc.items(), key=repr):
        rows = sum(g['f'] or g['s'] for (c, _), g in groups.items() if c == cat)
        print('  flows %s: s=%d (bound %d) f=%d (bound %d) rows=%d ties=%d' % (
            cat, k['s'], k['s_bound'], k['f'], k['f_bound'], rows, k['s_tied'] + k['f_tied']))
    print('  processes named=%d threads named=%d arg keys=%d' % (
        len(tr.proc_meta), len(tr.thread_meta),
        sum(len(e.args) for e in ev if isinstance(e.args, dict))))
    for n in tr.notes:
        print('  note: ' + n)


def main(argv):
    ap = argparse.ArgumentParser(
        description='Check a tracesql database against the trace files it was imported from.',
        epilog='Exit status: 0 all checks pass, 1 mismatches (listed on stdout), 2 usage error.')
    ap.add_argument('db', help='the tracesql database (or, with --summary, a TRACE)')
    ap.add_argument('traces', nargs='*', metavar='TRACE',
                    help='trace files, in the order they were imported (trace_id 1..n)')
    ap.add_argument('--invariants', action='store_true',
                    help='also run tests/invariants/*.sql, PRAGMA integrity_check and '
                         'foreign_key_check on DB (before the TRACE checks)')
    ap.add_argument('--invariants-dir', default=default_invariants_dir(), metavar='DIR')
    ap.add_argument('--by-path', action='store_true',
                    help="find each TRACE's trace_id by the basename of traces.path instead of "
                         'assuming the DB holds exactly these TRACEs as ids 1..n')
    ap.add_argument('-v', '--verbose', action='store_true', help='print notes about the files too')
    ap.add_argument('--summary', action='store_true',
                    help='no database: treat every argument as a TRACE and print what the checker '
                         'derives from it (counts, tracks, times, flow binding)')
    opts = ap.parse_args(argv)
    if opts.summary:
        for path in [opts.db] + opts.traces:
            print_summary(Trace(path))
        return 0
    if not os.path.exists(opts.db):
        print('verify_import: %s: no such database' % opts.db, file=sys.stderr)
        return 2
    if not opts.traces and not opts.invariants:
        ap.error('give TRACE files, --invariants, or both')

    problems = 0          # mismatches and violated invariants, all together
    failed_traces = 0
    inv_failed = False
    if opts.invariants:
        inv = run_invariants(opts.db, opts.invariants_dir)
        if inv:
            inv_failed = True
            problems += len(inv)
            print('invariants: FAIL %d violated' % len(inv))
            for line in inv:
                print('  ' + line)
        else:
            print('invariants: OK (%d files + integrity_check + foreign_key_check)'
                  % len(glob.glob(os.path.join(opts.invariants_dir, '*.sql'))))

    if opts.traces:
        con = sqlite3.connect('file:%s?mode=ro' % opts.db, uri=True)
        paths = dict(con.execute('SELECT id, path FROM traces ORDER BY id').fetchall())
        if opts.by_path:
            by_name = collections.defaultdict(list)
            for i, pth in paths.items():
                by_name[os.path.basename(str(pth))].append(i)
            want_ids = []
            for path in opts.traces:
                cands = by_name.get(os.path.basename(path), [])
                want_ids.append(cands[0] if len(cands) == 1 else None)
        else:
            want_ids = list(range(1, len(opts.traces) + 1))
            if sorted(paths) != want_ids:
                print('traces: db has trace ids %s, expected %s (one per TRACE, in order)'
                      % (short(repr(sorted(paths))), short(repr(want_ids))))
                problems += 1
        for path, tid in zip(opts.traces, want_ids):
            name = os.path.basename(path)
            if tid is None:
                print('trace ? %s: FAIL no single traces row whose path ends in %s' % (name, name))
                failed_traces += 1
                problems += 1
                continue
            if tid not in paths or os.path.basename(str(paths[tid])) != name:
                print("trace %d %s: FAIL the db's trace %d is %r (wrong TRACE order?); not compared"
                      % (tid, name, tid, paths.get(tid)))
                failed_traces += 1
                problems += 1
                continue
            try:
                tr = Trace(path)
            except (OSError, ValueError) as ex:
                print('trace %d %s: ERROR reading the file: %s' % (tid, name, ex))
                failed_traces += 1
                problems += 1
                continue
            rep = Report()
            chk = TraceCheck(con, tid, tr, rep)
            try:
                chk.run()
            except sqlite3.Error as ex:
                rep.add('database', 'query failed: %s' % ex)
            stats = ' '.join('%s=%s' % kv for kv in chk.stats.items())
            if rep.total():
                failed_traces += 1
                problems += rep.total()
                print('trace %d %s: FAIL %d mismatch(es) [%s]  %s' % (
                    tid, name, rep.total(),
                    ', '.join('%s %d' % kv for kv in rep.counts.items()), stats))
                for line in rep.lines():
                    print(line)
            else:
                print('trace %d %s: OK  %s' % (tid, name, stats))
            if opts.verbose or rep.total():
                for n in tr.notes:
                    print('  note: %s' % n)
        con.close()
    if problems:
        print('verify_import: FAILED: %d problem(s); %d of %d trace(s) failed%s' % (
            problems, failed_traces, len(opts.traces), '; invariants violated' if inv_failed else ''))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
