// The analysis tables the importer fills itself (sql/views/*.sql files marked "-- @computed"):
// gpu_op_names, memory_devices, memory_levels, op_kernel_links, steps, gpu_segments, stream_idle_gaps, stream_queue,
// idle_gaps, and autograd_pairs for traces linked by fwdbwd flows. Their SQL is the definition: the rows
// written here are the rows that SELECT returns (tests/tools/verify_views.py checks it on every real
// trace; --no-materialize keeps the SQL as views where it can). Computing them from the builder's
// arrays, while they are in memory, replaces window sorts and ~400k correlated subqueries over the
// finished tables (1.7 of the 7.5 s of a 500 MB import).
//
// Values are exact int64 sums as in SQLite, which would turn an overflowing sum into a REAL: a trace
// with a time or duration beyond +-2^61 ns (year 2043) is left to the SQL (ComputedViews::sql_traces),
// and so are autograd_pairs of traces linked by Sequence number.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "import/analysis.h"
#include "import/row_writer.h"

namespace tracesql {

namespace {

constexpr int64_t kNull = kNullTs;
constexpr int64_t kLimit = int64_t{1} << 61;

bool Big(int64_t v) { return v != kNull && (v >= kLimit || v <= -kLimit); }
// SQL a + b with NULL propagation (operands within +-2^61: no overflow).
int64_t Add(int64_t a, int64_t b) { return a == kNull || b == kNull ? kNull : a + b; }
int64_t Sub(int64_t a, int64_t b) { return a == kNull || b == kNull ? kNull : a - b; }
// SQL a > b is true (NULL is not).
bool Gt(int64_t a, int64_t b) { return a != kNull && b != kNull && a > b; }

}  // namespace

std::vector<const char*> ComputedTables::Tables() const {
  std::vector<const char*> names;
  for (auto [on, table] : {std::pair{memory_devices, "memory_devices"}, {memory_levels, "memory_levels"},
                           {op_kernel_links, "op_kernel_links"}, {op_gpu_totals, "op_gpu_totals"},
                           {idle_gaps, "idle_gaps"}, {stream_idle_gaps, "stream_idle_gaps"},
                           {autograd_pairs, "autograd_pairs"}, {gpu_segments, "gpu_segments"}, {steps, "steps"},
                           {stream_queue, "stream_queue"}}) {
    if (on) names.push_back(table);
  }
  return names;
}

uint32_t GpuOpNames::Id(uint32_t name, uint8_t kind, bool timed) {
  auto [it, added] = ids.emplace((static_cast<uint64_t>(name) << 8) | kind, static_cast<uint32_t>(rows.size() + 1));
  if (added) rows.push_back({name, kind, false, 0});
  Row& r = rows[it->second - 1];
  r.timed = r.timed || timed;
  ++r.ops;
  return it->second;
}

void GpuOpNames::Write(Db& db, const Interner& strings) const {
  Stmt s = db.Prepare("INSERT INTO gpu_op_names (id, name, kind, timed, ops) VALUES (?,?,?,?,?)");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    s.BindInt(1, static_cast<int64_t>(i) + 1);
    if (r.name) s.BindText(2, strings.Get(r.name)); else s.BindNull(2);
    s.BindText(3, r.kind == kKindKernel ? "kernel" : r.kind == kKindMemcpy ? "memcpy" : "memset");
    s.BindInt(4, r.timed ? 1 : 0);
    s.BindInt(5, r.ops);
    s.Run();
  }
}

std::vector<std::pair<uint32_t, uint32_t>> FwdBwdFlows(const Trace& trace, bool* any) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const uint32_t fwdbwd = trace.strings.Find("fwdbwd");
  *any = false;
  if (!fwdbwd) return out;
  for (const FlowRow& r : trace.flow_rows) {
    if (trace.AnyPoint(r).cat != fwdbwd) continue;
    *any = true;
    if (r.src >= 0 && r.dst >= 0) out.emplace_back(static_cast<uint32_t>(r.src), static_cast<uint32_t>(r.dst));
  }
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> LaunchFlows(const Trace& trace) {
  // Launch flows: flow rows of a launch category bound to both ends, by destination (flows.id order
  // among those of one destination: a stable sort).
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t cats[4] = {trace.strings.Find("ac2g"), trace.strings.Find("async"), trace.strings.Find("async_cpu_to_gpu"),
                      trace.strings.Find("async_gpu")};
  for (const FlowRow& r : trace.flow_rows) {
    if (r.src < 0 || r.dst < 0) continue;
    uint32_t cat = trace.AnyPoint(r).cat;
    if (cat && (cat == cats[0] || cat == cats[1] || cat == cats[2] || cat == cats[3])) {
      out.emplace_back(static_cast<uint32_t>(r.dst), static_cast<uint32_t>(r.src));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<const char*> WriteComputed(Trace& trace, ImportPages& pages, const ComputedIds& w) {
  std::vector<const char*> to_sql;
  const std::vector<uint32_t>& new_id = *w.new_id;
  auto id = [&](uint32_t i) { return w.event_base + new_id[i]; };
  auto ts_of = [&](uint32_t i) { return trace.events[i].ts == kNullTs ? kNull : trace.events[i].ts + w.base; };
  auto dur_of = [&](uint32_t i) { return trace.events[i].dur; };

  // memory_devices: per (device_type, device_id) of the [memory] events (the kind is exactly the
  // memory_events view's filter), their count, span, peak and start and end levels, in the GROUP
  // BY's order; memory_levels: one row per event. Left to the SQL when an event lacks an integer
  // device or total (memory_levels: or 'Bytes'): the view then reads the arg's own text (and a
  // missing 'Total Allocated' makes the level a running sum).
  if ((w.memory_devices || w.memory_levels) && trace.kind_count[kKindMemory] > 0) {
    // (ts, id) as SQL's ORDER BY ts, id compares them: a NULL ts first.
    using Key = std::pair<int64_t, int64_t>;
    auto key = [](int64_t ts, int64_t event_id) {
      return Key{ts == kNull ? std::numeric_limits<int64_t>::min() : ts, event_id};
    };
    struct Device {
      int64_t events = 0, first = kNull, last = kNull;
      int64_t peak = kNull, peak_reserved = kNull;
      Key peak_at{};       // the first event at the peak
      int64_t first_id = 0, first_level = kNull;  // the lowest id at the first ts, its level
      int64_t last_id = 0, last_level = kNull;    // the highest id at the last ts, its level
    };
    std::map<std::pair<int64_t, int64_t>, Device> devices;
    bool exact = true, bytes_exact = true;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
      const EventRec& e = trace.events[i];
      if (e.kind != kKindMemory) continue;
      int64_t type = trace.PromotedValue(e, kDeviceType), dev = trace.PromotedValue(e, kDeviceId);
      int64_t level = trace.PromotedValue(e, kTotalAllocated), reserved = trace.PromotedValue(e, kTotalReserved);
      exact = type != kNull && dev != kNull && level != kNull && reserved != kNull;
      if (!exact) break;
      bytes_exact = bytes_exact && trace.PromotedValue(e, kBytes) != kNull;
      Device& d = devices[{type, dev}];
      ++d.events;
      const int64_t ts = ts_of(i), event_id = id(i);
      if (d.peak == kNull || level > d.peak || (level == d.peak && key(ts, event_id) < d.peak_at)) {
        d.peak = level;
        d.peak_at = key(ts, event_id);
      }
      d.peak_reserved = d.peak_reserved == kNull ? reserved : std::max(d.peak_reserved, reserved);
      if (ts == kNull) continue;
      if (d.first == kNull || ts < d.first || (ts == d.first && event_id < d.first_id)) {
        d.first = ts, d.first_id = event_id, d.first_level = level;
      }
      if (d.last == kNull || ts > d.last || (ts == d.last && event_id > d.last_id)) {
        d.last = ts, d.last_id = event_id, d.last_level = level;
      }
    }
    if (w.memory_levels && !(exact && bytes_exact)) {
      to_sql.push_back("memory_levels");
    } else if (w.memory_levels) {
      // Every level is the event's 'Total Allocated' here (cumulative 0); the rows in id order.
      RowWriter out(pages,
                    "memory_levels (id, trace_id, device_type, device_id, ts, bytes, allocated, total_reserved,"
                    " cpu_op_id, cumulative)",
                    10);
      for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const EventRec& e = trace.events[i];
        if (e.kind != kKindMemory) continue;
        out.Int(id(i)).Int(w.trace_id).Int(trace.PromotedValue(e, kDeviceType)).Int(trace.PromotedValue(e, kDeviceId));
        out.Opt(ts_of(i)).Int(trace.PromotedValue(e, kBytes)).Int(trace.PromotedValue(e, kTotalAllocated));
        out.Int(trace.PromotedValue(e, kTotalReserved)).Opt(trace.op[i] ? id(trace.op[i] - 1) : kNull).Int(0);
        out.EndRow();
      }
    }
    if (w.memory_devices && !exact) {
      to_sql.push_back("memory_devices");
    } else if (w.memory_devices) {
      RowWriter out(pages,
                    "memory_devices (trace_id, device_type, device_id, events, without_total, first_ts, last_ts,"
                    " peak_allocated, peak_event_id, peak_reserved, start_allocated, end_allocated)",
                    12);
      for (const auto& [dev, d] : devices) {
        out.Int(w.trace_id).Int(dev.first).Int(dev.second).Int(d.events).Int(0).Opt(d.first).Opt(d.last);
        out.Int(d.peak).Int(d.peak_at.second).Int(d.peak_reserved).Opt(d.first_level).Opt(d.last_level);
        out.EndRow();
      }
    }
  }

  // One row per GPU op (the gpu_ops view: kernels, then memcpys, then memsets, each in file order =
  // id order), with its launch.
  struct Op {
    uint32_t ev;
    int32_t launch;  // event index, -1 = none
    uint32_t name_id;  // gpu_op_names.id
    int64_t device, stream, ts, dur;
  };
  std::vector<Op> ops;
  ops.reserve(trace.kind_count[kKindKernel] + trace.kind_count[kKindMemcpy] + trace.kind_count[kKindMemset]);
  const size_t n = trace.events.size();
  bool big = false;
  {  // launch_by_corr: the first runtime call (in id order) of each correlation id > 0, as a sorted
     // vector (less memory than a hash map), freed before the gaps' arrays are made.
    std::vector<std::pair<int64_t, uint32_t>> by_corr;  // (correlation, event index)
    by_corr.reserve(trace.kind_count[kKindRuntime]);
    for (uint32_t i = 0; i < n; ++i) {
      const EventRec& e = trace.events[i];
      if (e.kind != kKindRuntime) continue;
      int64_t c = trace.PromotedValue(e, kCorrelation);
      if (c != kNull && c > 0) by_corr.emplace_back(c, i);
    }
    std::sort(by_corr.begin(), by_corr.end());  // file order = id order within the runtime kind
    for (int kind : {kKindKernel, kKindMemcpy, kKindMemset}) {
      for (uint32_t i = 0; i < n; ++i) {
        if (trace.events[i].kind == kind) ops.push_back({i, -1, 0, kNull, kNull, ts_of(i), dur_of(i)});
      }
    }
    const std::vector<std::pair<uint32_t, uint32_t>>& flow_src = *w.launch_flows;
    for (Op& o : ops) {
      const EventRec& e = trace.events[o.ev];
      const ThreadRec& t = trace.threads[e.thread];
      if (w.gpu_op_names) o.name_id = w.gpu_op_names->Id(e.name, e.kind, e.dur != kNullTs);
      o.device = trace.PromotedValue(e, kDevice);
      if (o.device == kNull && !t.pid.is_text) o.device = t.pid.i;
      o.stream = trace.PromotedValue(e, kStream);
      if (o.stream == kNull && !t.tid.is_text) o.stream = t.tid.i;
      int64_t c = trace.PromotedValue(e, kCorrelation);
      auto it = std::lower_bound(by_corr.begin(), by_corr.end(), std::pair<int64_t, uint32_t>(c, 0));
      auto f = std::lower_bound(flow_src.begin(), flow_src.end(), std::pair<uint32_t, uint32_t>(o.ev, 0),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
      if (c != kNull && c > 0 && it != by_corr.end() && it->first == c) {
        o.launch = static_cast<int32_t>(it->second);
      } else if (f != flow_src.end() && f->first == o.ev) {
        o.launch = static_cast<int32_t>(f->second);
      }
      big = big || Big(o.ts) || Big(o.dur) || (o.launch >= 0 && Big(ts_of(static_cast<uint32_t>(o.launch)))) ||
            (o.launch >= 0 && Big(dur_of(static_cast<uint32_t>(o.launch))));
    }
  }
  // Host threads' times too (host_event_id compares them with gap starts).
  for (uint32_t i = 0; i < n && !big; ++i) big = Big(ts_of(i)) || Big(dur_of(i));
  if (big) {
    trace.stats.Set(StatId::views_by_sql, 1);
    // memory_devices and memory_levels were settled above: their rows do not depend on the times' size.
    for (const char* table : w.Tables()) {
      if (std::string_view(table) != "memory_devices" && std::string_view(table) != "memory_levels") {
        to_sql.push_back(table);
      }
    }
    return to_sql;
  }
  if (w.autograd_pairs && !w.has_fwdbwd) to_sql.push_back("autograd_pairs");  // linked by Sequence number
  if (w.autograd_pairs && w.has_fwdbwd) {
    // One row per fwdbwd flow bound at both ends. *_gpu_time: the GPU ops whose launch call lies
    // inside the op on its thread (launch start in [ts, ts + dur], launch end <= ts + dur).
    struct Launch {
      uint32_t thread;
      int64_t ts, end, gpu_dur;  // end, gpu_dur: kNull when NULL
      bool operator<(const Launch& o) const { return thread != o.thread ? thread < o.thread : ts < o.ts; }
    };
    std::vector<Launch> launches;
    for (const Op& o : ops) {
      if (o.launch < 0) continue;
      uint32_t l = static_cast<uint32_t>(o.launch);
      int64_t lts = ts_of(l);
      if (lts != kNull) launches.push_back({trace.events[l].thread, lts, Add(lts, dur_of(l)), o.dur});
    }
    std::sort(launches.begin(), launches.end());
    auto gpu_time = [&](uint32_t ev) -> int64_t {
      int64_t ts = ts_of(ev), end = Add(ts, dur_of(ev)), sum = 0;
      if (end == kNull) return 0;
      uint32_t thread = trace.events[ev].thread;
      for (auto it = std::lower_bound(launches.begin(), launches.end(), Launch{thread, ts, 0, 0});
           it != launches.end() && it->thread == thread && it->ts <= end; ++it) {
        if (it->end != kNull && it->end <= end && it->gpu_dur != kNull) sum += it->gpu_dur;
      }
      return sum;
    };
    RowWriter out(pages,
                  "autograd_pairs (trace_id, fwd_event_id, fwd_name, bwd_event_id, bwd_name, seq_num, fwd_dur,"
                  " bwd_dur, fwd_gpu_time, bwd_gpu_time, link)",
                  11);
    auto name = [&](uint32_t ev) -> RowWriter& {
      return trace.events[ev].name ? out.Text(trace.strings.Get(trace.events[ev].name)) : out.Null();
    };
    for (auto [fw, bw] : *w.fwdbwd) {
      int64_t seq = trace.PromotedValue(trace.events[fw], kSeqNum);
      out.Int(w.trace_id).Int(id(fw));
      name(fw).Int(id(bw));
      name(bw).Opt(seq != kNull ? seq : trace.PromotedValue(trace.events[bw], kSeqNum)).Opt(dur_of(fw)).Opt(dur_of(bw));
      out.Int(gpu_time(fw)).Int(gpu_time(bw)).Text("flow");
      out.EndRow();
    }
  }

  // Per-partition orders: NULL device / stream first (SQL's ORDER BY), then by start and id (as
  // SQL sorts: NULL before any value).
  auto null_first_less = [](int64_t a, int64_t b) {
    if (a == kNull || b == kNull) return a == kNull && b != kNull;
    return a < b;
  };
  // steps: per step, over its op_kernel_links rows (the view's GROUP BY trace_id, step), the first
  // GPU start, the last GPU end and their number.
  struct StepGpu {
    int64_t first = kNull, last_end = kNull, ops = 0;
  };
  std::unordered_map<int64_t, StepGpu> step_gpu;
  if (w.steps && !w.op_kernel_links) to_sql.push_back("steps");  // it reads op_kernel_links' rows
  if (w.op_gpu_totals && !w.op_kernel_links) to_sql.push_back("op_gpu_totals");  // likewise
  if (w.op_kernel_links) {
    // queue: per (device, stream), the GPU ops launched and not yet started, this one included, just
    // after its launch call starts. A sweep over the changes (+1 at the launch start, -1 at the GPU
    // start) of the ops with a launch, in the order of the SQL's window: time (NULL first), +1
    // before -1, op id.
    std::vector<int64_t> queue(ops.size(), kNull);
    {
      struct Change {
        int64_t device, stream, t;
        int32_t delta;
        uint32_t op;  // index in ops
      };
      std::vector<Change> changes;
      for (uint32_t k = 0; k < ops.size(); ++k) {
        const Op& o = ops[k];
        if (o.launch < 0) continue;
        changes.push_back({o.device, o.stream, ts_of(static_cast<uint32_t>(o.launch)), 1, k});
        changes.push_back({o.device, o.stream, o.ts, -1, k});
      }
      std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
        if (a.device != b.device) return null_first_less(a.device, b.device);
        if (a.stream != b.stream) return null_first_less(a.stream, b.stream);
        if (a.t != b.t) return null_first_less(a.t, b.t);
        if (a.delta != b.delta) return a.delta > b.delta;
        return id(ops[a.op].ev) < id(ops[b.op].ev);
      });
      int64_t q = 0;
      for (size_t k = 0; k < changes.size(); ++k) {
        const Change& c = changes[k];
        if (k == 0 || c.device != changes[k - 1].device || c.stream != changes[k - 1].stream) q = 0;
        q += c.delta;
        if (c.delta > 0) queue[c.op] = q;
      }
    }
    // launch_name_id: per launch call name (interned string id, 0 = NULL), the lowest events.id of
    // the trace's launch calls of that name (the SQL's min(l.id) OVER (PARTITION BY trace_id, l.name)).
    std::unordered_map<uint32_t, int64_t> launch_name_id;
    for (const Op& o : ops) {
      if (o.launch < 0) continue;
      uint32_t l = static_cast<uint32_t>(o.launch);
      auto [it, added] = launch_name_id.emplace(trace.events[l].name, id(l));
      if (!added && id(l) < it->second) it->second = id(l);
    }
    RowWriter out(pages,
                  "op_kernel_links (trace_id, gpu_event_id, gpu_kind, gpu_ts, gpu_dur, device, stream, correlation,"
                  " launch_event_id, launch_ts, launch_dur, launch_thread_id, op_event_id, top_op_event_id, step,"
                  " launch_delay, name_id, queue, launch_name_id)",
                  19);
    for (size_t k = 0; k < ops.size(); ++k) {
      const Op& o = ops[k];
      const EventRec& e = trace.events[o.ev];
      out.Int(w.trace_id).Int(id(o.ev));
      out.Text(e.kind == kKindKernel ? "kernel" : e.kind == kKindMemcpy ? "memcpy" : "memset");
      out.Opt(o.ts).Opt(o.dur).Opt(o.device).Opt(o.stream).Opt(trace.PromotedValue(e, kCorrelation));
      int64_t step = trace.Step(o.ev);
      if (o.launch >= 0) {
        uint32_t l = static_cast<uint32_t>(o.launch);
        out.Int(id(l)).Opt(ts_of(l)).Opt(dur_of(l)).Int(w.thread_base + trace.events[l].thread + 1);
        out.Opt(trace.op[l] ? id(trace.op[l] - 1) : kNull).Opt(trace.top_op[l] ? id(trace.top_op[l] - 1) : kNull);
        if (step == kNull) step = trace.Step(l);
        out.Opt(step).Opt(Sub(o.ts, Add(ts_of(l), dur_of(l))));
      } else {
        out.Null().Null().Null().Null().Null().Null().Opt(step).Null();
      }
      out.Int(o.name_id).Opt(queue[k]);
      if (o.launch >= 0) {
        out.Int(launch_name_id[trace.events[static_cast<uint32_t>(o.launch)].name]);
      } else {
        out.Null();
      }
      out.EndRow();
      if (w.steps && step != kNull) {
        StepGpu& g = step_gpu[step];
        ++g.ops;
        if (o.ts != kNull && (g.first == kNull || o.ts < g.first)) g.first = o.ts;
        if (int64_t end = Add(o.ts, o.dur); end != kNull && (g.last_end == kNull || end > g.last_end)) g.last_end = end;
      }
    }
    if (w.op_gpu_totals) {
      // op_gpu_totals: per CPU op that launched GPU ops itself (trace.op of the launch call), in op
      // id order: the GPU ops counted and timed; device and name id of its first timed GPU op (ops
      // are in id order); the union of the timed ones' intervals in (start, id) order (NULL start
      // first), each adding the part of it beyond the latest end before it.
      struct Launched {
        uint32_t op;   // event index of the CPU op
        uint32_t gpu;  // index in ops
      };
      std::vector<Launched> launched;
      for (uint32_t k = 0; k < ops.size(); ++k) {
        const Op& o = ops[k];
        if (o.launch >= 0 && trace.op[static_cast<uint32_t>(o.launch)]) {
          launched.push_back({trace.op[static_cast<uint32_t>(o.launch)] - 1, k});
        }
      }
      std::sort(launched.begin(), launched.end(), [&](const Launched& a, const Launched& b) {
        if (a.op != b.op) return id(a.op) < id(b.op);
        return id(ops[a.gpu].ev) < id(ops[b.gpu].ev);
      });
      RowWriter rows(pages,
                     "op_gpu_totals (op_event_id, trace_id, op_name, input_shape_id, top_op_event_id, top_op_name,"
                     " gpu_ops, timed_gpu_ops, gpu_time, gpu_union, device, name_id)",
                     12);
      auto name = [&](uint32_t ev) -> RowWriter& {
        return trace.events[ev].name ? rows.Text(trace.strings.Get(trace.events[ev].name)) : rows.Null();
      };
      std::vector<const Op*> timed;
      for (size_t b = 0, e; b < launched.size(); b = e) {
        uint32_t op = launched[b].op;
        timed.clear();
        for (e = b; e < launched.size() && launched[e].op == op; ++e) {
          if (ops[launched[e].gpu].dur != kNull) timed.push_back(&ops[launched[e].gpu]);
        }
        int64_t sum = 0, uni = 0;
        for (const Op* t : timed) sum += t->dur;
        if (timed.size() == 1) {
          uni = sum;
        } else if (timed.size() > 1) {
          std::vector<const Op*> by_start(timed);
          std::stable_sort(by_start.begin(), by_start.end(),
                           [&](const Op* x, const Op* y) { return null_first_less(x->ts, y->ts); });
          int64_t prev_end = kNull;
          for (const Op* t : by_start) {
            if (t->ts == kNull) continue;  // no end: adds nothing (SQL NULL), sets no end
            int64_t end = t->ts + t->dur;
            int64_t from = prev_end == kNull ? t->ts : std::max(t->ts, prev_end);
            uni += std::max<int64_t>(0, end - from);
            if (prev_end == kNull || end > prev_end) prev_end = end;
          }
        }
        uint32_t l = static_cast<uint32_t>(ops[launched[b].gpu].launch);
        uint32_t top = trace.top_op[l];
        rows.Int(id(op)).Int(w.trace_id);
        name(op).Opt(trace.PromotedValue(trace.events[op], kInputShape)).Opt(top ? id(top - 1) : kNull);
        if (top) name(top - 1); else rows.Null();
        rows.Int(static_cast<int64_t>(e - b)).Int(static_cast<int64_t>(timed.size()));
        if (timed.empty()) {
          rows.Null().Null().Null().Null();
        } else {
          rows.Int(sum).Int(uni).Opt(timed.front()->device).Int(timed.front()->name_id);
        }
        rows.EndRow();
      }
    }
    if (w.steps) {
      // The host annotations the view selects (event_ranges kind user_annotation or other, name
      // LIKE 'ProfilerStep#%': ASCII case ignored, cat user_annotation or Operator, a step), in id
      // order.
      auto is_step = [&](uint32_t i) {
        const EventRec& e = trace.events[i];
        if ((e.kind != kKindUserAnnotation && e.kind != kKindOther) || trace.Step(i) == kNull || e.cat == 0) return false;
        std::string_view cat = trace.strings.Get(e.cat), name = trace.strings.Get(e.name);
        constexpr std::string_view kPrefix = "profilerstep#";
        if ((cat != "user_annotation" && cat != "Operator") || name.size() < kPrefix.size()) return false;
        for (size_t c = 0; c < kPrefix.size(); ++c) {
          if (std::tolower(static_cast<unsigned char>(name[c])) != kPrefix[c]) return false;
        }
        return true;
      };
      std::vector<uint32_t> annotations;
      for (uint32_t i = 0; i < n; ++i) {
        if (is_step(i)) annotations.push_back(i);
      }
      std::sort(annotations.begin(), annotations.end(), [&](uint32_t a, uint32_t b) { return id(a) < id(b); });
      RowWriter rows(pages, "steps (trace_id, step, event_id, thread_id, ts, dur, end_ts, gpu_ts, gpu_end_ts, gpu_ops)", 10);
      for (uint32_t i : annotations) {
        auto g = step_gpu.find(trace.Step(i));
        StepGpu none;
        const StepGpu& gpu = g == step_gpu.end() ? none : g->second;
        rows.Int(w.trace_id).Int(trace.Step(i)).Int(id(i)).Int(w.thread_base + trace.events[i].thread + 1);
        rows.Opt(ts_of(i)).Opt(dur_of(i)).Opt(Add(ts_of(i), dur_of(i)));
        rows.Opt(gpu.first).Opt(gpu.last_end).Int(gpu.ops);
        rows.EndRow();
      }
    }
  }

  // stream_queue: per (device, stream), the queue entries: a GPU op with its own launch call, or the
  // GPU ops on the stream of a launch call that ran several (a CUDA/HIP graph launch: one entry,
  // starting with the first of them). +1 at the launch call's start, -1 at the entry's start, in
  // time order (NULL first, +1 before -1, then by op id); the last change at each time is a row,
  // held until the next change on the stream.
  if (w.stream_queue && !w.op_kernel_links) to_sql.push_back("stream_queue");  // it reads op_kernel_links
  if (w.stream_queue && w.op_kernel_links) {
    std::unordered_map<int32_t, uint32_t> ops_of_call;
    for (const Op& o : ops) {
      if (o.launch >= 0) ++ops_of_call[o.launch];
    }
    struct Change {
      int64_t device, stream, t;
      int32_t delta;
      int64_t order;  // the entry's first op id
    };
    std::vector<Change> changes;
    // A graph launch's entry per (device, stream): its first GPU start and first op id.
    std::map<std::tuple<int32_t, int64_t, int64_t>, std::pair<int64_t, int64_t>> graph_entries;
    for (const Op& o : ops) {
      if (o.launch < 0) continue;
      int64_t launch_ts = ts_of(static_cast<uint32_t>(o.launch)), op = id(o.ev);
      if (ops_of_call[o.launch] == 1) {
        changes.push_back({o.device, o.stream, launch_ts, 1, op});
        changes.push_back({o.device, o.stream, o.ts, -1, op});
        continue;
      }
      auto [it, added] = graph_entries.try_emplace({o.launch, o.device, o.stream}, o.ts, op);
      if (!added) {
        auto& [first_ts, first_op] = it->second;
        if (first_ts == kNull || (o.ts != kNull && o.ts < first_ts)) first_ts = o.ts;  // as SQL min(): NULLs left out
        first_op = std::min(first_op, op);
      }
    }
    for (const auto& [key, entry] : graph_entries) {
      const auto& [launch, device, stream] = key;
      changes.push_back({device, stream, ts_of(static_cast<uint32_t>(launch)), 1, entry.second});
      changes.push_back({device, stream, entry.first, -1, entry.second});
    }
    std::sort(changes.begin(), changes.end(), [&](const Change& a, const Change& b) {
      if (a.device != b.device) return null_first_less(a.device, b.device);
      if (a.stream != b.stream) return null_first_less(a.stream, b.stream);
      if (a.t != b.t) return null_first_less(a.t, b.t);
      if (a.delta != b.delta) return a.delta > b.delta;
      return a.order < b.order;
    });
    RowWriter out(pages, "stream_queue (trace_id, seq, device, stream, ts, queue_length, hold_ns)", 7);
    int64_t q = 0, seq = 0;
    for (size_t k = 0; k < changes.size(); ++k) {
      const Change& c = changes[k];
      if (k == 0 || c.device != changes[k - 1].device || c.stream != changes[k - 1].stream) q = 0;
      q += c.delta;
      bool next = k + 1 < changes.size() && changes[k + 1].device == c.device && changes[k + 1].stream == c.stream;
      int64_t hold = c.t != kNull && next ? changes[k + 1].t - c.t : kNull;
      if (hold == 0) continue;  // an earlier change at the same time
      out.Int(w.trace_id).Int(++seq).Opt(c.device).Opt(c.stream).Opt(c.t).Int(q).Opt(hold);
      out.EndRow();
    }
  }

  // The ops with a start and a duration >= 0, by (device, ts, id): both device sweeps below
  // (gpu_segments, idle_gaps) walk its device partitions ([b, DeviceEnd(b))).
  auto op_id = [&](const Op* o) { return id(o->ev); };
  std::vector<const Op*> all;
  if (w.gpu_segments || w.idle_gaps) {
    for (const Op& o : ops) {
      if (o.ts != kNull && o.dur != kNull && o.dur >= 0) all.push_back(&o);
    }
    std::sort(all.begin(), all.end(), [&](const Op* a, const Op* b) {
      if (a->device != b->device) return null_first_less(a->device, b->device);
      if (a->ts != b->ts) return a->ts < b->ts;
      return op_id(a) < op_id(b);
    });
  }
  auto device_end = [&](size_t b) {
    size_t e = b;
    while (e < all.size() && all[e]->device == all[b]->device) ++e;
    return e;
  };
  if (w.gpu_segments) {
    // Per device, cut at every start and end of the ops that take time; a piece where ops run gets
    // the distinct names running throughout it. Rows go out as found: seq counts them in (device,
    // ts) order, the order of the table's key (trace_id, ts, seq) when the trace has one device.
    // The names text of a piece is interned (a few distinct sets): RowWriter keeps views of it.
    struct Edge {
      int64_t t;
      uint32_t name;
      int32_t delta;
      bool operator<(const Edge& o) const { return t < o.t; }
    };
    RowWriter out(pages, "gpu_segments (trace_id, ts, seq, device, dur, name_ids)", 6);
    std::unordered_set<std::string> name_sets;
    std::string names;
    std::vector<Edge> edges;
    std::vector<std::pair<uint32_t, int>> active;  // (name id, ops running), by name id
    int64_t seq = 0;
    for (size_t b = 0, e; b < all.size(); b = e) {
      e = device_end(b);
      edges.clear();
      for (size_t j = b; j < e; ++j) {
        if (all[j]->dur == 0) continue;  // occupies no time: no cut
        edges.push_back({all[j]->ts, all[j]->name_id, 1});
        edges.push_back({all[j]->ts + all[j]->dur, all[j]->name_id, -1});
      }
      std::sort(edges.begin(), edges.end());
      active.clear();
      for (size_t k = 0; k < edges.size();) {
        int64_t t = edges[k].t;
        if (k > 0 && !active.empty()) {
          names.clear();
          for (const auto& [name, count] : active) {
            if (!names.empty()) names += ',';
            names += std::to_string(name);
          }
          const std::string& text = *name_sets.insert(names).first;
          int64_t from = edges[k - 1].t;  // the previous cut: every edge there has been applied
          out.Int(w.trace_id).Int(from).Int(++seq).Opt(all[b]->device).Int(t - from).Text(text);
          out.EndRow();
        }
        for (; k < edges.size() && edges[k].t == t; ++k) {
          auto it = std::lower_bound(active.begin(), active.end(), std::pair<uint32_t, int>(edges[k].name, INT32_MIN));
          if (it == active.end() || it->first != edges[k].name) it = active.insert(it, {edges[k].name, 0});
          if ((it->second += edges[k].delta) == 0) active.erase(it);
        }
      }
    }
  }
  if (w.stream_idle_gaps) {
    std::vector<const Op*> k;
    for (const Op& o : ops) {
      if (o.ts != kNull && o.dur != kNull) k.push_back(&o);
    }
    std::sort(k.begin(), k.end(), [&](const Op* a, const Op* b) {
      if (a->device != b->device) return null_first_less(a->device, b->device);
      if (a->stream != b->stream) return null_first_less(a->stream, b->stream);
      if (a->ts != b->ts) return a->ts < b->ts;
      return id(a->ev) < id(b->ev);
    });
    RowWriter out(pages,
                  "stream_idle_gaps (trace_id, device, stream, ts, dur, end_ts, prev_event_id, next_event_id,"
                  " next_launch_ts, category)",
                  10);
    for (size_t j = 1; j < k.size(); ++j) {
      const Op& p = *k[j - 1];
      const Op& o = *k[j];
      if (p.device != o.device || p.stream != o.stream) continue;
      int64_t prev_end = p.ts + p.dur;
      int64_t launch_ts = o.launch >= 0 ? ts_of(static_cast<uint32_t>(o.launch)) : kNull;
      out.Int(w.trace_id).Opt(o.device).Opt(o.stream).Int(prev_end).Int(o.ts - prev_end).Int(o.ts);
      out.Int(id(p.ev)).Int(id(o.ev)).Opt(launch_ts);
      out.Text(Gt(launch_ts, prev_end) ? "host_wait" : o.ts - prev_end < 30000 ? "kernel_wait" : "other");
      out.EndRow();
    }
  }
  if (!w.idle_gaps) return to_sql;

  // host_event_id: on the next op's launching thread, the last event started at or before the gap
  // start (by ts, then depth, then id: ORDER BY ts DESC, depth DESC, id DESC; NULL depth lowest).
  // The threads that launched GPU ops (a superset of those gaps ask about: known before the sweep,
  // so gaps are written as they are found, not held).
  std::vector<char> wanted(trace.threads.size(), 0);
  for (const Op& o : ops) {
    if (o.launch >= 0) wanted[trace.events[static_cast<uint32_t>(o.launch)].thread] = 1;
  }
  // The wanted threads' timed events, by (thread, ts, depth, id), as sort keys (sorting the keys
  // themselves, not indices compared through trace.events, is several times cheaper).
  struct HostKey {
    int64_t ts;      // without the base
    uint64_t order;  // depth + 1 (0 = NULL) << 32 | id - event_base: ORDER BY depth, id
    uint32_t ev;
    bool operator<(const HostKey& o) const { return ts != o.ts ? ts < o.ts : order < o.order; }
  };
  std::vector<HostKey> host;
  std::vector<uint32_t> thread_begin(trace.threads.size() + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace.events[i];
    if (wanted[e.thread] && e.ts != kNullTs) ++thread_begin[e.thread + 1];
  }
  for (size_t t = 1; t < thread_begin.size(); ++t) thread_begin[t] += thread_begin[t - 1];
  host.resize(thread_begin.back());
  {
    std::vector<uint32_t> fill(thread_begin.begin(), thread_begin.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      const EventRec& e = trace.events[i];
      if (wanted[e.thread] && e.ts != kNullTs) {
        uint64_t order = (static_cast<uint64_t>(trace.depth[i] + 1) << 32) | new_id[i];
        host[fill[e.thread]++] = {e.ts, order, i};
      }
    }
  }
  for (size_t t = 0; t + 1 < thread_begin.size(); ++t) {
    if (wanted[t]) std::sort(host.begin() + thread_begin[t], host.begin() + thread_begin[t + 1]);
  }
  const uint32_t cat_cpu_op = trace.strings.Find("cpu_op"), cat_operator = trace.strings.Find("Operator");
  auto host_event = [&](uint32_t thread, int64_t at) -> int64_t {
    auto b = host.begin() + thread_begin[thread], e = host.begin() + thread_begin[thread + 1];
    int64_t rel = at - w.base;  // trace.events hold times without the base
    auto it = std::upper_bound(b, e, rel, [](int64_t t, const HostKey& h) { return t < h.ts; });
    if (it == b) return kNull;
    uint32_t x = (it - 1)->ev;
    if (!trace.op[x] || !trace.top_op[x]) return kNull;
    uint32_t o = trace.op[x] - 1, t = trace.top_op[x] - 1;
    if (Gt(Add(ts_of(o), dur_of(o)), at)) return id(o);
    if (!Gt(Add(ts_of(t), dur_of(t)), at)) return kNull;
    for (uint32_t p = trace.parent[o]; p; p = trace.parent[p - 1]) {
      const EventRec& c = trace.events[p - 1];
      if (c.cat && (c.cat == cat_cpu_op || c.cat == cat_operator) && c.name && !LikeProfilerStep(trace.strings.Get(c.name)) &&
          Gt(Add(ts_of(p - 1), dur_of(p - 1)), at)) {
        return id(p - 1);
      }
    }
    return kNull;
  };
  RowWriter out(pages,
                "idle_gaps (trace_id, device, ts, dur, end_ts, prev_event_id, next_event_id, next_launch_event_id,"
                " next_launch_ts, cause, host_event_id)",
                11);
  struct Gap {
    int64_t device, ts, end;
    int64_t prev_id, next_id;
    const Op* next;
  };
  auto put = [&](const Gap& g) {
    out.Int(w.trace_id).Opt(g.device).Int(g.ts).Int(g.end - g.ts).Int(g.end).Int(g.prev_id).Int(g.next_id);
    const Op& o = *g.next;
    if (o.launch >= 0) {
      uint32_t l = static_cast<uint32_t>(o.launch);
      int64_t launch_ts = ts_of(l);
      out.Int(id(l)).Opt(launch_ts).Text(Gt(launch_ts, g.ts) ? "host" : "device");
      out.Opt(host_event(trace.events[l].thread, g.ts));
    } else {
      out.Null().Null().Text("unknown").Null();
    }
    out.EndRow();
  };
  // idle_gaps, over `all` (the SQL's all_ops: start known and duration >= 0; its ops: duration > 0).
  // Gaps between ops are written as found (device by device, in start order, as the SQL's window
  // yields them); the few edge gaps after all of them, as the SQL's UNION ALL does.
  std::vector<Gap> edge1, edge2;
  for (size_t b = 0, e; b < all.size(); b = e) {
    e = device_end(b);
    int64_t dev = all[b]->device;
    // Window over all ops and over the ops that take time.
    int64_t first_ts = all[b]->ts, last_end = kNull, busy_first = kNull, busy_last = kNull;
    int64_t max_end = kNull, max_end_id = 0;  // running over the ops taking time, before the current
    for (size_t j = b; j < e; ++j) {
      const Op* o = all[j];
      int64_t end = o->ts + o->dur;
      if (last_end == kNull || end > last_end) last_end = end;
      if (o->dur == 0) continue;
      if (busy_first == kNull) busy_first = o->ts;
      if (busy_last == kNull || end > busy_last) busy_last = end;
      if (max_end != kNull && max_end < o->ts) put({dev, max_end, o->ts, max_end_id, op_id(o), o});
      if (max_end == kNull || end > max_end) {
        max_end = end;
        max_end_id = op_id(o);
      } else if (end == max_end) {
        max_end_id = std::max(max_end_id, op_id(o));
      }
    }
    // Edge gaps: zero-length ops before the first / after the last op that takes time.
    int64_t first_busy = busy_first != kNull ? busy_first : last_end;
    if (first_ts < first_busy) {
      const Op* prev = nullptr;
      const Op* next = nullptr;
      for (size_t j = b; j < e; ++j) {
        const Op* o = all[j];
        if (o->ts == first_ts && (!prev || op_id(o) < op_id(prev))) prev = o;
        if (o->ts == first_busy &&
            (!next || o->dur > next->dur || (o->dur == next->dur && op_id(o) < op_id(next)))) {
          next = o;
        }
      }
      edge1.push_back({dev, first_ts, first_busy, op_id(prev), op_id(next), next});
    }
    if (busy_last != kNull && busy_last < last_end) {
      const Op* prev = nullptr;
      const Op* next = nullptr;
      for (size_t j = b; j < e; ++j) {
        const Op* o = all[j];
        if (o->dur > 0 && o->ts + o->dur == busy_last && (!prev || op_id(o) > op_id(prev))) prev = o;
        if (o->ts == last_end && (!next || op_id(o) < op_id(next))) next = o;
      }
      edge2.push_back({dev, busy_last, last_end, op_id(prev), op_id(next), next});
    }
  }

  for (const Gap& g : edge1) put(g);
  for (const Gap& g : edge2) put(g);
  return to_sql;
}

}  // namespace tracesql
