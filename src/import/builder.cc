#include "import/builder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <tuple>

#include "import/row_writer.h"
#include "tracesql/error.h"
#include "util/channel.h"

namespace tracesql {

// ---------------------------------------------------------------------------------------------
// Small helpers

uint64_t StringIdMap::Hash(std::string_view s) {
  // 8 bytes at a time, multiply-xorshift mixed; the tail read as one overlapping word.
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
  };
  uint64_t w = 0;
  if (n >= 8) {
    for (; n > 8; p += 8, n -= 8) {
      std::memcpy(&w, p, 8);
      mix(w);
    }
    std::memcpy(&w, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    w = uint64_t{a} << 32 | b;
  } else if (n > 0) {
    w = uint64_t{static_cast<unsigned char>(p[0])} << 16 | uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
        static_cast<unsigned char>(p[n - 1]);
  }
  mix(w);
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 32);
}

uint32_t StringIdMap::Find(std::string_view s, uint64_t h) const {
  if (slots_.empty()) return 0;
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == 0) return 0;
    if (slot.hash == h && slot.size == s.size() && (s.empty() || std::memcmp(slot.data, s.data(), s.size()) == 0)) {
      return slot.id;  // (memcmp must not see the null data of an empty view)
    }
  }
}

void StringIdMap::Insert(std::string_view s, uint64_t h, uint32_t id) {
  if (2 * (used_ + 1) > slots_.size()) Grow();  // at most half full
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].id != 0) i = (i + 1) & mask;
  slots_[i] = {h, s.data(), static_cast<uint32_t>(s.size()), id};
  ++used_;
}

void StringIdMap::Grow() {
  std::vector<Slot> slots(std::max<size_t>(256, slots_.size() * 2));
  const size_t mask = slots.size() - 1;
  for (const Slot& slot : slots_) {
    if (slot.id == 0) continue;
    size_t i = slot.hash & mask;
    while (slots[i].id != 0) i = (i + 1) & mask;
    slots[i] = slot;
  }
  slots_.swap(slots);
}

uint32_t Interner::Intern(std::string_view s) {
  return map_.FindOrAdd(s, [&] {
    views_.push_back(storage_.emplace_back(s));
    return std::pair{views_.back(), static_cast<uint32_t>(views_.size() - 1)};
  });
}

uint32_t StackInterner::Intern(uint32_t parent, uint32_t name, uint32_t cat, int depth) {
  if (2 * (nodes_.size() + 1) > slots_.size()) Grow();  // at most half full
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(parent, name, cat) & mask;; i = (i + 1) & mask) {
    uint32_t id = slots_[i];
    if (id == 0) {
      nodes_.push_back({parent, name, cat, depth});
      cpu_total_.push_back(0);
      cpu_slices_.push_back(0);
      slots_[i] = static_cast<uint32_t>(nodes_.size());
      return slots_[i];
    }
    const Node& n = nodes_[id - 1];
    if (n.parent == parent && n.name == name && n.cat == cat) return id;
  }
}

void StackInterner::Grow() {
  std::vector<uint32_t> slots(std::max<size_t>(1024, slots_.size() * 2), 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 1; id <= nodes_.size(); ++id) {
    const Node& n = nodes_[id - 1];
    size_t i = Hash(n.parent, n.name, n.cat) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id;
  }
  slots_.swap(slots);
}

void StackInterner::Write(ImportPages& pages, const Interner& strings) const {
  size_t n = nodes_.size();
  // cpu_self_ns: summed duration of the host slices on the path minus that of the paths directly
  // under it that have host slices, clipped at 0 (the flamegraph's self time over all traces).
  std::vector<int64_t> child_total(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (cpu_slices_[i] && nodes_[i].parent) child_total[nodes_[i].parent - 1] += cpu_total_[i];
  }
  // merged_id: the first path with the same names from the root, ProfilerStep#N read as
  // 'ProfilerStep#*' and a missing name as '?' (how the flamegraph folds steps together). Parents
  // are interned before their children, so a parent's merged id is known first.
  std::vector<uint32_t> merged(n, 0);
  std::unordered_map<std::string_view, uint32_t> name_code;
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, uint32_t>& k) const {
      uint64_t h = (static_cast<uint64_t>(k.first) * 0x9E3779B97F4A7C15ull) ^ k.second;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::pair<uint32_t, uint32_t>, uint32_t, PairHash> first;
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    std::string_view name = nd.name ? strings.Get(nd.name) : std::string_view("?");
    if (name.starts_with("ProfilerStep#")) name = "ProfilerStep#*";
    uint32_t code = name_code.emplace(name, static_cast<uint32_t>(name_code.size())).first->second;
    uint32_t parent = nd.parent ? merged[nd.parent - 1] : 0;
    merged[i] = first.emplace(std::make_pair(parent, code), static_cast<uint32_t>(i + 1)).first->second;
  }
  RowWriter rows(pages, "stacks (id, parent_id, depth, name, cat, merged_id, cpu_self_ns)", 7);
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    rows.Int(static_cast<int64_t>(i) + 1).Opt(nd.parent ? nd.parent : kNullTs).Int(nd.depth);
    if (nd.name) rows.Text(strings.Get(nd.name)); else rows.Null();
    if (nd.cat) rows.Text(strings.Get(nd.cat)); else rows.Null();
    rows.Int(merged[i]).Opt(cpu_slices_[i] ? std::max<int64_t>(cpu_total_[i] - child_total[i], 0) : kNullTs);
    rows.EndRow();
  }
}

uint32_t ArgShapes::Intern(std::string_view sig) {
  if (last_id_ && sig == last_sig_) return last_id_;
  const uint32_t id = map_.FindOrAdd(sig, [&] {
    return std::pair{std::string_view(sigs_.emplace_back(sig)), static_cast<uint32_t>(sigs_.size())};
  });
  last_sig_ = sigs_[id - 1];
  last_id_ = id;
  return id;
}

uint32_t ArgShapes::Concat(uint32_t a, uint32_t b) {
  std::string sig = a ? sigs_[a - 1] : std::string();
  if (b) sig += sigs_[b - 1];
  return Intern(sig);
}

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: out += fmt::format("\\u{:04x}", u);
      }
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

namespace {

// Runs work on a thread of its own beside the caller's; Join() waits for it and rethrows its
// error. Joined on destruction too, so that an error on the caller's thread unwinds after it.
class Beside {
 public:
  explicit Beside(std::function<void()> work)
      : thread_([this, work = std::move(work)] {
          try {
            work();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~Beside() {
    if (thread_.joinable()) thread_.join();
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  void Join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;  // last: started once error_ exists
};

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

// ---------------------------------------------------------------------------------------------
// Collecting

uint32_t InputShapes::Intern(bool has_dims, std::string_view dims, bool has_types, std::string_view types) {
  key_.clear();
  key_.push_back(static_cast<char>((has_dims ? 1 : 0) | (has_types ? 2 : 0)));
  key_.append(dims);
  key_.push_back('\0');
  key_.append(types);
  return map_.FindOrAdd(key_, [&] {
    shapes_.push_back({has_dims, has_types, std::string(dims), std::string(types)});
    return std::pair{std::string_view(keys_.emplace_back(key_)), static_cast<uint32_t>(shapes_.size())};
  });
}

TraceBuilder::TraceBuilder(std::string path, const std::string& spill_dir, Interner& strings, StackInterner& stacks,
                           ArgShapes& shapes, InputShapes& input_shapes)
    : path_(std::move(path)), strings_(strings), stacks_(stacks), shapes_(shapes), input_shapes_(input_shapes),
      spill_dir_(spill_dir) {
  SpillFile(kKindCpuOp);  // fail early if the directory cannot take temporary files
}

TraceBuilder::~TraceBuilder() {
  for (FILE* f : spill_) {
    if (f) std::fclose(f);
  }
}

FILE* TraceBuilder::SpillFile(int file) {
  if (spill_[file]) return spill_[file];
  // A temporary file next to the database: never visible, gone when closed.
  int fd = btree::OpenScratch(spill_dir_, "spill", spill_dir_);
  FILE* f = fdopen(fd, "w+b");
  if (!f) {
    close(fd);
    Errorf("{}: cannot open a temporary file: {}", spill_dir_, std::strerror(errno));
  }
  setvbuf(f, nullptr, _IOFBF, 256 << 10);  // one buffer per kind
  spill_[file] = f;
  return f;
}

uint64_t TraceBuilder::Spill(int file, std::string_view text) {
  FILE* f = SpillFile(file);
  uint64_t off = spill_size_[file];
  if (fwrite_unlocked(text.data(), 1, text.size(), f) != text.size()) {
    Errorf("{}: cannot write temporary data: {}", path_, std::strerror(errno));
  }
  spill_size_[file] += text.size();
  return off;
}

// The kind of an event, from its category (cached per category string) and, for [memory] instants
// and the ProfilerStep#N that 2020-21 traces write as Operator, its name. Mirrors the category views.
uint8_t TraceBuilder::KindOf(const EventRec& r, std::string_view name) {
  std::string_view ph = strings_.Get(r.ph);
  if (IsMemoryInstant(ph, name)) return kKindMemory;
  if (r.cat == 0) return kKindOther;
  if (r.cat >= cat_kind_.size()) cat_kind_.resize(strings_.size() + 64, 0);
  uint8_t& cached = cat_kind_[r.cat];
  if (cached == 0) {
    std::string_view cat = strings_.Get(r.cat);
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
  if (k == kKindCpuOp && strings_.Get(r.cat) == "Operator" && name.substr(0, 13) == "ProfilerStep#") return kKindOther;
  return k;
}

void TraceBuilder::Reserve(size_t events) {
  events_.reserve(events);
  pool_.reserve(events * 3);
}

uint32_t TraceBuilder::ProcessFor(const IdValue& pid) {
  std::string key = IdKey(pid);
  auto it = process_map_.find(key);
  if (it != process_map_.end()) return it->second;
  uint32_t idx = static_cast<uint32_t>(processes_.size());
  ProcessRec p;
  p.pid = pid;
  processes_.push_back(p);
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
    idx = static_cast<uint32_t>(threads_.size());
    ThreadRec t;
    t.process = ProcessFor(pid);
    t.pid = pid;
    t.tid = tid;
    threads_.push_back(std::move(t));
    thread_map_.emplace(std::move(key), idx);
  }
  last_pid_ = pid;
  last_tid_ = tid;
  last_thread_ = idx;
  return idx;
}

void TraceBuilder::HandleMetadata(RawEvent& e) {
  std::string seen_key = std::string(e.name) + '\0' + IdKey(e.pid) + IdKey(e.tid);
  if (meta_seen_[seen_key]++ > 0) stats_.Add(StatId::duplicate_metadata);
  if (e.name == "process_name" || e.name == "process_labels" || e.name == "process_sort_index") {
    ProcessRec& p = processes_[ProcessFor(e.pid)];
    if (e.name == "process_name") {
      p.name = strings_.Intern(e.meta_name);
    } else if (e.name == "process_labels") {
      p.labels = strings_.Intern(e.meta_name);
    } else if (e.has_meta_sort) {
      p.has_sort = true;
      p.sort_index = e.meta_sort;
    }
  } else if (e.name == "thread_name" || e.name == "thread_sort_index") {
    ThreadRec& t = threads_[ThreadFor(e.pid, e.tid)];
    if (e.name == "thread_name") {
      t.name = strings_.Intern(e.meta_name);
    } else if (e.has_meta_sort) {
      t.has_sort = true;
      t.sort_index = e.meta_sort;
    }
  } else {
    stats_.Add(StatId::unknown_metadata);
  }
}

void TraceBuilder::AddEvent(RawEvent& e, int64_t /*json_offset*/) {
  std::string_view ph = e.ph;
  if (Eq(ph, "M")) {
    HandleMetadata(e);
    return;
  }
  if (Eq(ph, "s") || Eq(ph, "t") || Eq(ph, "f")) {
    stats_.Add(StatId::flow_points);
    if (!e.has_id) {
      stats_.Add(StatId::flows_without_id);
      return;
    }
    FlowPoint fp;
    fp.ts = e.ts;
    fp.thread = ThreadFor(e.pid, e.tid);
    fp.cat = e.has_cat ? strings_.Intern(e.cat) : 0;
    fp.name = strings_.Intern(e.name);
    fp.order = static_cast<uint32_t>(flow_points_.size());
    fp.id = e.id;
    fp.ph = ph[0];
    fp.bp_enclosing = e.bp_enclosing;
    flow_points_.push_back(fp);
    return;
  }
  uint32_t thread = ThreadFor(e.pid, e.tid);
  ThreadRec& t = threads_[thread];
  if (Eq(ph, "E")) {
    if (!t.open_begins.empty()) {
      uint32_t b = t.open_begins.back();
      t.open_begins.pop_back();
      EventRec& begin = events_[b];
      if (begin.ts != kNullTs && e.ts != kNullTs) begin.dur = e.ts - begin.ts;
      if (e.args.size() > 2) {
        uint64_t off = Spill(kEndSpill, e.args);
        end_args_.push_back({b, off, static_cast<uint32_t>(e.args.size()), shapes_.Intern(e.arg_sig)});
      }
      return;
    }
    stats_.Add(StatId::unmatched_end);  // an end without a begin marks no slice: counted, not stored
    return;
  }
  EventRec r;
  r.ts = e.ts;
  r.dur = e.dur;
  r.thread = thread;
  r.name = strings_.Intern(e.name);
  r.cat = e.has_cat ? strings_.InternCached(e.cat, last_cat_) : 0;
  r.ph = strings_.InternCached(ph.empty() ? std::string_view("?") : ph, last_ph_);
  r.kind = KindOf(r, e.name);
  ++kind_count_[r.kind];
  if (!e.args.empty()) {
    r.args_off = Spill(r.kind, e.args);
    r.args_len = static_cast<uint32_t>(e.args.size());
    r.shape = shapes_.Intern(e.arg_sig);
  }
  if (e.has_dims || e.has_types) {
    e.promoted[kInputShape] = input_shapes_.Intern(e.has_dims, e.dims, e.has_types, e.types);
    e.mask |= static_cast<uint16_t>(1u << kInputShape);
  }
  r.mask = e.mask;
  r.promo = static_cast<uint32_t>(pool_.size());
  for (int k = 0; k < kPromotedCount; ++k) {
    if (e.mask & (1u << k)) pool_.push_back(e.promoted[k]);
  }
  if (Eq(ph, "X")) {
    if (r.dur == kNullTs) stats_.Add(StatId::slices_without_dur);
  } else if (Eq(ph, "B")) {
    t.open_begins.push_back(static_cast<uint32_t>(events_.size()));
  } else if (!Eq(ph, "i") && !Eq(ph, "I") && !Eq(ph, "C")) {
    stats_.Add(ph.empty() ? StatId::missing_phase : StatId::unknown_phases);
  }
  if (r.ts == kNullTs) stats_.Add(StatId::events_without_ts);
  if (r.dur != kNullTs && r.dur < 0) stats_.Add(StatId::negative_durations);
  // Track kind.
  if (r.cat >= cat_class_.size()) cat_class_.resize(strings_.size() + 64, 0);
  uint8_t cls;
  if (r.cat == 0) {
    cls = Eq(e.name, "[memory]") ? kClassCpu : kClassOther;  // 2021 [memory] instants have no cat
  } else {
    uint8_t& cached = cat_class_[r.cat];
    if (cached == 0) cached = ClassifyCat(strings_.Get(r.cat));
    cls = cached;
  }
  if (cls == kClassGpu) ++t.gpu_events;
  if (cls == kClassCpu) ++t.cpu_events;
  ++t.events;
  events_.push_back(r);
}

// ---------------------------------------------------------------------------------------------
// Nesting, stacks and flows

bool LikeProfilerStep(std::string_view name) {
  static constexpr std::string_view kStep = "profilerstep#";
  return name.size() >= kStep.size() &&
         std::equal(kStep.begin(), kStep.end(), name.begin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

bool TraceBuilder::Contains(uint32_t ev, int64_t t) const {
  const EventRec& s = events_[ev];
  return s.ts <= t && (t < s.ts + s.dur || t == s.ts);
}

void TraceBuilder::Finish() {
  for (auto& t : threads_) {
    if (!t.open_begins.empty()) stats_.Add(StatId::unmatched_begin, static_cast<int64_t>(t.open_begins.size()));
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
  // The per-track slice order served nesting and flow binding only: free it before Write().
  std::vector<uint32_t>().swap(sorted_);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(thread_slices_);
}

bool TraceBuilder::IsCpuOp(const EventRec& e) const {
  if (e.cat == 0) return false;
  std::string_view cat = strings_.Get(e.cat);
  if (cat != "cpu_op" && cat != "Operator") return false;
  // 2020-21 traces write the ProfilerStep#N annotation as an Operator: it is a step, not an op.
  return strings_.Get(e.name).substr(0, 13) != "ProfilerStep#";
}

void TraceBuilder::AssignSteps() {
  // ProfilerStep#N annotations on host threads, by start time.
  struct Step {
    int64_t ts, end, n;
  };
  std::vector<Step> steps;
  size_t n = events_.size();
  step_.assign(n, kNullTs);
  constexpr std::string_view kPrefix = "ProfilerStep#";
  // Every category was classified (and cached) when its first event was added.
  auto cls = [&](const EventRec& e) { return e.cat == 0 ? kClassOther : cat_class_[e.cat]; };
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = events_[i];
    if (e.ts == kNullTs || e.dur == kNullTs || e.dur < 0 || cls(e) != kClassCpu) continue;
    std::string_view name = strings_.Get(e.name);
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view num = name.substr(kPrefix.size());
    int64_t v = 0;
    bool ok = !num.empty() && num.size() < 18;
    for (char ch : num) ok = ok && ch >= '0' && ch <= '9', v = v * 10 + (ch - '0');
    if (ok) steps.push_back({e.ts, e.ts + e.dur, v});
  }
  if (steps.empty()) return;
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  auto step_at = [&](int64_t t) -> int64_t {
    auto it = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const Step& s) { return v < s.ts; });
    if (it == steps.begin()) return kNullTs;
    --it;
    return t < it->end ? it->n : kNullTs;
  };
  // Host events: the step whose interval contains their start. Launch calls are remembered by
  // correlation so that GPU ops inherit the step of their launch.
  std::unordered_map<int64_t, int64_t> launch_step;
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = events_[i];
    if (e.ts == kNullTs || cls(e) == kClassGpu) continue;
    step_[i] = step_at(e.ts);
    int64_t corr = PromotedValue(e, kCorrelation);
    if (corr != kNullTs && step_[i] != kNullTs) launch_step.emplace(corr, step_[i]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = events_[i];
    if (cls(e) != kClassGpu) continue;
    int64_t corr = PromotedValue(e, kCorrelation);
    if (corr == kNullTs) continue;
    auto it = launch_step.find(corr);
    if (it != launch_step.end()) step_[i] = it->second;
  }
}

void TraceBuilder::ComputeNesting() {
  size_t n = events_.size();
  parent_.assign(n, 0);
  depth_.assign(n, -1);
  stack_.assign(n, 0);
  op_.assign(n, 0);
  top_op_.assign(n, 0);
  // Bucket slices and other timed events by thread.
  std::vector<uint32_t> slice_count(threads_.size() + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = events_[i];
    if (e.ts == kNullTs) continue;
    min_ts_ = std::min(min_ts_, e.ts);
    max_end_ = std::max(max_end_, e.ts + (e.dur != kNullTs && e.dur > 0 ? e.dur : 0));
    if (e.dur != kNullTs && e.dur >= 0) ++slice_count[e.thread + 1];
  }
  for (size_t k = 1; k < slice_count.size(); ++k) slice_count[k] += slice_count[k - 1];
  sorted_.assign(slice_count.back(), 0);
  std::vector<uint32_t> fill(slice_count.begin(), slice_count.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    const EventRec& e = events_[i];
    if (e.ts != kNullTs && e.dur != kNullTs && e.dur >= 0) sorted_[fill[e.thread]++] = i;
  }
  thread_slices_.resize(threads_.size());
  for (size_t t = 0; t < threads_.size(); ++t) thread_slices_[t] = {slice_count[t], slice_count[t + 1]};

  // The tracks are independent: two threads take them in turn, each sorting a track's slices and
  // walking them with a stack (parent, depth, enclosing op). The call paths are interned after,
  // on one thread, in the order one thread would have met them (ids stay the same).
  struct SliceKey {
    int64_t ts, neg_dur;  // dur >= 0 here: no overflow
    uint32_t index;
    bool operator<(const SliceKey& o) const {
      return ts != o.ts ? ts < o.ts : neg_dur != o.neg_dur ? neg_dur < o.neg_dur : index < o.index;
    }
  };
  std::array<std::vector<SliceKey>, 2> keys;    // per thread: a track's slices being sorted,
  std::array<std::vector<uint32_t>, 2> opened;  // the slices open at the one being walked,
  std::array<int64_t, 2> overlapped{};          // the overlapping slices met
  OnTwoThreads(threads_.size(), 1, [&](size_t t, size_t, int part) {
    auto [b, en] = thread_slices_[t];
    std::vector<SliceKey>& track = keys[part];
    std::vector<uint32_t>& stack = opened[part];
    // By (ts, longest first, file order), sorting the keys themselves: a comparator reaching into
    // events_ for each comparison cost more than the rest of the nesting.
    track.resize(en - b);
    for (uint32_t k = b; k < en; ++k) {
      const EventRec& a = events_[sorted_[k]];
      track[k - b] = {a.ts, -a.dur, sorted_[k]};
    }
    std::sort(track.begin(), track.end());
    for (uint32_t k = b; k < en; ++k) sorted_[k] = track[k - b].index;
    stack.clear();
    for (uint32_t k = b; k < en; ++k) {
      uint32_t cur = sorted_[k];
      const EventRec& c = events_[cur];
      int64_t c_end = c.ts + c.dur;
      bool overlap = false;
      while (!stack.empty()) {
        const EventRec& p = events_[stack.back()];
        int64_t p_end = p.ts + p.dur;
        if (p.ts <= c.ts && c_end <= p_end && (c.ts < p_end || p.dur == 0)) break;
        if (c.ts < p_end) overlap = true;
        stack.pop_back();
      }
      if (overlap) ++overlapped[part];
      uint32_t parent_op = 0, parent_top = 0;
      if (!stack.empty()) {
        parent_[cur] = stack.back() + 1;
        parent_op = op_[stack.back()];
        parent_top = top_op_[stack.back()];
      }
      bool is_op = IsCpuOp(c);
      op_[cur] = is_op ? cur + 1 : parent_op;
      top_op_[cur] = parent_top ? parent_top : (is_op ? cur + 1 : 0);
      depth_[cur] = static_cast<int32_t>(stack.size());
      stack.push_back(cur);
    }
  });
  const int64_t overlaps = overlapped[0] + overlapped[1];
  if (overlaps > 0) stats_.Add(StatId::overlapping_slices, overlaps);
  auto intern = [&](uint32_t i) {
    const EventRec& e = events_[i];
    stack_[i] = stacks_.Intern(parent_[i] ? stack_[parent_[i] - 1] : 0, e.name, e.cat, depth_[i]);
  };
  // Instants and other non-slice events: parent = innermost slice containing ts (two threads
  // taking chunks of events in turn), then their paths interned in event order. The slices' paths
  // are interned on this thread first, while the second thread starts on the instants: interning
  // reads and writes only slices' entries, the instants' search only instants' (and reads the
  // slices' parent_, op_ and top_op_, final since the walk above).
  auto is_instant = [&](uint32_t i) {
    const EventRec& e = events_[i];
    return e.ts != kNullTs && (e.dur == kNullTs || e.dur < 0);
  };
  auto intern_slices = [&] {
    for (size_t t = 0; t < threads_.size(); ++t) {
      for (uint32_t k = thread_slices_[t].first; k < thread_slices_[t].second; ++k) intern(sorted_[k]);  // parents first
    }
  };
  OnTwoThreads(n, size_t{1} << 14, [&](size_t from, size_t to, int) {
    for (auto i = static_cast<uint32_t>(from); i < to; ++i) {
      if (!is_instant(i)) continue;
      int64_t p = Enclosing(events_[i].thread, events_[i].ts, nullptr);
      if (p >= 0) {
        parent_[i] = static_cast<uint32_t>(p) + 1;
        depth_[i] = depth_[p] + 1;
        op_[i] = op_[p];
        top_op_[i] = top_op_[p];
      } else {
        depth_[i] = 0;
      }
    }
  }, intern_slices);
  for (uint32_t i = 0; i < n; ++i) {
    if (is_instant(i)) intern(i);
  }
}

int64_t TraceBuilder::PromotedValue(const EventRec& e, int which) const {
  if (!(e.mask & (1u << which))) return kNullTs;
  int idx = __builtin_popcount(static_cast<unsigned>(e.mask) & ((1u << which) - 1));
  return pool_[e.promo + static_cast<uint32_t>(idx)];
}

int64_t TraceBuilder::Enclosing(uint32_t thread, int64_t t, const IdValue* correlation) const {
  auto [b, en] = thread_slices_[thread];
  if (b == en) return -1;
  // Last slice (in sort order) starting at or before t.
  auto it = std::upper_bound(sorted_.begin() + b, sorted_.begin() + en, t,
                             [&](int64_t v, uint32_t x) { return v < events_[x].ts; });
  if (it == sorted_.begin() + b) return -1;
  uint32_t cand = *(it - 1);
  int64_t found = -1;
  for (int64_t cur = cand; cur >= 0; cur = static_cast<int64_t>(parent_[cur]) - 1) {
    if (Contains(static_cast<uint32_t>(cur), t)) {
      found = cur;
      break;
    }
  }
  if (found < 0 || correlation == nullptr || correlation->is_text) return found;
  // Launch flows: prefer the containing slice that carries the flow's correlation id.
  if (PromotedValue(events_[found], kCorrelation) == correlation->i) return found;
  for (int64_t cur = static_cast<int64_t>(parent_[found]) - 1; cur >= 0; cur = static_cast<int64_t>(parent_[cur]) - 1) {
    if (PromotedValue(events_[cur], kCorrelation) == correlation->i) return cur;
  }
  for (auto j = it; j != sorted_.begin() + b;) {
    --j;
    const EventRec& s = events_[*j];
    if (s.ts != t) break;
    if (PromotedValue(s, kCorrelation) == correlation->i) return *j;
  }
  return found;
}

int64_t TraceBuilder::NextSlice(uint32_t thread, int64_t t) const {
  auto [b, en] = thread_slices_[thread];
  auto it = std::lower_bound(sorted_.begin() + b, sorted_.begin() + en, t,
                             [&](uint32_t x, int64_t v) { return events_[x].ts < v; });
  if (it == sorted_.begin() + en) return -1;
  return *it;
}

std::vector<uint32_t> TraceBuilder::FlowPointOrder() const {
  std::vector<uint32_t> order(flow_points_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto id_less = [](const IdValue& a, const IdValue& b) {
    if (a.is_text != b.is_text) return a.is_text < b.is_text;
    return a.is_text ? a.text < b.text : a.i < b.i;
  };
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const FlowPoint& a = flow_points_[x];
    const FlowPoint& b = flow_points_[y];
    if (a.cat != b.cat) return a.cat < b.cat;
    if (!(a.id == b.id)) return id_less(a.id, b.id);
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.order < b.order;
  });
  return order;
}

void TraceBuilder::BindFlows(const std::vector<uint32_t>& order) {
  // Each point's event (two threads taking chunks of points in turn: the searches only read).
  std::vector<int64_t> bound(flow_points_.size(), -1);
  std::array<int64_t, 2> starts_unbound{}, ends_unbound{};
  OnTwoThreads(flow_points_.size(), size_t{1} << 13, [&](size_t from, size_t to, int part) {
    for (size_t i = from; i < to; ++i) {
      const FlowPoint& p = flow_points_[i];
      if (p.ts == kNullTs) continue;
      bool launch = p.cat != 0 && IsLaunchFlowCat(strings_.Get(p.cat));
      if (p.ph == 'f' && !p.bp_enclosing) {
        bound[i] = NextSlice(p.thread, p.ts);
      } else {
        bound[i] = Enclosing(p.thread, p.ts, launch ? &p.id : nullptr);
      }
      if (bound[i] < 0) ++(p.ph == 's' ? starts_unbound : ends_unbound)[part];
    }
  });
  if (int64_t k = starts_unbound[0] + starts_unbound[1]) stats_.Add(StatId::flow_starts_unbound, k);
  if (int64_t k = ends_unbound[0] + ends_unbound[1]) stats_.Add(StatId::flow_ends_unbound, k);
  flow_rows_.clear();
  for (size_t g = 0; g < order.size();) {
    size_t h = g;
    const FlowPoint& first = flow_points_[order[g]];
    while (h < order.size() && flow_points_[order[h]].cat == first.cat && flow_points_[order[h]].id == first.id) ++h;
    int32_t src = -1;        // current start point
    bool src_used = false;
    bool any_start = false, any_end = false;
    for (size_t k = g; k < h; ++k) {
      uint32_t pi = order[k];
      const FlowPoint& p = flow_points_[pi];
      if (p.ph == 's') {
        if (src >= 0 && !src_used) flow_rows_.push_back({bound[src], -1, src, -1});
        src = static_cast<int32_t>(pi);
        src_used = false;
        any_start = true;
      } else {
        any_end = true;
        flow_rows_.push_back({src >= 0 ? bound[src] : -1, bound[pi], src, static_cast<int32_t>(pi)});
        if (src >= 0) src_used = true;
        if (p.ph == 't') {
          src = static_cast<int32_t>(pi);
          src_used = false;
        }
      }
    }
    if (src >= 0 && !src_used && flow_points_[src].ph == 's') flow_rows_.push_back({bound[src], -1, src, -1});
    if (any_start && !any_end) stats_.Add(StatId::flow_starts_without_end);
    if (any_end && !any_start) stats_.Add(StatId::flow_ends_without_start);
    g = h;
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

namespace {

void BindId(Stmt& s, int i, const IdValue& v, const Interner& strings) {
  if (v.is_text) {
    s.BindText(i, strings.Get(v.text));
  } else {
    s.BindInt(i, v.i);
  }
}

void BindOptText(Stmt& s, int i, uint32_t id, const Interner& strings) {
  if (id == 0) {
    s.BindNull(i);
  } else {
    s.BindText(i, strings.Get(id));
  }
}

}  // namespace

int64_t TraceBuilder::WriteFlows(ImportPages& out, const ComputedIds& w, int64_t flow_base) {
  RowWriter rows(out,
                 "flows (id, trace_id, cat, name, flow_id, src_event_id, dst_event_id, src_ts, dst_ts, src_thread_id,"
                 " dst_thread_id)",
                 11);
  const std::vector<uint32_t>& new_id = *w.new_id;
  auto text = [&](uint32_t id) -> RowWriter& { return id ? rows.Text(strings_.Get(id)) : rows.Null(); };
  int64_t id = flow_base;
  for (const FlowRow& r : flow_rows_) {
    const FlowPoint& any = AnyPoint(r);
    const FlowPoint* src = r.src_point >= 0 ? &flow_points_[r.src_point] : nullptr;
    const FlowPoint* dst = r.dst_point >= 0 ? &flow_points_[r.dst_point] : nullptr;
    rows.Int(++id).Int(w.trace_id);
    text(any.cat);
    text(any.name);
    if (any.id.is_text) rows.Text(strings_.Get(any.id.text)); else rows.Int(any.id.i);
    rows.Opt(r.src >= 0 ? w.event_base + new_id[r.src] : kNullTs);
    rows.Opt(r.dst >= 0 ? w.event_base + new_id[r.dst] : kNullTs);
    rows.Opt(src && src->ts != kNullTs ? src->ts + w.base : kNullTs);
    rows.Opt(dst && dst->ts != kNullTs ? dst->ts + w.base : kNullTs);
    rows.Opt(src ? w.thread_base + src->thread + 1 : kNullTs);
    rows.Opt(dst ? w.thread_base + dst->thread + 1 : kNullTs);
    rows.EndRow();
  }
  return id - flow_base;
}

ImportPages::ImportPages(Db& db, const std::string& dir, const std::string& db_label, const ComputedTables& computed)
    : spill(dir, static_cast<uint32_t>(db.QueryInt("PRAGMA page_size")), db_label),
      aux_spill(spill),
      runs(dir, db_label),
      aux_runs(dir, db_label) {
  std::string columns;
  Stmt s = db.Prepare("SELECT name FROM pragma_table_info('events') ORDER BY cid");
  while (s.Step()) columns += (columns.empty() ? "" : ", ") + s.ColumnText(0);
  if (columns != kColumns) Errorf("internal error: the events table's columns are not those its records are written for");
  tables.push_back(std::make_unique<btree::PagedTable>(db, "memory_args", spill, runs));
  tables.push_back(std::make_unique<btree::PagedTable>(db, "flows", spill, runs));
  tables.push_back(std::make_unique<btree::PagedTable>(db, "stacks", aux_spill, aux_runs));
  for (const char* t : computed.Tables()) tables.push_back(std::make_unique<btree::PagedTable>(db, t, aux_spill, aux_runs));
}

btree::PagedTable& ImportPages::Table(std::string_view name) {
  for (auto& t : tables) {
    if (t->name() == name) return *t;
  }
  Errorf("internal error: table {} is not written as pages", name);
}

void ImportPages::FlushAux() {
  for (size_t k = kMainTables; k < tables.size(); ++k) tables[k]->FlushRuns();
}

// The events' index keys, 128 bits each compared as (hi, lo): events_thread_ts (thread_id, ts, id)
// with ts biased so that 0 is below every value, for NULL; events_trace_correlation
// (correlation, id) within a trace. Appended as the rows are encoded, in 1 MB pieces to a scratch
// file (their 16 bytes an event would otherwise add to the import's peak memory), sorted when the
// pages are placed, trace by trace: thread and trace ids grow from trace to trace, so each
// trace's sorted entries follow the last's.
namespace {
constexpr uint64_t kSignBit = uint64_t{1} << 63;  // flipped: signed order as unsigned
}  // namespace

void ImportPages::AddIndexKeys(int64_t thread_id, int64_t ts, int64_t id, const int64_t* correlation) {
  if (thread_id < 0 || thread_id > UINT32_MAX || id < 0 || id > UINT32_MAX) {
    Errorf("internal error: event id {} or thread id {} beyond 32 bits", id, thread_id);
  }
  uint64_t t = ts == kNullTs ? 0 : static_cast<uint64_t>(ts) ^ kSignBit;
  thread_keys_.push_back({static_cast<uint64_t>(thread_id) << 32 | t >> 32, t << 32 | static_cast<uint64_t>(id)});
  if (correlation) correlation_keys_.push_back({static_cast<uint64_t>(*correlation) ^ kSignBit, static_cast<uint64_t>(id)});
  if (thread_keys_.size() == kKeysPerPiece) SpillKeys(thread_keys_, thread_pieces_);
  if (correlation_keys_.size() == kKeysPerPiece) SpillKeys(correlation_keys_, correlation_pieces_);
}

void ImportPages::SpillKeys(std::vector<Key>& keys, std::vector<std::pair<uint64_t, uint64_t>>& pieces) {
  if (keys.empty()) return;
  std::string_view bytes(reinterpret_cast<const char*>(keys.data()), keys.size() * sizeof(Key));
  pieces.emplace_back(runs.Add(bytes), bytes.size());
  keys.clear();
}

void ImportPages::EndTrace(int64_t trace_id) {
  SpillKeys(thread_keys_, thread_pieces_);
  SpillKeys(correlation_keys_, correlation_pieces_);
  traces_.push_back({trace_id, thread_pieces_.size(), correlation_pieces_.size()});
}

void ImportPages::WriteIndexEntries() {
  btree::Record rec;
  std::vector<Key> keys;
  auto load = [&](const std::vector<std::pair<uint64_t, uint64_t>>& pieces, size_t from, size_t to) {
    keys.clear();
    for (size_t k = from; k < to; ++k) {
      size_t had = keys.size();
      keys.resize(had + pieces[k].second / sizeof(Key));
      runs.Read(keys.data() + had, pieces[k].second, pieces[k].first);
    }
    std::sort(keys.begin(), keys.end());
  };
  size_t thread_from = 0, correlation_from = 0;
  for (const TraceKeys& t : traces_) {
    load(thread_pieces_, thread_from, t.thread_pieces);
    for (const Key& k : keys) {
      uint64_t ts = k.hi << 32 | k.lo >> 32;
      rec.Clear();
      rec.Int(static_cast<int64_t>(k.hi >> 32));
      if (ts == 0) rec.Null(); else rec.Int(static_cast<int64_t>(ts ^ kSignBit));
      thread_ts.Append(rec.Int(static_cast<int64_t>(k.lo & 0xffffffffu)).Encode());
    }
    load(correlation_pieces_, correlation_from, t.correlation_pieces);
    for (const Key& k : keys) {
      rec.Clear();
      rec.Int(t.trace_id).Int(static_cast<int64_t>(k.hi ^ kSignBit));
      trace_correlation.Append(rec.Int(static_cast<int64_t>(k.lo)).Encode());
    }
    thread_from = t.thread_pieces;
    correlation_from = t.correlation_pieces;
  }
  traces_.clear();
}

void ImportPages::Place(Db& db, const std::string& path, const std::function<void()>& aux_first,
                        const std::function<Db()>& reopen) {
  uint32_t root_events = 0, root_thread_ts = 0, root_correlation = 0;
  bool other = db.QueryInt("SELECT count(*) FROM events") != 0;
  {
    Stmt s = db.Prepare("SELECT name, sql, rootpage FROM sqlite_schema WHERE tbl_name = 'events' AND rootpage > 0");
    while (s.Step()) {
      std::string name = s.ColumnText(0), sql = s.ColumnText(1);
      auto root = static_cast<uint32_t>(s.ColumnInt(2));
      if (name == "events") root_events = root;
      else if (name == "events_thread_ts" && sql == kThreadTs) root_thread_ts = root;
      else if (name == "events_trace_correlation" && sql == kTraceCorrelation) root_correlation = root;
      else other = true;
    }
  }
  if (other || !root_events || !root_thread_ts || !root_correlation) {
    Errorf("internal error: the events table or its indexes are not those its pages are written for");
  }
  for (auto& t : tables) {
    // SQLite wrote none of their rows, nor indexes other than those read when the table was set up.
    if (db.QueryInt(fmt::format("SELECT count(*) FROM \"{}\"", t->name())) != 0 ||
        db.QueryInt(fmt::format("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = '{}'", t->name())) !=
            static_cast<int64_t>(t->indexes())) {
      Errorf("internal error: table {} changed in the database while written as pages", t->name());
    }
  }
  // On a second thread, aux_first (rows of aux tables known only now), then the aux tables' index
  // runs are merged (into their own spill) while this one sorts the events' index keys.
  std::vector<std::pair<btree::TreeWriter*, uint32_t>> trees{
      {&events, root_events}, {&thread_ts, root_thread_ts}, {&trace_correlation, root_correlation}};
  std::vector<std::pair<btree::TreeWriter*, uint32_t>> aux_trees;
  Beside aux([&] {
    aux_first();
    for (size_t k = kMainTables; k < tables.size(); ++k) tables[k]->Finish(aux_trees);
  });
  WriteIndexEntries();
  for (size_t k = 0; k < kMainTables; ++k) tables[k]->Finish(trees);
  aux.Join();
  trees.insert(trees.end(), aux_trees.begin(), aux_trees.end());
  int64_t max_pages = db.QueryInt("PRAGMA max_page_count");
  db.Exec("COMMIT");
  db.Close();
  btree::PlaceTrees(path, {&spill, &aux_spill}, trees, max_pages);
  db = reopen();
}

WriteCounts TraceBuilder::Write(Db& db, ImportPages& pages, int64_t trace_id, const HeaderInfo& header,
                                const std::string& root_shape, int64_t file_bytes, int64_t json_bytes,
                                bool compressed, bool truncated, const ComputedTables& computed) {
  WriteCounts counts;
  int64_t base = header.has_base ? header.base_time_ns : 0;
  int64_t process_base = db.QueryInt("SELECT coalesce(max(id), 0) FROM processes");
  int64_t thread_base = db.QueryInt("SELECT coalesce(max(id), 0) FROM threads");
  int64_t event_base = pages.events.last_rowid();

  {
    Stmt s = db.Prepare(
        "INSERT INTO traces (id, path, rank, world_size, base_time_ns, start_ts, end_ts, event_count, metadata,"
        " file_bytes, json_bytes, compressed, root_shape, truncated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.BindInt(1, trace_id);
    s.BindText(2, path_);
    if (header.has_rank) s.BindInt(3, header.rank); else s.BindNull(3);
    if (header.has_world) s.BindInt(4, header.world_size); else s.BindNull(4);
    if (header.has_base) s.BindInt(5, header.base_time_ns); else s.BindNull(5);
    if (min_ts_ <= max_end_) {
      s.BindInt(6, min_ts_ + base);
      s.BindInt(7, max_end_ + base);
    } else {
      s.BindNull(6);
      s.BindNull(7);
    }
    s.BindInt(8, static_cast<int64_t>(events_.size()));
    s.BindText(9, header.metadata);
    s.BindInt(10, file_bytes);
    s.BindInt(11, json_bytes);
    s.BindInt(12, compressed ? 1 : 0);
    s.BindText(13, root_shape);
    s.BindInt(14, truncated ? 1 : 0);
    s.Run();
  }
  {
    Stmt s = db.Prepare(
        "INSERT INTO devices (trace_id, device, name, compute_major, compute_minor, total_memory, num_sms, properties)"
        " VALUES (?,?,?,?,?,?,?,?)");
    for (const auto& d : header.devices) {
      s.BindInt(1, trace_id);
      if (d.has_id) s.BindInt(2, d.id); else s.BindNull(2);
      if (d.name.empty()) s.BindNull(3); else s.BindText(3, d.name);
      if (d.has_major) s.BindInt(4, d.major); else s.BindNull(4);
      if (d.has_minor) s.BindInt(5, d.minor); else s.BindNull(5);
      if (d.has_mem) s.BindInt(6, d.mem); else s.BindNull(6);
      if (d.has_sms) s.BindInt(7, d.sms); else s.BindNull(7);
      s.BindText(8, d.properties);
      s.Run();
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO processes (id, trace_id, pid, name, labels, sort_index) VALUES (?,?,?,?,?,?)");
    for (size_t i = 0; i < processes_.size(); ++i) {
      const ProcessRec& p = processes_[i];
      s.BindInt(1, process_base + static_cast<int64_t>(i) + 1);
      s.BindInt(2, trace_id);
      BindId(s, 3, p.pid, strings_);
      BindOptText(s, 4, p.name, strings_);
      BindOptText(s, 5, p.labels, strings_);
      if (p.has_sort) s.BindInt(6, p.sort_index); else s.BindNull(6);
      s.Run();
    }
  }
  {
    Stmt s = db.Prepare(
        "INSERT INTO threads (id, trace_id, process_id, pid, tid, name, sort_index, kind, event_count)"
        " VALUES (?,?,?,?,?,?,?,?,?)");
    for (size_t i = 0; i < threads_.size(); ++i) {
      const ThreadRec& t = threads_[i];
      s.BindInt(1, thread_base + static_cast<int64_t>(i) + 1);
      s.BindInt(2, trace_id);
      s.BindInt(3, process_base + t.process + 1);
      BindId(s, 4, t.pid, strings_);
      BindId(s, 5, t.tid, strings_);
      BindOptText(s, 6, t.name, strings_);
      if (t.has_sort) s.BindInt(7, t.sort_index); else s.BindNull(7);
      const char* kind = t.cpu_events > 0 ? "cpu" : t.gpu_events > 0 ? "gpu" : "other";
      s.BindText(8, kind);
      s.BindInt(9, t.events);
      s.Run();
    }
  }
  // Events, grouped by kind (file order within a kind): new_id[i] is the id offset of events_[i].
  // Args are streamed back from each kind's spill file in order.
  size_t n_events = events_.size();
  std::vector<uint32_t> new_id(n_events);
  std::vector<uint32_t> order(n_events);  // event indices in write order (sorted_'s room, freed)
  {
    std::array<uint32_t, kKindCount + 1> start{};
    for (int k = 0; k < kKindCount; ++k) start[k + 1] = start[k] + kind_count_[k];
    for (uint32_t i = 0; i < n_events; ++i) {
      uint32_t pos = start[events_[i].kind]++;
      order[pos] = i;
      new_id[i] = pos + 1;
    }
  }
  auto id_of = [&](uint32_t index_plus_1) { return event_base + new_id[index_plus_1 - 1]; };
  // The computed analysis tables are made into pages on a second thread (their own spill) while
  // this one makes the flows' and the events'. The computed tables are made from the builder's
  // arrays (they need only the launch and fwdbwd flows of the flow points, taken here: this thread
  // frees the flow points once the flows are written). Both threads read the builder; the second
  // one writes only stats_'s views_by_sql and gpu_op_names, which this one does not touch until
  // the join.
  std::vector<std::pair<uint32_t, uint32_t>> launch_flows = LaunchFlows();
  bool has_fwdbwd = false;
  std::vector<std::pair<uint32_t, uint32_t>> fwdbwd = FwdBwdFlows(&has_fwdbwd);
  ComputedIds ids;
  static_cast<ComputedTables&>(ids) = computed;
  ids.trace_id = trace_id;
  ids.base = base;
  ids.event_base = event_base;
  ids.thread_base = thread_base;
  ids.new_id = &new_id;
  ids.launch_flows = &launch_flows;
  ids.fwdbwd = &fwdbwd;
  ids.has_fwdbwd = has_fwdbwd;
  int64_t flow_base = pages.Table("flows").last_rowid();
  Beside aux([&] {
    if (computed.any()) counts.sql_tables = WriteComputed(pages, ids);
    pages.FlushAux();
  });
  {
    for (FILE* f : spill_) {
      if (f && std::fflush(f) != 0) Errorf("{}: cannot write temporary data: {}", path_, std::strerror(errno));
    }
    std::sort(end_args_.begin(), end_args_.end(), [](const EndArgs& a, const EndArgs& b) { return a.event < b.event; });
    std::string chunk;
    int chunk_fd = -1;
    uint64_t chunk_off = 0;  // spill offset of chunk[0]
    auto pread_all = [&](int fd, char* buf, size_t want, uint64_t off) {
      size_t got = 0;
      while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, static_cast<off_t>(off + got));
        if (r < 0) Errorf("{}: cannot read temporary data: {}", path_, std::strerror(errno));
        if (r == 0) break;
        got += static_cast<size_t>(r);
      }
      return got;
    };
    auto read_args = [&](int kind, uint64_t off, uint32_t len) -> std::string_view {
      int fd = fileno(spill_[kind]);
      if (fd != chunk_fd || off < chunk_off || off + len > chunk_off + chunk.size()) {
        size_t want = std::max<size_t>(len, 4 << 20);
        chunk.resize(want);
        chunk.resize(pread_all(fd, chunk.data(), want, off));
        chunk_fd = fd;
        chunk_off = off;
        if (chunk.size() < len) Errorf("{}: temporary data is short", path_);
      }
      return std::string_view(chunk).substr(off - chunk_off, len);
    };
    std::string end_text;
    auto read_end_args = [&](const EndArgs& a) -> std::string_view {
      end_text.resize(a.len);
      if (pread_all(fileno(spill_[kEndSpill]), end_text.data(), a.len, a.off) < a.len) {
        Errorf("{}: temporary data is short", path_);
      }
      return end_text;
    };
    RowWriter mem(pages, "memory_args (event_id, bytes, addr, total_allocated, total_reserved, device_type, device_id)",
                  1 + kMemoryEnd - kMemoryFirst);
    std::string merged;
    std::vector<char> thread_is_cpu(threads_.size());  // threads.kind = 'cpu' (see the threads rows)
    for (size_t k = 0; k < threads_.size(); ++k) thread_is_cpu[k] = threads_[k].cpu_events > 0;
    // cpu_op_groups: the rows of the cpu_ops view that have a duration, counted per (name, parent
    // op's name, input shape, parent op's input shape); the parent op is the cpu_op_id of the event's
    // parent (the nearest enclosing CPU op, Python frames and annotations skipped).
    struct OpGroup {
      int64_t calls = 0, total = 0;
      uint32_t first = 0;  // write position (new_id) of the group's first op
    };
    struct KeyHash {
      size_t operator()(const std::array<uint32_t, 4>& k) const {
        uint64_t h = 0;
        for (uint32_t v : k) h = (h ^ v) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h ^ (h >> 31));
      }
    };
    std::unordered_map<std::array<uint32_t, 4>, OpGroup, KeyHash> op_groups;
    auto shape_of = [&](const EventRec& ev) -> uint32_t {
      if (!(ev.mask & (1u << kInputShape))) return 0;
      return static_cast<uint32_t>(pool_[ev.promo + __builtin_popcount(ev.mask & ((1u << kInputShape) - 1))]);
    };
    // The cpu_ops view: the cpu_op kind (cat cpu_op, or Operator but not the ProfilerStep#N) where an
    // Operator's name is also NOT LIKE 'ProfilerStep#%' (LIKE ignores case; the kind does not) and
    // not NULL.
    const uint32_t cat_cpu_op = strings_.Find("cpu_op");
    auto in_cpu_ops_view = [&](const EventRec& ev) {
      if (ev.kind != kKindCpuOp) return false;
      if (cat_cpu_op && ev.cat == cat_cpu_op) return true;
      return ev.name && !LikeProfilerStep(strings_.Get(ev.name));
    };
    // The rows are prepared on a second thread, in blocks (values resolved, args read back from the
    // spill files and rewritten, groups and stack times counted), while this one encodes them into
    // the events pages and the memory_args rows into theirs (ImportPages).
    struct Row {
      int64_t v[27];       // column c + 1 (ids, times, promoted args, ...), unless NULL
      uint32_t nulls;      // bit c: column c + 1 is NULL
      uint32_t thread;     // threads_ index (pid, tid)
      uint32_t ph, cat, name;
      uint32_t args_off, args_len;  // arg_values in Block::args (when column 26 is not NULL)
      bool mem;            // a memory_args row too
      uint8_t mem_nulls;   // bit k: memory_args column k + 2 is NULL
      int64_t mv[kMemoryEnd - kMemoryFirst];
    };
    struct Block {
      std::vector<Row> rows;
      std::string args;
    };
    constexpr size_t kBlockRows = 2048;
    auto fill = [&](Row& r, uint32_t i, std::string& args) {
      const EventRec& e = events_[i];
      uint32_t nulls = 0;
      auto put = [&](int col, bool present, int64_t v) {
        if (present) r.v[col - 1] = v; else nulls |= 1u << (col - 1);
      };
      put(1, true, event_base + new_id[i]);
      put(2, true, trace_id);
      put(3, true, thread_base + e.thread + 1);
      r.thread = e.thread;
      r.ph = e.ph;
      r.cat = e.cat;
      r.name = e.name;
      put(9, e.ts != kNullTs, e.ts + base);
      put(10, e.dur != kNullTs, e.dur);
      put(11, depth_[i] >= 0, depth_[i]);
      put(12, parent_[i] != 0, parent_[i] ? id_of(parent_[i]) : 0);
      put(13, stack_[i] != 0, stack_[i]);
      if (stack_[i] && e.dur != kNullTs && thread_is_cpu[e.thread]) stacks_.AddCpuSlice(stack_[i], e.dur);
      uint32_t pk = e.promo;
      for (int k = 0; k < kEventColumns; ++k) {
        bool has = (e.mask & (1u << k)) != 0;
        put(14 + k, has, has ? pool_[pk++] : 0);
      }
      r.mem = e.kind == kKindMemory && (e.mask & kMemoryBits);
      if (r.mem) {
        r.mem_nulls = 0;
        for (int k = kMemoryFirst; k < kMemoryEnd; ++k) {
          if (e.mask & (1u << k)) r.mv[k - kMemoryFirst] = pool_[pk++]; else r.mem_nulls |= 1u << (k - kMemoryFirst);
        }
      } else {
        pk += static_cast<uint32_t>(__builtin_popcount(e.mask & kMemoryBits));
      }
      bool has_shape = (e.mask & (1u << kInputShape)) != 0;
      put(27, has_shape, has_shape ? pool_[pk++] : 0);
      size_t at = args.size();
      auto end_it = std::lower_bound(end_args_.begin(), end_args_.end(), i,
                                     [](const EndArgs& a, uint32_t ev) { return a.event < ev; });
      if (end_it != end_args_.end() && end_it->event == i) {
        // B/E pair: the E's args are appended to the slice's args.
        merged.assign(e.args_len ? read_args(e.kind, e.args_off, e.args_len) : std::string_view("[]"));
        uint32_t shape = e.shape;
        for (; end_it != end_args_.end() && end_it->event == i; ++end_it) {
          std::string_view extra = read_end_args(*end_it);
          if (merged.size() > 2) {
            merged.back() = ',';
            merged.append(extra.substr(1));
          } else {
            merged.assign(extra);
          }
          shape = shapes_.Concat(shape, end_it->shape);
        }
        put(25, true, shape);
        args.append(merged);
      } else if (e.args_len) {
        put(25, true, e.shape);
        args.append(read_args(e.kind, e.args_off, e.args_len));
      } else {
        put(25, false, 0);
        put(26, false, 0);
      }
      r.args_off = static_cast<uint32_t>(at);
      r.args_len = static_cast<uint32_t>(args.size() - at);
      if (e.dur != kNullTs && in_cpu_ops_view(e)) {
        uint32_t pop = parent_[i] ? op_[parent_[i] - 1] : 0;
        std::array<uint32_t, 4> key{e.name, pop ? events_[pop - 1].name : 0, shape_of(e),
                                    pop ? shape_of(events_[pop - 1]) : 0};
        OpGroup& g = op_groups[key];
        if (g.calls++ == 0) g.first = new_id[i];
        g.total += e.dur;
      }
      put(22, op_[i] != 0, op_[i] ? id_of(op_[i]) : 0);
      put(23, top_op_[i] != 0, top_op_[i] ? id_of(top_op_[i]) : 0);
      put(24, step_[i] != kNullTs, step_[i]);
      r.nulls = nulls;
    };
    Channel<std::unique_ptr<Block>> full(3), spare(4);
    for (int k = 0; k < 4; ++k) spare.Push(std::make_unique<Block>());
    std::exception_ptr producer_error;
    std::thread producer([&] {
      try {
        for (size_t b = 0; b < order.size(); b += kBlockRows) {
          std::unique_ptr<Block> block;
          if (!spare.Pop(block)) break;
          size_t n = std::min(kBlockRows, order.size() - b);
          block->rows.resize(n);
          block->args.clear();
          for (size_t k = 0; k < n; ++k) fill(block->rows[k], order[b + k], block->args);
          if (!full.Push(std::move(block))) break;
        }
      } catch (...) {
        producer_error = std::current_exception();
      }
      full.Close();
    });
    try {
      // The flows first (the computed tables, made meanwhile on the computing thread, take longer
      // than the events' records: this balances the two), their arrays freed before the events'
      // records are made.
      counts.flows = WriteFlows(pages, ids, flow_base);
      pages.Table("flows").FlushRuns();
      std::vector<FlowPoint>().swap(flow_points_);
      std::vector<FlowRow>().swap(flow_rows_);
      std::unique_ptr<Block> block;
      btree::Record rec;
      auto id_value = [&](const IdValue& v) -> btree::Record& {
        return v.is_text ? rec.Text(strings_.Get(v.text)) : rec.Int(v.i);
      };
      auto opt_text = [&](uint32_t id) -> btree::Record& { return id ? rec.Text(strings_.Get(id)) : rec.Null(); };
      auto encode = [&](const Row& r, const Block& b) {  // the record of row r, in ImportPages::kColumns order
        const ThreadRec& t = threads_[r.thread];
        auto col = [&](int c) -> btree::Record& {
          return r.nulls & (1u << (c - 1)) ? rec.Null() : rec.Int(r.v[c - 1]);
        };
        rec.Clear();
        rec.Null();  // id: the rowid (INTEGER PRIMARY KEY), stored as NULL in the record
        col(2);
        col(3);
        id_value(t.pid);
        id_value(t.tid);
        rec.Text(strings_.Get(r.ph));
        opt_text(r.cat);
        opt_text(r.name);
        for (int c = 9; c <= 25; ++c) col(c);
        if (r.nulls & (1u << 25)) rec.Null(); else rec.Text(std::string_view(b.args).substr(r.args_off, r.args_len));
        col(27);
        pages.events.Append(r.v[0], rec.Encode());
        pages.AddIndexKeys(r.v[2], r.nulls & (1u << 8) ? kNullTs : r.v[8], r.v[0],
                           r.nulls & (1u << 14) ? nullptr : &r.v[14]);
        if (r.mem) {
          mem.Int(r.v[0]);
          for (int k = 0; k < kMemoryEnd - kMemoryFirst; ++k) {
            if (r.mem_nulls & (1u << k)) mem.Null(); else mem.Int(r.mv[k]);
          }
          mem.EndRow();
        }
      };
      while (full.Pop(block)) {
        for (const Row& r : block->rows) encode(r, *block);
        spare.Push(std::move(block));
      }
    } catch (...) {
      full.Cancel();
      spare.Cancel();
      producer.join();
      throw;
    }
    producer.join();
    if (producer_error) std::rethrow_exception(producer_error);
    pages.EndTrace(trace_id);
    counts.events = static_cast<int64_t>(events_.size());
    aux.Join();
    // The groups, in the order of their first op.
    std::vector<std::pair<const std::array<uint32_t, 4>*, const OpGroup*>> groups;
    groups.reserve(op_groups.size());
    for (const auto& [key, g] : op_groups) groups.emplace_back(&key, &g);
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second->first < b.second->first; });
    Stmt gs = db.Prepare(
        "INSERT INTO cpu_op_groups (trace_id, name, parent_name, input_shape_id, parent_shape_id, calls, total_ns,"
        " first_event_id) VALUES (?,?,?,?,?,?,?,?)");
    for (const auto& [key, g] : groups) {
      gs.BindInt(1, trace_id);
      for (int k = 0; k < 2; ++k) {
        if ((*key)[k]) gs.BindText(2 + k, strings_.Get((*key)[k])); else gs.BindNull(2 + k);
      }
      for (int k = 2; k < 4; ++k) {
        if ((*key)[k]) gs.BindInt(2 + k, (*key)[k]); else gs.BindNull(2 + k);
      }
      gs.BindInt(6, g->calls);
      gs.BindInt(7, g->total);
      gs.BindInt(8, event_base + g->first);
      gs.Run();
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO input_shapes (id, input_dims, input_type) VALUES (?,?,?)");
    const auto& all = input_shapes_.shapes();
    for (size_t k = input_shapes_.written; k < all.size(); ++k) {
      s.BindInt(1, static_cast<int64_t>(k) + 1);
      if (all[k].has_dims) s.BindText(2, all[k].dims); else s.BindNull(2);
      if (all[k].has_types) s.BindText(3, all[k].types); else s.BindNull(3);
      s.Run();
    }
    input_shapes_.written = all.size();
  }
  {
    Stmt s = db.Prepare("INSERT INTO event_ranges (kind, trace_id, first_id, last_id, event_count) VALUES (?,?,?,?,?)");
    int64_t first = event_base + 1;
    for (int k = 0; k < kKindCount; ++k) {
      if (kind_count_[k] == 0) continue;
      s.BindText(1, kKindNames[k]);
      s.BindInt(2, trace_id);
      s.BindInt(3, first);
      s.BindInt(4, first + kind_count_[k] - 1);
      s.BindInt(5, kind_count_[k]);
      s.Run();
      first += kind_count_[k];
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO arg_keys (shape_id, idx, key, path) VALUES (?,?,?,?)");
    const auto& sigs = shapes_.sigs();
    for (size_t i = shapes_.written; i < sigs.size(); ++i) {
      std::string_view sig = sigs[i];
      int64_t idx = 0, pos = 0;
      while (sig.size() >= 4) {
        uint32_t len;
        std::memcpy(&len, sig.data(), 4);
        bool out_of_line = (len & ArgShapes::kOutOfLine) != 0;
        len &= ~ArgShapes::kOutOfLine;
        s.BindInt(1, static_cast<int64_t>(i) + 1);
        s.BindInt(2, idx);
        s.BindText(3, sig.substr(4, len));
        if (out_of_line) {
          s.BindNull(4);
        } else {
          std::string path = fmt::format("$[{}]", pos++);
          s.BindTextCopy(4, path);
        }
        s.Run();
        sig.remove_prefix(4 + len);
        ++idx;
      }
    }
    shapes_.written = sigs.size();
  }
  {
    Stmt s = db.Prepare("INSERT INTO import_stats (trace_id, name, value, severity, description) VALUES (?,?,?,?,?)");
    for (int k = 0; k < static_cast<int>(StatId::kCount); ++k) {
      if (!stats_.set[k]) continue;
      s.BindInt(1, trace_id);
      s.BindText(2, kStatInfo[k].name);
      s.BindInt(3, stats_.values[k]);
      s.BindText(4, kStatInfo[k].severity);
      s.BindText(5, kStatInfo[k].description);
      s.Run();
    }
  }
  return counts;
}

}  // namespace tracesql
