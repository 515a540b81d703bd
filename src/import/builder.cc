#include "import/builder.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstring>
#include <functional>
#include <tuple>

#include "util/beside.h"

namespace tracesql {

namespace {

// Runs body(from, to, part) over [0, n) in chunks of `chunk`, taken in turn by this thread (part 0)
// and a second one (part 1): for loops whose iterations are independent and uneven. `first`, when
// given, runs on this thread before it takes chunks (the second starts at once): serial work that
// touches nothing the body does.
void OnTwoThreads(size_t n, size_t chunk, const std::function<void(size_t, size_t, int)>& body,
                  const std::function<void()>& first = {}) {
  std::atomic<size_t> next{0};
  auto work = [&](int part) {
    for (size_t c; (c = next.fetch_add(1)) * chunk < n;) body(c * chunk, std::min(n, (c + 1) * chunk), part);
  };
  Beside helper([&] { work(1); });
  if (first) first();
  work(0);
  helper.Join();
}


// Category classes for deciding a track's kind.
constexpr uint8_t kClassCpu = 1, kClassGpu = 2, kClassOther = 3;

uint8_t ClassifyCat(std::string_view cat) {
  static const std::string_view kGpu[] = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
                                          "Kernel", "Memcpy", "Memset", "mtia_ccp_events"};
  static const std::string_view kCpu[] = {"cpu_op", "Operator", "user_annotation", "cuda_runtime", "cuda_driver",
                                          "Runtime", "python_function", "cpu_instant_event", "mtia_runtime"};
  for (auto g : kGpu) if (cat == g) return kClassGpu;
  for (auto c : kCpu) if (cat == c) return kClassCpu;
  return kClassOther;
}

bool IsLaunchFlowCat(std::string_view cat) {
  return cat == "ac2g" || cat == "async" || cat == "async_cpu_to_gpu" || cat == "async_gpu";
}

std::string IdKey(const IdValue& v) {
  std::string k(9, '\0');
  k[0] = v.is_text ? 't' : 'i';
  int64_t x = v.is_text ? static_cast<int64_t>(v.text) : v.i;
  std::memcpy(k.data() + 1, &x, 8);
  return k;
}

}  // namespace

TraceBuilder::TraceBuilder(std::string path, const std::string& spill_dir, Interner& strings, StackInterner& stacks,
                           ArgShapes& shapes, InputShapes& input_shapes)
    : trace_(std::move(path), spill_dir, strings, stacks, shapes, input_shapes) {}

// The kind of an event, from its category (cached per category string) and, for [memory] instants
// and the ProfilerStep#N that 2020-21 traces write as Operator, its name. Mirrors the category views.
uint8_t TraceBuilder::KindOf(const EventRec& r, std::string_view name) {
  std::string_view ph = trace_.strings.Get(r.ph);
  if (IsMemoryInstant(ph, name)) return kKindMemory;
  if (r.cat == 0) return kKindOther;
  if (r.cat >= cat_kind_.size()) cat_kind_.resize(trace_.strings.size() + 64, 0);
  uint8_t& cached = cat_kind_[r.cat];
  if (cached == 0) {
    std::string_view cat = trace_.strings.Get(r.cat);
    uint8_t k = kKindOther;
    if (cat == "cpu_op" || cat == "Operator") k = kKindCpuOp;
    else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "mtia_runtime") k = kKindRuntime;
    else if (cat == "python_function") k = kKindPython;
    else if (cat == "user_annotation") k = kKindUserAnnotation;
    else if (cat == "kernel" || cat == "Kernel") k = kKindKernel;
    else if (cat == "gpu_memcpy" || cat == "Memcpy") k = kKindMemcpy;
    else if (cat == "gpu_memset" || cat == "Memset") k = kKindMemset;
    else if (cat == "gpu_user_annotation") k = kKindGpuAnnotation;
    cached = static_cast<uint8_t>(k + 1);
  }
  uint8_t k = static_cast<uint8_t>(cached - 1);
  if (k == kKindCpuOp && trace_.strings.Get(r.cat) == "Operator" && name.substr(0, 13) == "ProfilerStep#") return kKindOther;
  return k;
}

void TraceBuilder::Reserve(size_t events) {
  trace_.events.reserve(events);
  trace_.pool.reserve(events * 6);
}

uint32_t TraceBuilder::ProcessFor(const IdValue& pid) {
  std::string key = IdKey(pid);
  auto it = process_map_.find(key);
  if (it != process_map_.end()) return it->second;
  uint32_t idx = static_cast<uint32_t>(trace_.processes.size());
  ProcessRec p;
  p.pid = pid;
  trace_.processes.push_back(p);
  process_map_.emplace(std::move(key), idx);
  return idx;
}

uint32_t TraceBuilder::ThreadFor(const IdValue& pid, const IdValue& tid) {
  if (last_thread_ != UINT32_MAX && pid == last_pid_ && tid == last_tid_) return last_thread_;
  std::string key = IdKey(pid) + IdKey(tid);
  uint32_t idx;
  auto it = thread_map_.find(key);
  if (it != thread_map_.end()) {
    idx = it->second;
  } else {
    idx = static_cast<uint32_t>(trace_.threads.size());
    ThreadRec t;
    t.process = ProcessFor(pid);
    t.pid = pid;
    t.tid = tid;
    trace_.threads.push_back(std::move(t));
    thread_map_.emplace(std::move(key), idx);
  }
  last_pid_ = pid;
  last_tid_ = tid;
  last_thread_ = idx;
  return idx;
}

void TraceBuilder::HandleMetadata(RawEvent& e) {
  std::string seen_key = std::string(e.name) + '\0' + IdKey(e.pid) + IdKey(e.tid);
  if (meta_seen_[seen_key]++ > 0) trace_.stats.Add(StatId::duplicate_metadata);
  if (e.name == "process_name" || e.name == "process_labels" || e.name == "process_sort_index") {
    ProcessRec& p = trace_.processes[ProcessFor(e.pid)];
    if (e.name == "process_name") {
      p.name = trace_.strings.Intern(e.meta_name);
    } else if (e.name == "process_labels") {
      p.labels = trace_.strings.Intern(e.meta_name);
    } else if (e.has_meta_sort) {
      p.has_sort = true;
      p.sort_index = e.meta_sort;
    }
  } else if (e.name == "thread_name" || e.name == "thread_sort_index") {
    ThreadRec& t = trace_.threads[ThreadFor(e.pid, e.tid)];
    if (e.name == "thread_name") {
      t.name = trace_.strings.Intern(e.meta_name);
    } else if (e.has_meta_sort) {
      t.has_sort = true;
      t.sort_index = e.meta_sort;
    }
  } else {
    trace_.stats.Add(StatId::unknown_metadata);
  }
}

void TraceBuilder::AddEvent(RawEvent& e) {
  std::string_view ph = e.ph;
  if (Eq(ph, "M")) {
    HandleMetadata(e);
    return;
  }
  if (Eq(ph, "s") || Eq(ph, "t") || Eq(ph, "f")) {
    trace_.stats.Add(StatId::flow_points);
    if (!e.has_id) {
      trace_.stats.Add(StatId::flows_without_id);
      return;
    }
    FlowPoint fp;
    fp.ts = e.ts;
    fp.thread = ThreadFor(e.pid, e.tid);
    fp.cat = e.has_cat ? trace_.strings.Intern(e.cat) : 0;
    fp.name = trace_.strings.Intern(e.name);
    fp.order = static_cast<uint32_t>(trace_.flow_points.size());
    fp.id = e.id;
    fp.ph = ph[0];
    fp.bp_enclosing = e.bp_enclosing;
    trace_.flow_points.push_back(fp);
    return;
  }
  uint32_t thread = ThreadFor(e.pid, e.tid);
  ThreadRec& t = trace_.threads[thread];
  if (Eq(ph, "E")) {
    if (!t.open_begins.empty()) {
      uint32_t b = t.open_begins.back();
      t.open_begins.pop_back();
      EventRec& begin = trace_.events[b];
      if (begin.ts != kNullTs && e.ts != kNullTs) begin.dur = e.ts - begin.ts;
      if (e.args.size() > 2) {
        uint64_t off = trace_.args.Append(ArgSpill::kEndFile, e.args);
        trace_.end_args.push_back({b, off, static_cast<uint32_t>(e.args.size()), trace_.shapes.Intern(e.arg_sig)});
      }
      return;
    }
    trace_.stats.Add(StatId::unmatched_end);  // an end without a begin marks no slice: counted, not stored
    return;
  }
  EventRec r;
  r.ts = e.ts;
  r.dur = e.dur;
  r.thread = thread;
  r.name = trace_.strings.Intern(e.name);
  r.cat = e.has_cat ? trace_.strings.InternCached(e.cat, last_cat_) : 0;
  r.ph = trace_.strings.InternCached(ph.empty() ? std::string_view("?") : ph, last_ph_);
  r.kind = KindOf(r, e.name);
  ++trace_.kind_count[r.kind];
  if (!e.args.empty()) {
    trace_.args.Append(r.kind, e.args);
    r.args_len = static_cast<uint32_t>(e.args.size());
    r.shape = trace_.shapes.Intern(e.arg_sig);
  }
  if (e.has_dims || e.has_types) {
    e.promoted[kInputShape] = trace_.input_shapes.Intern(e.has_dims, e.dims, e.has_types, e.types);
    e.mask |= static_cast<uint16_t>(1u << kInputShape);
  }
  r.mask = e.mask;
  r.promo = static_cast<uint32_t>(trace_.pool.size());
  for (int k = 0; k < kPromotedCount; ++k) {
    if (e.mask & (1u << k)) r.wide = r.wide || e.promoted[k] != static_cast<int32_t>(e.promoted[k]);
  }
  for (int k = 0; k < kPromotedCount; ++k) {
    if (!(e.mask & (1u << k))) continue;
    const auto v = static_cast<uint64_t>(e.promoted[k]);
    trace_.pool.push_back(static_cast<uint32_t>(v));
    if (r.wide) trace_.pool.push_back(static_cast<uint32_t>(v >> 32));
  }
  if (Eq(ph, "X")) {
    if (r.dur == kNullTs) trace_.stats.Add(StatId::slices_without_dur);
  } else if (Eq(ph, "B")) {
    t.open_begins.push_back(static_cast<uint32_t>(trace_.events.size()));
  } else if (!Eq(ph, "i") && !Eq(ph, "I") && !Eq(ph, "C")) {
    trace_.stats.Add(ph.empty() ? StatId::missing_phase : StatId::unknown_phases);
  }
  if (r.ts == kNullTs) trace_.stats.Add(StatId::events_without_ts);
  if (r.dur != kNullTs && r.dur < 0) trace_.stats.Add(StatId::negative_durations);
  // Track kind.
  if (r.cat >= cat_class_.size()) cat_class_.resize(trace_.strings.size() + 64, 0);
  uint8_t cls;
  if (r.cat == 0) {
    cls = Eq(e.name, "[memory]") ? kClassCpu : kClassOther;  // 2021 [memory] instants have no cat
  } else {
    uint8_t& cached = cat_class_[r.cat];
    if (cached == 0) cached = ClassifyCat(trace_.strings.Get(r.cat));
    cls = cached;
  }
  if (cls == kClassGpu) ++t.gpu_events;
  if (cls == kClassCpu) ++t.cpu_events;
  ++t.events;
  trace_.events.push_back(r);
}

// ---------------------------------------------------------------------------------------------
// Nesting, stacks and flows


bool TraceBuilder::Contains(uint32_t ev, int64_t t) const {
  const EventRec& s = trace_.events[ev];
  return s.ts <= t && (t < s.ts + s.dur || t == s.ts);
}

void TraceBuilder::Finish() {
  for (auto& t : trace_.threads) {
    if (!t.open_begins.empty()) trace_.stats.Add(StatId::unmatched_begin, static_cast<int64_t>(t.open_begins.size()));
    t.open_begins.clear();
  }
  // The steps (they read only the events and their categories) and the flow points' order by
  // (cat, id, ts) do not depend on the nesting: made on another thread meanwhile.
  std::vector<uint32_t> flow_order;
  Beside steps([&] {
    AssignSteps();
    flow_order = FlowPointOrder();
  });
  ComputeNesting();
  steps.Join();
  BindFlows(flow_order);
  // The per-track slice order served nesting and flow binding only: free it before the writing.
  std::vector<uint32_t>().swap(sorted_);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(thread_slices_);
}

bool TraceBuilder::IsCpuOp(const EventRec& e) const {
  if (e.cat == 0) return false;
  std::string_view cat = trace_.strings.Get(e.cat);
  if (cat != "cpu_op" && cat != "Operator") return false;
  // 2020-21 traces write the ProfilerStep#N annotation as an Operator: it is a step, not an op.
  return trace_.strings.Get(e.name).substr(0, 13) != "ProfilerStep#";
}

void TraceBuilder::AssignSteps() {
  // ProfilerStep#N annotations on host threads, by start time.
  struct Step {
    int64_t ts, end, n;
  };
  std::vector<Step> steps;
  size_t n = trace_.events.size();
  trace_.step.assign(n, 0);
  trace_.step_numbers.clear();
  constexpr std::string_view kPrefix = "ProfilerStep#";
  // Every category was classified (and cached) when its first event was added.
  auto cls = [&](const EventRec& e) { return e.cat == 0 ? kClassOther : cat_class_[e.cat]; };
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace_.events[i];
    if (e.ts == kNullTs || e.dur == kNullTs || e.dur < 0 || cls(e) != kClassCpu) continue;
    std::string_view name = trace_.strings.Get(e.name);
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view num = name.substr(kPrefix.size());
    int64_t v = 0;
    bool ok = !num.empty() && num.size() < 18;
    for (char ch : num) ok = ok && ch >= '0' && ch <= '9', v = v * 10 + (ch - '0');
    if (ok) steps.push_back({e.ts, e.ts + e.dur, v});
  }
  if (steps.empty()) return;
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  for (const Step& s : steps) trace_.step_numbers.push_back(s.n);
  // The step at t: its index in steps + 1, 0 = none.
  auto step_at = [&](int64_t t) -> uint32_t {
    auto it = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const Step& s) { return v < s.ts; });
    if (it == steps.begin()) return 0;
    --it;
    return t < it->end ? static_cast<uint32_t>(it - steps.begin()) + 1 : 0;
  };
  // Host events: the step whose interval contains their start. Launch calls are remembered by
  // correlation so that GPU ops inherit the step of their launch.
  std::unordered_map<int64_t, uint32_t> launch_step;
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace_.events[i];
    if (e.ts == kNullTs || cls(e) == kClassGpu) continue;
    trace_.step[i] = step_at(e.ts);
    int64_t corr = trace_.PromotedValue(e, kCorrelation);
    if (corr != kNullTs && trace_.step[i] != 0) launch_step.emplace(corr, trace_.step[i]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace_.events[i];
    if (cls(e) != kClassGpu) continue;
    int64_t corr = trace_.PromotedValue(e, kCorrelation);
    if (corr == kNullTs) continue;
    auto it = launch_step.find(corr);
    if (it != launch_step.end()) trace_.step[i] = it->second;
  }
}

void TraceBuilder::ComputeNesting() {
  size_t n = trace_.events.size();
  // Bucket slices and other timed events by thread.
  std::vector<uint32_t> slice_count(trace_.threads.size() + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace_.events[i];
    if (e.ts == kNullTs) continue;
    trace_.min_ts = std::min(trace_.min_ts, e.ts);
    trace_.max_end = std::max(trace_.max_end, e.ts + (e.dur != kNullTs && e.dur > 0 ? e.dur : 0));
    if (e.dur != kNullTs && e.dur >= 0) ++slice_count[e.thread + 1];
  }
  for (size_t k = 1; k < slice_count.size(); ++k) slice_count[k] += slice_count[k - 1];
  sorted_.assign(slice_count.back(), 0);
  std::vector<uint32_t> fill(slice_count.begin(), slice_count.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = trace_.events[i];
    if (e.ts != kNullTs && e.dur != kNullTs && e.dur >= 0) sorted_[fill[e.thread]++] = i;
  }
  thread_slices_.resize(trace_.threads.size());
  for (size_t t = 0; t < trace_.threads.size(); ++t) thread_slices_[t] = {slice_count[t], slice_count[t + 1]};

  // The tracks are independent: two threads take them in turn, first sorting each track's slices,
  // then walking them with a stack (parent, depth, enclosing op). The call paths are interned
  // after, on one thread, in the order one thread would have met them (ids stay the same). The
  // sort keys are freed before the walk's arrays are made: the two do not add up at the import's
  // peak.
  {
    // Slices by (ts, longest first, file order). Sorting 12-byte keys: a comparator reaching into
    // trace_.events for each comparison cost more than the rest of the nesting, so the records are
    // read only for slices that start together (rare); and many tracks come in that order already.
    struct SliceKey {
      int64_t ts;
      uint32_t index;
    } __attribute__((packed));
    const std::vector<EventRec>& events = trace_.events;
    auto slice_less = [&events](int64_t a_ts, uint32_t a, int64_t b_ts, uint32_t b) {
      if (a_ts != b_ts) return a_ts < b_ts;
      const int64_t a_dur = events[a].dur, b_dur = events[b].dur;  // >= 0 here
      return a_dur != b_dur ? a_dur > b_dur : a < b;
    };
    std::array<std::vector<SliceKey>, 2> keys;  // per thread: a track's slices being sorted
    OnTwoThreads(trace_.threads.size(), 1, [&](size_t t, size_t, int part) {
      auto [b, en] = thread_slices_[t];
      std::vector<SliceKey>& track = keys[part];
      bool in_order = true;  // sorted_ holds the track's slices in file order
      for (uint32_t k = b; k + 1 < en && in_order; ++k) {
        in_order = slice_less(events[sorted_[k]].ts, sorted_[k], events[sorted_[k + 1]].ts, sorted_[k + 1]);
      }
      if (in_order) return;
      track.resize(en - b);
      for (uint32_t k = b; k < en; ++k) track[k - b] = {events[sorted_[k]].ts, sorted_[k]};
      std::sort(track.begin(), track.end(),
                [&](const SliceKey& x, const SliceKey& y) { return slice_less(x.ts, x.index, y.ts, y.index); });
      for (uint32_t k = b; k < en; ++k) sorted_[k] = track[k - b].index;
    });
  }
  trace_.parent.assign(n, 0);
  trace_.depth.assign(n, -1);
  trace_.stack.assign(n, 0);
  trace_.op.assign(n, 0);
  trace_.top_op.assign(n, 0);
  std::array<std::vector<uint32_t>, 2> opened;  // per thread: the slices open at the one being walked,
  std::array<int64_t, 2> overlapped{};          // the overlapping slices met
  OnTwoThreads(trace_.threads.size(), 1, [&](size_t t, size_t, int part) {
    auto [b, en] = thread_slices_[t];
    std::vector<uint32_t>& stack = opened[part];
    stack.clear();
    for (uint32_t k = b; k < en; ++k) {
      uint32_t cur = sorted_[k];
      const EventRec& c = trace_.events[cur];
      int64_t c_end = c.ts + c.dur;
      bool overlap = false;
      while (!stack.empty()) {
        const EventRec& p = trace_.events[stack.back()];
        int64_t p_end = p.ts + p.dur;
        if (p.ts <= c.ts && c_end <= p_end && (c.ts < p_end || p.dur == 0)) break;
        if (c.ts < p_end) overlap = true;
        stack.pop_back();
      }
      if (overlap) ++overlapped[part];
      uint32_t parent_op = 0, parent_top = 0;
      if (!stack.empty()) {
        trace_.parent[cur] = stack.back() + 1;
        parent_op = trace_.op[stack.back()];
        parent_top = trace_.top_op[stack.back()];
      }
      bool is_op = IsCpuOp(c);
      trace_.op[cur] = is_op ? cur + 1 : parent_op;
      trace_.top_op[cur] = parent_top ? parent_top : (is_op ? cur + 1 : 0);
      trace_.depth[cur] = static_cast<int32_t>(stack.size());
      stack.push_back(cur);
    }
  });
  const int64_t overlaps = overlapped[0] + overlapped[1];
  if (overlaps > 0) trace_.stats.Add(StatId::overlapping_slices, overlaps);
  auto intern = [&](uint32_t i) {
    const EventRec& e = trace_.events[i];
    trace_.stack[i] = trace_.stacks.Intern(trace_.parent[i] ? trace_.stack[trace_.parent[i] - 1] : 0, e.name, e.cat, trace_.depth[i]);
  };
  // Instants and other non-slice events: parent = innermost slice containing ts (two threads
  // taking chunks of events in turn), then their paths interned in event order. The slices' paths
  // are interned on this thread first, while the second thread starts on the instants: interning
  // reads and writes only slices' entries, the instants' search only instants' (and reads the
  // slices' trace_.parent, trace_.op and trace_.top_op, final since the walk above).
  auto is_instant = [&](uint32_t i) {
    const EventRec& e = trace_.events[i];
    return e.ts != kNullTs && (e.dur == kNullTs || e.dur < 0);
  };
  auto intern_slices = [&] {
    for (size_t t = 0; t < trace_.threads.size(); ++t) {
      for (uint32_t k = thread_slices_[t].first; k < thread_slices_[t].second; ++k) intern(sorted_[k]);  // parents first
    }
  };
  OnTwoThreads(n, size_t{1} << 14, [&](size_t from, size_t to, int) {
    for (auto i = static_cast<uint32_t>(from); i < to; ++i) {
      if (!is_instant(i)) continue;
      int64_t p = Enclosing(trace_.events[i].thread, trace_.events[i].ts, nullptr);
      if (p >= 0) {
        trace_.parent[i] = static_cast<uint32_t>(p) + 1;
        trace_.depth[i] = trace_.depth[p] + 1;
        trace_.op[i] = trace_.op[p];
        trace_.top_op[i] = trace_.top_op[p];
      } else {
        trace_.depth[i] = 0;
      }
    }
  }, intern_slices);
  for (uint32_t i = 0; i < n; ++i) {
    if (is_instant(i)) intern(i);
  }
}

int64_t TraceBuilder::Enclosing(uint32_t thread, int64_t t, const IdValue* correlation) const {
  auto [b, en] = thread_slices_[thread];
  if (b == en) return -1;
  // Last slice (in sort order) starting at or before t.
  auto it = std::upper_bound(sorted_.begin() + b, sorted_.begin() + en, t,
                             [&](int64_t v, uint32_t x) { return v < trace_.events[x].ts; });
  if (it == sorted_.begin() + b) return -1;
  uint32_t cand = *(it - 1);
  int64_t found = -1;
  for (int64_t cur = cand; cur >= 0; cur = static_cast<int64_t>(trace_.parent[cur]) - 1) {
    if (Contains(static_cast<uint32_t>(cur), t)) {
      found = cur;
      break;
    }
  }
  if (found < 0 || correlation == nullptr || correlation->is_text) return found;
  // Launch flows: prefer the containing slice that carries the flow's correlation id.
  if (trace_.PromotedValue(trace_.events[found], kCorrelation) == correlation->i) return found;
  for (int64_t cur = static_cast<int64_t>(trace_.parent[found]) - 1; cur >= 0; cur = static_cast<int64_t>(trace_.parent[cur]) - 1) {
    if (trace_.PromotedValue(trace_.events[cur], kCorrelation) == correlation->i) return cur;
  }
  for (auto j = it; j != sorted_.begin() + b;) {
    --j;
    const EventRec& s = trace_.events[*j];
    if (s.ts != t) break;
    if (trace_.PromotedValue(s, kCorrelation) == correlation->i) return *j;
  }
  return found;
}

int64_t TraceBuilder::NextSlice(uint32_t thread, int64_t t) const {
  auto [b, en] = thread_slices_[thread];
  auto it = std::lower_bound(sorted_.begin() + b, sorted_.begin() + en, t,
                             [&](uint32_t x, int64_t v) { return trace_.events[x].ts < v; });
  if (it == sorted_.begin() + en) return -1;
  return *it;
}

std::vector<uint32_t> TraceBuilder::FlowPointOrder() const {
  std::vector<uint32_t> order(trace_.flow_points.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto id_less = [](const IdValue& a, const IdValue& b) {
    if (a.is_text != b.is_text) return a.is_text < b.is_text;
    return a.is_text ? a.text < b.text : a.i < b.i;
  };
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const FlowPoint& a = trace_.flow_points[x];
    const FlowPoint& b = trace_.flow_points[y];
    if (a.cat != b.cat) return a.cat < b.cat;
    if (!(a.id == b.id)) return id_less(a.id, b.id);
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.order < b.order;
  });
  return order;
}

void TraceBuilder::BindFlows(const std::vector<uint32_t>& order) {
  // Each point's event (two threads taking chunks of points in turn: the searches only read).
  std::vector<int64_t> bound(trace_.flow_points.size(), -1);
  std::array<int64_t, 2> starts_unbound{}, ends_unbound{};
  OnTwoThreads(trace_.flow_points.size(), size_t{1} << 13, [&](size_t from, size_t to, int part) {
    for (size_t i = from; i < to; ++i) {
      const FlowPoint& p = trace_.flow_points[i];
      if (p.ts == kNullTs) continue;
      bool launch = p.cat != 0 && IsLaunchFlowCat(trace_.strings.Get(p.cat));
      if (p.ph == 'f' && !p.bp_enclosing) {
        bound[i] = NextSlice(p.thread, p.ts);
      } else {
        bound[i] = Enclosing(p.thread, p.ts, launch ? &p.id : nullptr);
      }
      if (bound[i] < 0) ++(p.ph == 's' ? starts_unbound : ends_unbound)[part];
    }
  });
  if (int64_t k = starts_unbound[0] + starts_unbound[1]) trace_.stats.Add(StatId::flow_starts_unbound, k);
  if (int64_t k = ends_unbound[0] + ends_unbound[1]) trace_.stats.Add(StatId::flow_ends_unbound, k);
  trace_.flow_rows.clear();
  for (size_t g = 0; g < order.size();) {
    size_t h = g;
    const FlowPoint& first = trace_.flow_points[order[g]];
    while (h < order.size() && trace_.flow_points[order[h]].cat == first.cat && trace_.flow_points[order[h]].id == first.id) ++h;
    int32_t src = -1;        // current start point
    bool src_used = false;
    bool any_start = false, any_end = false;
    for (size_t k = g; k < h; ++k) {
      uint32_t pi = order[k];
      const FlowPoint& p = trace_.flow_points[pi];
      if (p.ph == 's') {
        if (src >= 0 && !src_used) trace_.flow_rows.push_back({bound[src], -1, src, -1});
        src = static_cast<int32_t>(pi);
        src_used = false;
        any_start = true;
      } else {
        any_end = true;
        trace_.flow_rows.push_back({src >= 0 ? bound[src] : -1, bound[pi], src, static_cast<int32_t>(pi)});
        if (src >= 0) src_used = true;
        if (p.ph == 't') {
          src = static_cast<int32_t>(pi);
          src_used = false;
        }
      }
    }
    if (src >= 0 && !src_used && trace_.flow_points[src].ph == 's') trace_.flow_rows.push_back({bound[src], -1, src, -1});
    if (any_start && !any_end) trace_.stats.Add(StatId::flow_starts_without_end);
    if (any_end && !any_start) trace_.stats.Add(StatId::flow_ends_without_start);
    g = h;
  }
}

}  // namespace tracesql
