#!/usr/bin/env python3
"""Independent checks of tracesql's analysis views against the trace file (Python 3 stdlib only).

    verify_views.py DB TRACE [--trace-id N] [--compare-views] [--tracesql BIN]

DB holds TRACE (as trace_id N, default: the trace whose path has TRACE's file name, else 1). The
script reads the JSON itself (parse_float=Decimal; ts/dur in us converted to integer ns exactly, plus
top-level baseTimeNanoseconds when present) and re-derives, without tracesql's SQL:

  (a) op_kernels   every GPU op (cat kernel/Kernel/gpu_memcpy/Memcpy/gpu_memset/Memset) appears
                   exactly once, and nothing else; launch_delay = gpu_ts - (launch_ts + launch_dur).
  (b) launches     GPU ops whose args.correlation (> 0) equals the args.correlation of a runtime event
                   (cat cuda_runtime/cuda_driver/Runtime/mtia_runtime) of the same file: compared, op
                   by op, with the op_kernels rows whose launch carries the op's correlation (and that
                   launch must be such a runtime event). Ops linked only through a launch flow (ac2g,
                   async, async_cpu_to_gpu, async_gpu): derived from the file's flow points (f bound to
                   the GPU op on its track, s bound to the innermost slice containing its ts on its
                   track, launch-flow preference for the slice carrying the flow id as correlation)
                   and compared with op_kernels rows whose launch was found but does not carry the
                   op's correlation.
  (c) idle_gaps    per device: sum(idle_gaps.dur) + |union of GPU op intervals| == last end - first
                   start, to the nanosecond; every gap lies outside every op interval; the gaps are
                   exactly the holes of the union, except that adjacent gaps split at a zero-length
                   op are only counted (stat gap_splits_at_zero_len_ops; golden views_gap_zero_len_op
                   holds the contract); prev/next ops end/start at the gap's bounds; cause agrees with
                   the next op's launch (from the file) vs the gap start; host_event_id is the
                   innermost CPU op (cpu_op/Operator) running at the gap start on the launch's thread.
  (d) autograd     every autograd_pairs row: fwd and bwd have equal seq_num in events and equal
                   'Sequence number' in the JSON args; durations and fwd/bwd_gpu_time re-derived from
                   the file; one 'flow' row per bound fwdbwd flow, no 'seq' rows in such a trace.
  (g) gpu_segments per device, the file's GPU ops that take time (dur > 0) cut at every start and
                   end: each piece where ops run, with the distinct (name, kind) running throughout
                   it, must be exactly one gpu_segments row (its name_ids read through gpu_op_names).
  (h) queue        op_kernel_links.queue per (device, stream): +1 at each launch call's start (the
                   file's runtime call of the op's correlation, else its launch flow's source), -1 at
                   each GPU op's start, +1s first at one time; the running sum at each +1, compared
                   as (launch start, queue) multisets (ops launched at one time share a start; which
                   of them gets which value is the table's order by op id). Streams where a GPU op
                   has launch candidates with different starts are skipped (counted).
  (e) steps        gpu_ts/gpu_end_ts (and gpu_ops) = min start / max end (count) over GPU ops whose
                   launch call (by correlation, else launch flow) starts inside that ProfilerStep#N
                   (host annotation, any thread).
  (f) --compare-views: re-imports TRACE with `tracesql import --no-materialize` into a temp dir and
                   checks that op_kernels, idle_gaps, stream_idle_gaps, stream_queue, steps and autograd_pairs give
                   identical row multisets as views and as the materialised tables of DB (ids
                   renumbered when TRACE is not trace 1 of DB); op_kernel_links is a table in both
                   (-- @materialize always). autograd_pairs' two gpu-time columns are compared on up
                   to GPU_TIME_SAMPLE rows for about GPU_TIME_BUDGET_S seconds.
                   Tables the importer computes in C++ (-- @computed in sql/views/) are also compared
                   with their view file's SELECT run on DB itself (op_kernel_links is computed in both
                   imports, so this is its check against the SQL).

Output: one line "TRACE: gpu_ops=N corr=DB/FILE flow_only=DB/FILE unlinked=N share=% gaps=N(causes;
with_host=N) pairs=N(links) steps=N ...", then "views OK" or the mismatches.
Prints one summary line per trace; exits 1 with the mismatches listed, 2 on usage errors.
"""

import argparse
import bisect
import collections
import decimal
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from decimal import Decimal

GPU_OP_CATS = frozenset(('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset'))
RUNTIME_CATS = frozenset(('cuda_runtime', 'cuda_driver', 'Runtime', 'mtia_runtime'))
LAUNCH_FLOW_CATS = frozenset(('ac2g', 'async', 'async_cpu_to_gpu', 'async_gpu'))
STEP_CATS = frozenset(('user_annotation', 'Operator'))
COMPARED_VIEWS = ('op_kernel_links', 'op_kernels', 'idle_gaps', 'stream_idle_gaps', 'stream_queue', 'steps',
                  'autograd_pairs')
ALWAYS_VIEWS = ('op_kernels',)  # a view in both databases (names looked up from op_kernel_links)
ALWAYS_TABLES = ('op_kernel_links',)  # a table in both (-- @materialize always: the views read it per row)
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_EVEN)
_CANON_INT = re.compile(r'-?[0-9]+\Z')
_STEP_NAME = re.compile(r'ProfilerStep#([0-9]+)\Z')
MAX_LISTED = 12
GPU_TIME_SAMPLE = 24     # at most this many autograd_pairs rows have their gpu times compared table vs view,
GPU_TIME_BUDGET_S = 2.0  # for about this long (at least 2 rows): each costs a full op_kernels view evaluation


def norm_id(v):
    """pid/tid: a canonical decimal string within int64 reads as that integer."""
    if isinstance(v, str) and _CANON_INT.match(v):
        n = int(v)
        if str(n) == v and INT64_MIN <= n <= INT64_MAX:
            return n
    return v


def to_ns(v):
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, Decimal):
        return int(CTX.multiply(v, Decimal(1000)).to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=CTX))
    if isinstance(v, str):
        try:
            return to_ns(Decimal(v))
        except decimal.InvalidOperation:
            return None
    return None


def as_int(v):
    """A JSON integer (not bool, not float) within int64, else None (the promoted-column rule)."""
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return v if INT64_MIN <= v <= INT64_MAX else None


class Ev(object):
    __slots__ = ('idx', 'ph', 'cat', 'name', 'pid', 'tid', 'ts', 'dur', 'args')

    @property
    def track(self):
        return (self.pid, self.tid)

    @property
    def end(self):
        return self.ts + (self.dur or 0)

    def arg(self, key):
        return self.args.get(key) if isinstance(self.args, dict) else None

    def key(self):
        return (self.pid, self.tid, self.ts, self.dur, self.name)

    def describe(self):
        return '%s %r (pid %r tid %r ts %s dur %s)' % (self.cat, self.name, self.pid, self.tid, self.ts, self.dur)


class Trace(object):
    def __init__(self, path):
        raw = open(path, 'rb').read()
        if raw[:2] == b'\x1f\x8b':
            raw = gzip.decompress(raw)
        root = json.loads(raw.decode('utf-8'), parse_float=Decimal)
        del raw
        if isinstance(root, list):
            items, meta = root, {}
        else:
            items, meta = root.get('traceEvents') or [], root
        base = meta.get('baseTimeNanoseconds')
        offset = base if isinstance(base, int) and not isinstance(base, bool) else 0
        self.events, self.flow_points = [], []
        open_b = collections.defaultdict(list)
        for idx, e in enumerate(items):
            if not isinstance(e, dict):
                continue
            ph = e.get('ph')
            if ph == 'M':
                continue
            pid, tid = norm_id(e.get('pid')), norm_id(e.get('tid'))
            ts = to_ns(e.get('ts'))
            if ts is not None:
                ts += offset
            if ph in ('s', 't', 'f'):
                self.flow_points.append({'idx': idx, 'ph': ph, 'cat': e.get('cat'), 'id': e.get('id'),
                                         'track': (pid, tid), 'ts': ts, 'bp': e.get('bp')})
                continue
            if ph == 'E':
                st = open_b.get((pid, tid))
                if st:
                    b = st.pop()
                    if ts is not None and b.ts is not None:
                        b.dur = ts - b.ts
                continue
            ev = Ev()
            ev.idx, ev.ph, ev.cat, ev.name, ev.pid, ev.tid, ev.ts = idx, ph, e.get('cat'), e.get('name'), pid, tid, ts
            ev.dur = None if ph == 'B' else to_ns(e.get('dur'))
            ev.args = e.get('args')
            self.events.append(ev)
            if ph == 'B':
                open_b[(pid, tid)].append(ev)
        self.events = [e for e in self.events if e.ts is not None]
        self.gpu_ops = [e for e in self.events if e.cat in GPU_OP_CATS and e.dur is not None]
        self.runtime = [e for e in self.events if e.cat in RUNTIME_CATS]
        self.by_key = collections.defaultdict(list)
        for e in self.events:
            self.by_key[e.key()].append(e)
        # Slices per track, for flow binding and containment.
        tracks = collections.defaultdict(list)
        for e in self.events:
            if e.dur is not None and e.dur >= 0:
                tracks[e.track].append(e)
        self.tracks = {}
        for tr, sl in tracks.items():
            # DESIGN nesting: by ts, longer first at equal ts; parent = innermost slice containing it.
            sl.sort(key=lambda s: (s.ts, -s.dur, s.idx))
            starts = [s.ts for s in sl]
            parent, stack = [], []
            for i, c in enumerate(sl):
                while stack:
                    p = sl[stack[-1]]
                    if p.ts <= c.ts and c.end <= p.end and (c.ts < p.end or p.dur == 0):
                        break
                    stack.pop()
                parent.append(stack[-1] if stack else -1)
                stack.append(i)
            self.tracks[tr] = (sl, starts, parent)

    # -- slices containing a time on a track (a zero-length slice contains only its own ts) -----------
    def containing(self, track, t):
        """Innermost first: the chain of nesting parents from the latest slice starting at or before t."""
        entry = self.tracks.get(track)
        if entry is None:
            return []
        sl, starts, parent = entry
        i = bisect.bisect_right(starts, t) - 1
        out = []
        while i >= 0:
            s = sl[i]
            if s.ts <= t and (t < s.end or t == s.ts):
                out.append(s)
            i = parent[i]
        return out

    def innermost(self, track, t, flow_id=None):
        """DESIGN flow binding: innermost containing slice (latest start, ties the shortest); launch
        flows prefer a containing slice whose correlation equals the flow id."""
        c = self.containing(track, t)
        if not c:
            return None
        if flow_id is not None:
            pref = [s for s in c if as_int(s.arg('correlation')) == flow_id]
            if pref:
                c = pref
        return c[0]

    def next_slice(self, track, t):
        entry = self.tracks.get(track)
        if entry is None:
            return None
        sl, starts, _ = entry
        i = bisect.bisect_left(starts, t)
        return sl[i] if i < len(sl) else None

    def launch_flows(self):
        """(src slice or None, dst slice or None) per end point of the launch-flow groups."""
        groups = collections.defaultdict(list)
        for p in self.flow_points:
            if p['cat'] in LAUNCH_FLOW_CATS and p['ts'] is not None:
                groups[(p['cat'], json.dumps(p['id'], default=str))].append(p)
        out = []
        for pts in groups.values():
            pts.sort(key=lambda p: (p['ts'], p['idx']))
            fid = as_int(pts[0]['id'])
            src = None
            for p in pts:
                if p['ph'] == 's':
                    src = self.innermost(p['track'], p['ts'], fid)
                    continue
                if p['ph'] == 'f' and p.get('bp') != 'e':
                    dst = self.next_slice(p['track'], p['ts'])
                else:
                    dst = self.innermost(p['track'], p['ts'], fid)
                out.append((src, dst))
                if p['ph'] == 't':
                    src = dst
        return out


class Checker(object):
    def __init__(self, db, trace, trace_id):
        self.db, self.t, self.tid = db, trace, trace_id
        self.problems = []
        self.stats = collections.OrderedDict()
        self.ev_cache = {}

    def fail(self, check, msg):
        self.problems.append((check, msg))

    def q(self, sql, *params):
        return self.db.execute(sql, params).fetchall()

    def event(self, eid):
        if eid is None:
            return None
        if eid not in self.ev_cache:
            r = self.q('SELECT pid, tid, ts, dur, name, cat, seq_num, correlation, thread_id FROM events '
                       'WHERE id = ?', eid)
            self.ev_cache[eid] = r[0] if r else None
        return self.ev_cache[eid]

    def json_event(self, eid):
        """The file's event for a DB event id (matched by pid, tid, ts, dur, name), or None."""
        r = self.event(eid)
        if r is None:
            return None
        c = self.t.by_key.get(tuple(r[:5]))
        return c[0] if c else None

    # -- (a) + (b) ---------------------------------------------------------------------------------
    def check_op_kernels(self):
        t = self.t
        rows = self.q('SELECT ok.gpu_event_id, g.pid, g.tid, g.ts, g.dur, g.name, g.cat, ok.launch_event_id, '
                      'ok.launch_ts, ok.launch_dur, ok.launch_delay, ok.gpu_ts, ok.gpu_dur, g.correlation, '
                      'l.correlation, l.cat, l.pid, l.tid, l.ts, l.dur, l.name, ok.step '
                      'FROM op_kernels AS ok JOIN events AS g ON g.id = ok.gpu_event_id '
                      'LEFT JOIN events AS l ON l.id = ok.launch_event_id WHERE ok.trace_id = ?', self.tid)
        n_ok = self.q('SELECT count(*), count(DISTINCT gpu_event_id) FROM op_kernels WHERE trace_id = ?', self.tid)[0]
        if n_ok[0] != len(rows):
            self.fail('op_kernels', '%d rows, only %d join an event' % (n_ok[0], len(rows)))
        if n_ok[0] != n_ok[1]:
            self.fail('op_kernels', '%d rows but %d distinct gpu_event_id: a GPU op appears more than once'
                      % (n_ok[0], n_ok[1]))
        want = collections.Counter(e.key() for e in t.gpu_ops)
        got = collections.Counter(tuple(r[1:6]) for r in rows)
        for k in list((want - got).keys())[:MAX_LISTED]:
            self.fail('op_kernels', 'GPU op missing or too few times (%d in file, %d rows): %r' % (want[k], got[k], k))
        for k in list((got - want).keys())[:MAX_LISTED]:
            self.fail('op_kernels', 'row that is not a GPU op of the file (or extra copy): %r' % (k,))
        bad_cat = [r for r in rows if r[6] not in GPU_OP_CATS]
        for r in bad_cat[:MAX_LISTED]:
            self.fail('op_kernels', 'row for an event of cat %r: %r' % (r[6], r[1:6]))
        for r in rows:
            if (r[11], r[12]) != (r[3], r[4]):
                self.fail('op_kernels', 'gpu_ts/gpu_dur %r differ from the event %r' % ((r[11], r[12]), r[3:5]))
                break
            if r[7] is not None and r[10] != r[3] - (r[8] + r[9]):
                self.fail('op_kernels', 'launch_delay %r != gpu_ts - (launch_ts + launch_dur) for %r' % (r[10], r[1:6]))
                break

        # (b) independent correlation join over the file.
        rt_by_corr = collections.defaultdict(list)
        for e in t.runtime:
            c = as_int(e.arg('correlation'))
            if c is not None and c > 0:
                rt_by_corr[c].append(e)
        indep_corr = collections.Counter()
        launch_of = {}   # GPU op key -> list of acceptable launch events (file)
        for g in t.gpu_ops:
            c = as_int(g.arg('correlation'))
            if c is not None and c > 0 and c in rt_by_corr:
                indep_corr[g.key()] += 1
                launch_of.setdefault(g.key(), rt_by_corr[c])
        db_corr = collections.Counter()
        db_flow = collections.Counter()
        db_launch = {}
        for r in rows:
            gkey = tuple(r[1:6])
            if r[7] is None:
                continue
            db_launch[gkey] = tuple(r[16:21])
            if r[13] is not None and r[14] == r[13]:
                db_corr[gkey] += 1
                if r[15] not in RUNTIME_CATS:
                    self.fail('launch', 'launch of %r is %r, not a runtime call' % (gkey, r[15]))
                acceptable = {e.key() for e in launch_of.get(gkey, [])}
                if acceptable and tuple(r[16:21]) not in acceptable:
                    self.fail('launch', 'launch of %r is %r, not the runtime call with its correlation %r'
                              % (gkey, tuple(r[16:21]), sorted(acceptable)[:3]))
            else:
                db_flow[gkey] += 1
        for k in list((indep_corr - db_corr).keys())[:MAX_LISTED]:
            self.fail('launch', 'GPU op with a runtime call of the same correlation in the file, but op_kernels '
                      'has no launch with that correlation: %r' % (k,))
        for k in list((db_corr - indep_corr).keys())[:MAX_LISTED]:
            self.fail('launch', 'op_kernels links %r by correlation more often than the file allows (no such '
                      'runtime call, or a duplicate row)' % (k,))

        # Flow-only links, from the file's flow points.
        indep_flow = {}
        for src, dst in t.launch_flows():
            if src is None or dst is None or dst.cat not in GPU_OP_CATS:
                continue
            if indep_corr.get(dst.key()):
                continue
            indep_flow.setdefault(dst.key(), set()).add(src.key())
        for k in db_flow:
            if k not in indep_flow:
                self.fail('launch', 'op_kernels links %r through a flow (launch %r); the file has no launch flow '
                          'bound to it' % (k, db_launch[k]))
            elif db_launch[k] not in indep_flow[k]:
                self.fail('launch', 'flow-linked %r: launch %r, the file\'s flow sources are %r'
                          % (k, db_launch[k], sorted(indep_flow[k])[:3]))
        for k in indep_flow:
            if k not in db_flow:
                self.fail('launch', 'GPU op %r has a launch flow from %r but op_kernels found no flow launch'
                          % (k, sorted(indep_flow[k])[:1]))
        # Launch per GPU op key, from the file (for steps, causes, gpu time).
        self.file_launch = {}
        for g in t.gpu_ops:
            if g.key() in launch_of:
                self.file_launch[g.key()] = launch_of[g.key()]
            elif g.key() in indep_flow:
                src_keys = indep_flow[g.key()]
                self.file_launch[g.key()] = [e for k in src_keys for e in t.by_key.get(k, [])]
        n = len(t.gpu_ops)
        self.stats['gpu_ops'] = n
        self.stats['corr'] = '%d/%d' % (sum(db_corr.values()), sum(indep_corr.values()))
        self.stats['flow_only'] = '%d/%d' % (sum(db_flow.values()), len(indep_flow))
        self.stats['unlinked'] = n - sum(db_corr.values()) - sum(db_flow.values())
        self.stats['share'] = '%.1f%%' % (100.0 * sum(indep_corr.values()) / n) if n else '-'

    # -- (c) ---------------------------------------------------------------------------------------
    @staticmethod
    def device_of(g):
        d = as_int(g.arg('device'))
        if d is None and isinstance(g.pid, int):
            d = g.pid
        return d

    def check_idle_gaps(self):
        t = self.t
        per_dev = collections.defaultdict(list)
        for g in t.gpu_ops:
            per_dev[self.device_of(g)].append(g)
        gaps = collections.defaultdict(list)
        # r: device, ts, dur, end_ts, cause, prev end, next (pid, tid, ts, dur, name), host (pid, tid, ts, dur,
        #    name), host_event_id
        for r in self.q('SELECT g.device, g.ts, g.dur, g.end_ts, g.cause, p.ts + p.dur, '
                        'n.pid, n.tid, n.ts, n.dur, n.name, h.pid, h.tid, h.ts, h.dur, h.name, g.host_event_id '
                        'FROM idle_gaps AS g LEFT JOIN events AS p ON p.id = g.prev_event_id '
                        'LEFT JOIN events AS n ON n.id = g.next_event_id '
                        'LEFT JOIN events AS h ON h.id = g.host_event_id '
                        'WHERE g.trace_id = ? ORDER BY g.ts', self.tid):
            gaps[r[0]].append(r)
        for d in gaps:
            if d not in per_dev:
                self.fail('idle_gaps', 'gaps on device %r, which has no GPU op in the file' % (d,))
        total_gaps = splits = with_host = 0
        causes = collections.Counter()
        for d, ops in sorted(per_dev.items(), key=lambda x: repr(x[0])):
            iv = sorted((g.ts, g.end) for g in ops)
            first, last = iv[0][0], max(e for _, e in iv)
            merged = []
            for s, e in iv:
                if merged and s <= merged[-1][1]:
                    if e > merged[-1][1]:
                        merged[-1][1] = e
                else:
                    merged.append([s, e])
            union = sum(e - s for s, e in merged)
            holes = []
            for i in range(len(merged) - 1):
                h = (merged[i][1], merged[i + 1][0])
                if holes and holes[-1][1] == h[0]:   # a zero-length op inside an idle interval
                    holes[-1] = (holes[-1][0], h[1])
                else:
                    holes.append(h)
            dg = gaps.get(d, [])
            total_gaps += len(dg)
            idle = sum(r[2] for r in dg)
            if idle + union != last - first:
                self.fail('idle_gaps', 'device %r: sum(gaps) %d + union %d = %d != span %d (last end %d - first '
                          'start %d), off by %d' % (d, idle, union, idle + union, last - first, last, first,
                                                    idle + union - (last - first)))
            # every gap lies in no op interval: the busy (non-empty) merged intervals are disjoint and sorted
            busy = [x for x in merged if x[1] > x[0]]
            busy_starts = [x[0] for x in busy]
            for r in dg:
                gs, ge = r[1], r[3]
                if r[2] != ge - gs or r[2] <= 0:
                    self.fail('idle_gaps', 'device %r gap %r: dur != end_ts - ts or not positive' % (d, r[1:4]))
                k = bisect.bisect_left(busy_starts, ge) - 1
                if k >= 0 and busy[k][1] > gs:
                    self.fail('idle_gaps', 'device %r gap [%d,%d) overlaps busy GPU time %r' % (d, gs, ge, busy[k]))
            # gaps == holes of the union, after joining gaps that touch (split by zero-length ops)
            joined = []
            for r in dg:
                if joined and joined[-1][1] == r[1]:
                    joined[-1][1] = r[3]
                    splits += 1
                else:
                    joined.append([r[1], r[3]])
            if [tuple(x) for x in joined] != holes:
                missing = sorted(set(holes) - set(tuple(x) for x in joined))
                extra = sorted(set(tuple(x) for x in joined) - set(holes))
                self.fail('idle_gaps', 'device %r: gaps are not the holes of the union (%d vs %d); missing %r, '
                          'extra %r' % (d, len(joined), len(holes), missing[:5], extra[:5]))
            # prev/next ops, cause, host op
            for r in dg:
                gs, ge, cause, nkey, hkey = r[1], r[3], r[4], tuple(r[6:11]), tuple(r[11:16])
                if r[5] != gs:
                    self.fail('idle_gaps', 'device %r gap [%d,%d): prev op ends at %r, not at the gap start'
                              % (d, gs, ge, r[5]))
                if r[8] != ge:
                    self.fail('idle_gaps', 'device %r gap [%d,%d): next op %r does not start at the gap end'
                              % (d, gs, ge, nkey))
                    continue
                launches = self.file_launch.get(nkey)
                want = {'host' if l.ts > gs else 'device' for l in launches} if launches else {'unknown'}
                causes[cause] += 1
                if cause not in want:
                    self.fail('idle_gaps', 'device %r gap [%d,%d): cause %r, expected %r (next op %r, launch ts %r)'
                              % (d, gs, ge, cause, sorted(want), nkey[4], [l.ts for l in launches or []][:2]))
                # host_event_id: innermost CPU op running at the gap start on the next op's launching thread
                want_h = None
                if launches:
                    for sl in t.containing(launches[0].track, gs):
                        # a legacy ProfilerStep#N is an Operator but a step, not an op
                        if (sl.cat in ('cpu_op', 'Operator') and not sl.name.startswith('ProfilerStep#')
                                and sl.ts <= gs < sl.end):
                            want_h = sl.key()
                            break
                with_host += r[16] is not None
                got_h = hkey if r[16] is not None else None
                if got_h != want_h:
                    self.fail('idle_gaps', 'device %r gap [%d,%d): host_event_id is %r, the innermost CPU op running '
                              'on the launching thread at the gap start is %r' % (d, gs, ge, got_h, want_h))
        self.stats['gaps'] = '%d(%s;with_host=%d)' % (
            total_gaps, ','.join('%s=%d' % kv for kv in sorted(causes.items())), with_host)
        if splits:
            self.stats['gap_splits_at_zero_len_ops'] = splits

    # -- (d) ---------------------------------------------------------------------------------------
    def gpu_time_in(self, op):
        """Sum of durations of the GPU ops whose launch (file) lies within op on op's track."""
        if not hasattr(self, '_launch_idx'):
            idx = collections.defaultdict(list)
            for g in self.t.gpu_ops:
                ls = self.file_launch.get(g.key())
                if ls:
                    idx[ls[0].track].append((ls[0].ts, ls[0].end, g.dur))
            for v in idx.values():
                v.sort()
            self._launch_idx = {k: (v, [x[0] for x in v]) for k, v in idx.items()}
        entry = self._launch_idx.get(op.track)
        if entry is None:
            return 0
        v, starts = entry
        i = bisect.bisect_left(starts, op.ts)
        total = 0
        while i < len(v) and v[i][0] <= op.end:
            if v[i][1] <= op.end:
                total += v[i][2]
            i += 1
        return total

    def check_autograd(self):
        rows = self.q('SELECT fwd_event_id, bwd_event_id, seq_num, fwd_gpu_time, bwd_gpu_time, link, fwd_dur, bwd_dur '
                      'FROM autograd_pairs WHERE trace_id = ?', self.tid)
        links = collections.Counter(r[5] for r in rows)
        for r in rows:
            f, b = self.event(r[0]), self.event(r[1])
            if f is None or b is None:
                self.fail('autograd', 'pair %r: event missing' % (r[:2],))
                continue
            if f[6] is None or f[6] != b[6] or r[2] != f[6]:
                self.fail('autograd', 'pair %r -> %r: seq_num fwd %r bwd %r row %r' % (f[4], b[4], f[6], b[6], r[2]))
            jf, jb = self.json_event(r[0]), self.json_event(r[1])
            if jf is None or jb is None:
                self.fail('autograd', 'pair %r -> %r: not found in the file' % (f[4], b[4]))
                continue
            sf, sb = jf.arg('Sequence number'), jb.arg('Sequence number')
            if sf is None or sf != sb:
                self.fail('autograd', 'pair %r -> %r: file Sequence number %r vs %r' % (f[4], b[4], sf, sb))
            if (r[6], r[7]) != (jf.dur, jb.dur):
                self.fail('autograd', 'pair %r -> %r: durations %r vs file %r' % (f[4], b[4], r[6:8], (jf.dur, jb.dur)))
            want = (self.gpu_time_in(jf), self.gpu_time_in(jb))
            if (r[3], r[4]) != want:
                self.fail('autograd', 'pair %r -> %r: gpu time %r, file says %r' % (f[4], b[4], r[3:5], want))
        # flow pairs: each bound fwdbwd flow of the DB gives one row with link 'flow'
        nflow = self.q("SELECT count(*) FROM flows WHERE trace_id = ? AND cat = 'fwdbwd' AND src_event_id IS NOT NULL "
                       "AND dst_event_id IS NOT NULL", self.tid)[0][0]
        if nflow and links.get('flow', 0) != nflow:
            self.fail('autograd', '%d bound fwdbwd flows, %d pairs with link flow' % (nflow, links.get('flow', 0)))
        if nflow and links.get('seq'):
            self.fail('autograd', 'trace has fwdbwd flows but %d seq pairs' % links['seq'])
        self.stats['pairs'] = '%d(%s)' % (len(rows), ','.join('%s=%d' % kv for kv in sorted(links.items())))

    # -- (e) ---------------------------------------------------------------------------------------
    def check_steps(self):
        t = self.t
        steps = []
        for e in t.events:
            if e.cat in STEP_CATS and isinstance(e.name, str) and e.dur is not None and e.dur >= 0:
                m = _STEP_NAME.match(e.name)
                if m:
                    steps.append((e.ts, e.end, int(m.group(1))))
        steps.sort()
        starts = [s[0] for s in steps]

        def step_at(ts):
            # the latest-starting step at or before ts, if ts lies inside it (steps do not nest)
            i = bisect.bisect_right(starts, ts) - 1
            if i >= 0 and steps[i][0] <= ts < steps[i][1]:
                return steps[i][2]
            return None

        want = {}
        for g in t.gpu_ops:
            ls = self.file_launch.get(g.key())
            if not ls:
                continue
            n = step_at(ls[0].ts)
            if n is None:
                continue
            w = want.setdefault(n, [g.ts, g.end, 0])
            w[0], w[1], w[2] = min(w[0], g.ts), max(w[1], g.end), w[2] + 1
        rows = self.q('SELECT step, ts, dur, gpu_ts, gpu_end_ts, gpu_ops FROM steps WHERE trace_id = ? ORDER BY step',
                      self.tid)
        if len(rows) != len(steps):
            self.fail('steps', '%d steps rows, %d ProfilerStep annotations in the file' % (len(rows), len(steps)))
        for r in rows:
            w = want.get(r[0])
            got = (r[3], r[4], r[5] or 0)
            exp = tuple(w) if w else (None, None, 0)
            if got != exp:
                self.fail('steps', 'step %r: gpu_ts, gpu_end_ts, gpu_ops = %r, file says %r' % (r[0], got, exp))
        self.stats['steps'] = len(rows)

    # -- (g) ---------------------------------------------------------------------------------------
    def check_segments(self):
        kind_of = {'kernel': 'kernel', 'Kernel': 'kernel', 'gpu_memcpy': 'memcpy', 'Memcpy': 'memcpy',
                   'gpu_memset': 'memset', 'Memset': 'memset'}
        names = {r[0]: ('' if r[1] is None else r[1], r[2]) for r in self.q('SELECT id, name, kind FROM gpu_op_names')}
        got = collections.Counter()
        for dev, ts, dur, ids in self.q('SELECT device, ts, dur, name_ids FROM gpu_segments WHERE trace_id = ?',
                                        self.tid):
            got[(dev, ts, dur, tuple(sorted(names.get(int(x), ('?', '?')) for x in ids.split(','))))] += 1
        per_dev = collections.defaultdict(list)
        for g in self.t.gpu_ops:
            if g.dur > 0:
                per_dev[self.device_of(g)].append(g)
        want = collections.Counter()
        for d, ops in per_dev.items():
            edges = []
            for g in ops:
                key = ('' if g.name is None else g.name, kind_of[g.cat])
                edges += [(g.ts, 1, key), (g.end, -1, key)]
            edges.sort(key=lambda x: x[0])
            active, prev, i = collections.Counter(), None, 0
            while i < len(edges):
                t = edges[i][0]
                running = sorted(k for k, c in active.items() if c > 0)
                if prev is not None and t > prev and running:
                    want[(d, prev, t - prev, tuple(running))] += 1
                while i < len(edges) and edges[i][0] == t:
                    active[edges[i][2]] += edges[i][1]
                    i += 1
                prev = t
        if got != want:
            self.fail('gpu_segments', '%d rows, the file gives %d pieces; only in the table: %r; only from the file: '
                      '%r' % (sum(got.values()), sum(want.values()), sorted(got - want, key=repr)[:3],
                              sorted(want - got, key=repr)[:3]))
        self.stats['segments'] = sum(got.values())

    # -- (h) ---------------------------------------------------------------------------------------
    def check_queue(self):
        got = collections.defaultdict(collections.Counter)
        for dev, stream, lts, q in self.q('SELECT device, stream, launch_ts, queue FROM op_kernel_links '
                                          'WHERE trace_id = ? AND launch_event_id IS NOT NULL', self.tid):
            got[(dev, stream)][(lts, q)] += 1
        changes = collections.defaultdict(list)
        ambiguous = set()
        for g in self.t.gpu_ops:
            launches = self.file_launch.get(g.key())
            if not launches:
                continue
            stream = as_int(g.arg('stream'))
            if stream is None and isinstance(g.tid, int):
                stream = g.tid
            key = (self.device_of(g), stream)
            starts = {e.ts for e in launches}
            if len(starts) != 1:
                ambiguous.add(key)
                continue
            lts = starts.pop()
            changes[key] += [(lts, 0, 1), (g.ts, 1, -1)]
        want = collections.defaultdict(collections.Counter)
        for key, ch in changes.items():
            q = 0
            for t, _, delta in sorted(ch):
                q += delta
                if delta > 0:
                    want[key][(t, q)] += 1
        checked = 0
        for key in set(got) | set(want):
            if key in ambiguous:
                continue
            checked += 1
            if got[key] != want[key]:
                self.fail('queue', 'stream %r: (launch_ts, queue) only in the table %r, only from the file %r'
                          % (key, sorted(got[key] - want[key])[:3], sorted(want[key] - got[key])[:3]))
        self.stats['queue_streams'] = '%d(skipped %d)' % (checked, len(ambiguous))

    def run(self):
        self.check_op_kernels()
        self.check_idle_gaps()
        self.check_segments()
        self.check_queue()
        self.check_autograd()
        self.check_steps()


# -- (f) -------------------------------------------------------------------------------------------
def compare_views(db, trace_path, trace_id, tracesql, stats):
    problems = []
    kinds = dict(db.execute("SELECT name, type FROM sqlite_master WHERE name IN (%s)"
                            % ','.join('?' * len(COMPARED_VIEWS)), COMPARED_VIEWS).fetchall())
    ev_off = db.execute('SELECT coalesce(min(id), 1) - 1 FROM events WHERE trace_id = ?', (trace_id,)).fetchone()[0]
    th_off = db.execute('SELECT coalesce(min(id), 1) - 1 FROM threads WHERE trace_id = ?', (trace_id,)).fetchone()[0]
    with tempfile.TemporaryDirectory(prefix='tq_views_') as d:
        other = os.path.join(d, 'nomat.db')
        p = subprocess.run([tracesql, 'import', '-q', '--no-materialize', trace_path, '-o', other],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            return ['compare: tracesql import --no-materialize failed: %s' % p.stderr.decode(errors='replace').strip()]
        o = sqlite3.connect(other)
        okinds = dict(o.execute("SELECT name, type FROM sqlite_master WHERE name IN (%s)"
                                % ','.join('?' * len(COMPARED_VIEWS)), COMPARED_VIEWS).fetchall())
        for v in COMPARED_VIEWS:
            want = 'view' if v in ALWAYS_VIEWS else 'table'
            if kinds.get(v) != want:
                problems.append('compare: %s is a %r in the materialised database, not a %s' % (v, kinds.get(v), want))
            owant = 'table' if v in ALWAYS_TABLES else 'view'
            if okinds.get(v) != owant:
                problems.append('compare: %s is a %r in the --no-materialize database, not a %s'
                                % (v, okinds.get(v), owant))
            cols = [r[1] for r in db.execute('PRAGMA table_info(%s)' % v)]
            ocols = [r[1] for r in o.execute('PRAGMA table_info(%s)' % v)]
            if cols != ocols:
                problems.append('compare: %s columns differ: %r vs %r' % (v, cols, ocols))
                continue
            # The other database holds only this trace (trace_id 1); ids may be offset when DB holds several.
            sel = '*'
            if v == 'autograd_pairs':
                # As a view, each row's fwd/bwd_gpu_time re-evaluates the op_kernels view (seconds per row
                # on a 40k-event trace), so those two columns are compared on a sample of rows below.
                sel = ', '.join(c for c in cols if not c.endswith('_gpu_time'))
            a = collections.Counter(tuple(r) for r in
                                    db.execute('SELECT %s FROM %s WHERE trace_id = ?' % (sel, v), (trace_id,)))
            # (no WHERE on the view side: it holds one trace, and 'WHERE trace_id = 1' pushed into the
            # idle_gaps view makes SQLite evaluate it ~20x slower)
            b = collections.Counter(tuple(r) for r in o.execute('SELECT %s FROM %s' % (sel, v)))
            if trace_id != 1:   # renumber trace, event and thread ids as in a database of this trace alone
                def renum(k, sel_cols=(cols if sel == '*' else sel.split(', '))):
                    out = []
                    for c, x in zip(sel_cols, k):
                        if c == 'trace_id':
                            x = 1
                        elif x is not None and (c == 'event_id' or c.endswith('_event_id')):
                            x -= ev_off
                        elif x is not None and (c == 'thread_id' or c.endswith('_thread_id')):
                            x -= th_off
                        out.append(x)
                    return tuple(out)
                a = collections.Counter({renum(k): c for k, c in a.items()})
            if a != b:
                only_a, only_b = a - b, b - a
                problems.append('compare: %s differs (%d rows materialised, %d as view); only in table: %r; only in '
                                'view: %r' % (v, sum(a.values()), sum(b.values()), list(only_a)[:3], list(only_b)[:3]))
            if v == 'autograd_pairs':
                ids = [r[0] for r in db.execute('SELECT DISTINCT fwd_event_id FROM autograd_pairs WHERE trace_id = ? '
                                                'ORDER BY fwd_event_id', (trace_id,))]
                if len(ids) > GPU_TIME_SAMPLE:   # evenly spread over the trace
                    m = GPU_TIME_SAMPLE
                    ids = [ids[int(round(k * (len(ids) - 1) / float(m - 1)))] for k in range(m)]
                q = ('SELECT fwd_event_id, bwd_event_id, fwd_gpu_time, bwd_gpu_time FROM autograd_pairs '
                     'WHERE fwd_event_id = ?')
                start, n = time.time(), 0
                for fid in ids:
                    if n >= 2 and time.time() - start > GPU_TIME_BUDGET_S:
                        break
                    n += 1
                    a = sorted((f - ev_off, b_ - ev_off, x, y) for f, b_, x, y in
                               db.execute(q + ' AND trace_id = ?', (fid, trace_id)).fetchall())
                    b = sorted(o.execute(q, (fid - ev_off,)).fetchall())
                    if a != b:
                        problems.append('compare: autograd_pairs gpu times differ for fwd_event_id %d: table %r, '
                                        'view %r' % (fid, a, b))
                stats['gpu_time_rows_compared'] = '%d/%d' % (n, len(ids))
        o.close()
    return problems


SQL_VIEWS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'sql', 'views')


def compare_computed(db, trace_id):
    """Each -- @computed table of DB (rows of trace_id) against its view file's SELECT on DB."""
    problems, n = [], 0
    for fn in sorted(os.listdir(SQL_VIEWS_DIR)):
        text = open(os.path.join(SQL_VIEWS_DIR, fn)).read()
        if '\n-- @computed' not in text:
            continue
        m = re.search(r'CREATE VIEW (\w+) ', text)
        name = m.group(1)
        if db.execute("SELECT type FROM sqlite_master WHERE name = ?", (name,)).fetchone() != ('table',):
            continue
        n += 1
        db.execute(text.replace('CREATE VIEW %s ' % name, 'CREATE TEMP VIEW tq_check_%s ' % name, 1))
        # (filtered here: WHERE trace_id pushed into idle_gaps' SELECT makes SQLite ~20x slower; a
        # table without trace_id, like gpu_op_names, is compared whole)
        cols = [r[1] for r in db.execute('PRAGMA table_info(%s)' % name)]
        keep = (lambda r: r[cols.index('trace_id')] == trace_id) if 'trace_id' in cols else (lambda r: True)
        a = collections.Counter(r for r in db.execute('SELECT * FROM %s' % name) if keep(r))
        b = collections.Counter(r for r in db.execute('SELECT * FROM tq_check_%s' % name) if keep(r))
        db.execute('DROP VIEW tq_check_%s' % name)
        if a != b:
            problems.append('computed: %s differs from its SQL (%d rows in the table, %d from the SELECT); only in '
                            'table: %r; only from SQL: %r' % (name, sum(a.values()), sum(b.values()),
                                                              list(a - b)[:3], list(b - a)[:3]))
    if n == 0:
        problems.append('computed: no -- @computed table found in %s' % SQL_VIEWS_DIR)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('db')
    ap.add_argument('trace')
    ap.add_argument('--trace-id', type=int)
    ap.add_argument('--compare-views', action='store_true')
    ap.add_argument('--tracesql', default=os.environ.get('TRACESQL'))
    a = ap.parse_args()
    if not os.path.exists(a.db) or not os.path.exists(a.trace):
        print('verify_views: no such file: %s' % (a.db if not os.path.exists(a.db) else a.trace), file=sys.stderr)
        return 2
    if a.compare_views and not a.tracesql:
        print('verify_views: --compare-views needs --tracesql BIN or env TRACESQL', file=sys.stderr)
        return 2
    db = sqlite3.connect(a.db)
    tid = a.trace_id
    if tid is None:
        base = os.path.basename(a.trace)
        ids = [r[0] for r in db.execute('SELECT id, path FROM traces') if os.path.basename(r[1]) == base]
        tid = ids[0] if ids else 1
    trace = Trace(a.trace)
    c = Checker(db, trace, tid)
    c.run()
    problems = ['%s: %s' % p for p in c.problems]
    if a.compare_views:
        problems += compare_views(db, a.trace, tid, a.tracesql, c.stats)
        problems += compare_computed(db, tid)
    name = os.path.basename(a.trace)
    print('%s: %s' % (name, ' '.join('%s=%s' % kv for kv in c.stats.items())))
    if problems:
        print('%s: %d mismatch(es):' % (name, len(problems)))
        for p in problems[:60]:
            print('  ' + p)
        if len(problems) > 60:
            print('  ... %d more' % (len(problems) - 60))
        return 1
    print('%s: views OK' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
