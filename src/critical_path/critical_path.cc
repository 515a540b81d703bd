// Critical path over a window of one trace. The graph (after HTA's critical_path_analysis.py):
// - nodes: the start and the end of each CPU op, runtime call and data-loading annotation on the host
//   threads and of each GPU op, at their times clamped to the window, plus the window's start and end;
// - edges, each weighed by the time between its two nodes: along each host thread in nesting order
//   (start -> first child's start -> its end -> ... -> own end; between top-level events: a
//   dependency edge), a GPU op's start -> end, the previous op's end on the stream -> the next op's
//   start, the launch call's start -> its GPU op's start (one call -> every op of a CUDA/HIP graph),
//   the GPU op a blocking sync call waited for -> the call's end, and across streams the op before a
//   cudaEventRecord -> the first op launched after the cudaStreamWaitEvent (Kineto cuda_sync events).
// Because every edge weighs the time it spans, every path from the window's start to its end has the
// window's length; the critical one is the chain of last-arriving dependencies, found by walking back
// from the end and taking at each node the predecessor that finished last (the one that held it up).
#include "tracesql/critical_path.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"

namespace tracesql::critical_path {
namespace {

enum class EdgeKind : uint8_t { kOp, kDependency, kLaunch, kKernelKernel, kSync, kStreamWait };
enum class BoundBy : uint8_t {
  kCpu, kGpuCompute, kGpuCommunication, kLaunchOverhead, kKernelKernelOverhead, kSync, kDataLoading
};

const char* EdgeKindName(EdgeKind k) {
  switch (k) {
    case EdgeKind::kOp: return "op";
    case EdgeKind::kDependency: return "dependency";
    case EdgeKind::kLaunch: return "launch";
    case EdgeKind::kKernelKernel: return "kernel_kernel";
    case EdgeKind::kSync: return "sync";
    case EdgeKind::kStreamWait: return "stream_wait";
  }
  return "";
}

const char* BoundByName(BoundBy b) {
  switch (b) {
    case BoundBy::kCpu: return "cpu";
    case BoundBy::kGpuCompute: return "gpu_compute";
    case BoundBy::kGpuCommunication: return "gpu_communication";
    case BoundBy::kLaunchOverhead: return "launch_overhead";
    case BoundBy::kKernelKernelOverhead: return "kernel_kernel_overhead";
    case BoundBy::kSync: return "sync";
    case BoundBy::kDataLoading: return "data_loading";
  }
  return "";
}

// Among predecessors that arrive at the same time, the one that explains the wait best wins.
int Priority(EdgeKind k) {
  switch (k) {
    case EdgeKind::kSync: return 5;
    case EdgeKind::kStreamWait: return 4;
    case EdgeKind::kLaunch: return 3;
    case EdgeKind::kKernelKernel: return 2;
    case EdgeKind::kOp: return 1;
    case EdgeKind::kDependency: return 0;
  }
  return 0;
}

struct Pred {
  int32_t from;
  EdgeKind kind;
  BoundBy bound_by;
  int64_t event_id;
};

constexpr int32_t kWindowStart = 0;
constexpr int32_t kWindowEnd = 1;

class Graph {
 public:
  Graph(int64_t from, int64_t to) : from_(from), to_(to) {
    AddNode(from, false);
    AddNode(to, false);
  }
  int32_t AddNode(int64_t t, bool gpu) {
    t_.push_back(std::clamp(t, from_, to_));
    gpu_.push_back(gpu);
    preds_.emplace_back();
    return static_cast<int32_t>(t_.size() - 1);
  }
  int64_t Time(int32_t n) const { return t_[n]; }
  // Edges run forward in time; one that would run backward (clock skew) is left out.
  bool AddEdge(int32_t from, int32_t to, EdgeKind kind, BoundBy bound_by, int64_t event_id) {
    if (t_[from] > t_[to]) return false;
    preds_[to].push_back({from, kind, bound_by, event_id});
    return true;
  }
  // Nodes nothing leads to hang from the window's start: work that was ready before the window.
  void ConnectOrphans() {
    for (int32_t n = kWindowEnd + 1; n < static_cast<int32_t>(t_.size()); ++n) {
      if (preds_[n].empty()) {
        AddEdge(kWindowStart, n, EdgeKind::kDependency, gpu_[n] ? BoundBy::kKernelKernelOverhead : BoundBy::kCpu, 0);
      }
    }
  }
  std::vector<Piece> WalkBack() const {
    std::vector<char> visited(t_.size(), 0);
    std::vector<std::pair<int32_t, const Pred*>> edges;  // (to, pred) from the end backwards
    int32_t cur = kWindowEnd;
    visited[cur] = 1;
    while (cur != kWindowStart) {
      const Pred* best = nullptr;
      for (const Pred& p : preds_[cur]) {
        if (visited[p.from]) continue;
        if (!best || t_[p.from] > t_[best->from] ||
            (t_[p.from] == t_[best->from] && Priority(p.kind) > Priority(best->kind))) {
          best = &p;
        }
      }
      if (!best) Errorf("critical path: node at {} ns has no unvisited predecessor", t_[cur]);
      edges.emplace_back(cur, best);
      cur = best->from;
      visited[cur] = 1;
    }
    std::vector<Piece> path;
    for (auto it = edges.rbegin(); it != edges.rend(); ++it) {
      const Pred& p = *it->second;
      int64_t ts = t_[p.from], dur = t_[it->first] - ts;
      if (dur == 0) continue;
      const char* kind = EdgeKindName(p.kind);
      const char* bound = BoundByName(p.bound_by);
      if (!path.empty() && path.back().event_id == p.event_id && path.back().edge_kind == kind &&
          path.back().bound_by == bound && path.back().ts + path.back().dur == ts) {
        path.back().dur += dur;  // one event's time split only by zero-length pieces
        continue;
      }
      path.push_back({p.event_id, ts, dur, kind, bound});
    }
    return path;
  }

 private:
  int64_t from_, to_;
  std::vector<int64_t> t_;
  std::vector<char> gpu_;
  std::vector<std::vector<Pred>> preds_;
};

enum class HostKind : uint8_t { kCpuOp, kRuntime, kDataLoading };
enum class SyncKind : uint8_t { kNone, kDevice, kStream, kEvent, kCopy };

struct HostEvent {
  int64_t id = 0, ts = 0, end = 0, correlation = 0;
  HostKind kind = HostKind::kCpuOp;
  SyncKind sync = SyncKind::kNone;
  int32_t start_node = -1, end_node = -1;
};

struct GpuOp {
  int64_t id = 0, ts = 0, end = 0;
  std::string stream;  // "device/stream" as text
  std::string stream_only;
  int64_t launch_id = 0, launch_ts = 0;
  bool communication = false;
  int32_t start_node = -1, end_node = -1;
};

// A Kineto cuda_sync event: what a sync call or cudaStreamWaitEvent waited on.
struct CudaSync {
  int64_t id = 0, ts = 0, correlation = 0, record_correlation = -1;
  std::string kind;            // "Stream Wait Event", "Stream Sync", "Event Sync", "Context Sync"
  std::string stream;          // the stream synchronised or made to wait; "-1" when none
  std::string wait_on_stream;  // the stream that recorded the event; "-1" when unknown
};

bool IsRuntime(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "mtia_runtime";
}
bool IsGpu(std::string_view cat) {
  return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" ||
         cat == "gpu_memset" || cat == "Memset";
}
// Data loading as HTA's default pattern finds it: the DataLoader's own annotations and ops.
bool IsDataLoading(std::string_view cat, std::string_view name) {
  return (cat == "user_annotation" || cat == "cpu_op") && name.find("DataLoader") != std::string_view::npos;
}
bool IsCpuOp(std::string_view cat, std::string_view name) {
  return cat == "cpu_op" || (cat == "Operator" && name.rfind("ProfilerStep#", 0) != 0);
}

// The blocking host calls of the bundled sync_points query (device, stream, event synchronize;
// synchronous copies and sets).
SyncKind SyncOf(std::string_view cat, std::string_view name) {
  if (name == "cudaDeviceSynchronize" || name == "hipDeviceSynchronize" || name == "cuCtxSynchronize" ||
      (cat == "mtia_runtime" && name == "synchronize")) {
    return SyncKind::kDevice;
  }
  if (name == "cudaStreamSynchronize" || name == "hipStreamSynchronize" || name == "cuStreamSynchronize" ||
      (cat == "mtia_runtime" && name == "synchronizeStream")) {
    return SyncKind::kStream;
  }
  if (name == "cudaEventSynchronize" || name == "hipEventSynchronize" || name == "cuEventSynchronize") {
    return SyncKind::kEvent;
  }
  auto starts = [&](std::string_view p) { return name.rfind(p, 0) == 0; };
  bool async = false;
  for (size_t i = 0; i + 5 <= name.size() && !async; ++i) {
    std::string lower(name.substr(i, 5));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    async = lower == "async";
  }
  if (!async && (starts("cudaMemcpy") || starts("hipMemcpy") || starts("cuMemcpy") || starts("cudaMemset") ||
                 starts("hipMemset") || starts("cuMemset"))) {
    return SyncKind::kCopy;
  }
  return SyncKind::kNone;
}

std::string Text(const Stmt& s, int i) { return s.ColumnIsNull(i) ? std::string() : s.ColumnText(i); }

// Reads the window's events, thread by thread, through the (thread_id, ts) index: those starting
// inside it, plus those running across its start (the last event to start before it and that
// event's ancestors: anything still open then encloses it).
class WindowReader {
 public:
  WindowReader(Db& db, const Window& w) : db_(db), w_(w) {}

  void Read() {
    Stmt threads = db_.Prepare("SELECT id FROM threads WHERE trace_id = ?1 ORDER BY id");
    threads.BindInt(1, w_.trace_id);
    std::vector<int64_t> ids;
    while (threads.Step()) ids.push_back(threads.ColumnInt(0));
    Stmt range = db_.Prepare(
        "SELECT id, cat, name, ts, dur, correlation, parent_id FROM events "
        "WHERE thread_id = ?1 AND ts >= ?2 AND ts < ?3 AND dur IS NOT NULL ORDER BY ts, id");
    Stmt last = db_.Prepare(
        "SELECT id FROM events WHERE thread_id = ?1 AND ts = "
        "(SELECT max(ts) FROM events WHERE thread_id = ?1 AND ts < ?2)");
    Stmt by_id = db_.Prepare("SELECT id, cat, name, ts, dur, correlation, parent_id FROM events WHERE id = ?1");
    for (int64_t thread : ids) {
      std::vector<HostEvent> host;
      std::unordered_set<int64_t> seen;
      last.BindInt(1, thread);
      last.BindInt(2, w_.from);
      std::vector<int64_t> open;
      while (last.Step()) open.push_back(last.ColumnInt(0));
      last.Reset();
      for (int64_t id : open) {
        while (id != 0 && seen.insert(id).second) {
          by_id.BindInt(1, id);
          id = 0;
          if (by_id.Step()) {
            if (!by_id.ColumnIsNull(4) && by_id.ColumnInt(3) + by_id.ColumnInt(4) > w_.from) Take(by_id, host);
            id = by_id.ColumnIsNull(6) ? 0 : by_id.ColumnInt(6);
          }
          by_id.Reset();
        }
      }
      range.BindInt(1, thread);
      range.BindInt(2, w_.from);
      range.BindInt(3, w_.to);
      while (range.Step()) {
        if (!seen.count(range.ColumnInt(0))) Take(range, host);
      }
      range.Reset();
      if (!host.empty()) threads_.push_back(std::move(host));
    }
    ReadLinks();
  }

  std::vector<std::vector<HostEvent>> threads_;  // host events of each thread that has any
  std::vector<GpuOp> gpu_;
  std::vector<CudaSync> syncs_;

 private:
  // Columns: id, cat, name, ts, dur, correlation, parent_id.
  void Take(const Stmt& s, std::vector<HostEvent>& host) {
    std::string cat = Text(s, 1), name = Text(s, 2);
    int64_t id = s.ColumnInt(0), ts = s.ColumnInt(3), end = ts + s.ColumnInt(4);
    int64_t corr = s.ColumnIsNull(5) ? 0 : s.ColumnInt(5);
    if (IsGpu(cat)) {
      GpuOp op;
      op.id = id;
      op.ts = ts;
      op.end = end;
      gpu_.push_back(std::move(op));
    } else if (cat == "cuda_sync") {
      CudaSync c;
      c.id = id;
      c.ts = ts;
      c.correlation = corr;
      c.kind = name;
      syncs_.push_back(std::move(c));
    } else if (IsRuntime(cat) || IsCpuOp(cat, name) || IsDataLoading(cat, name)) {
      HostEvent e;
      e.id = id;
      e.ts = ts;
      e.end = end;
      e.correlation = corr;
      e.kind = IsRuntime(cat) ? HostKind::kRuntime
               : IsDataLoading(cat, name) ? HostKind::kDataLoading : HostKind::kCpuOp;
      if (e.kind == HostKind::kRuntime) e.sync = SyncOf(cat, name);
      host.push_back(e);
    }
  }

  // Each GPU op's stream, launch and class; each cuda_sync event's args.
  void ReadLinks() {
    std::unordered_map<int64_t, bool> communication;
    Stmt classes = db_.Prepare("SELECT name_id, class = 'communication' FROM gpu_op_classes");
    while (classes.Step()) communication[classes.ColumnInt(0)] = classes.ColumnInt(1) != 0;
    Stmt link = db_.Prepare(
        "SELECT device, stream, launch_event_id, launch_ts, name_id FROM op_kernel_links WHERE gpu_event_id = ?1");
    for (GpuOp& op : gpu_) {
      link.BindInt(1, op.id);
      if (link.Step()) {
        op.stream_only = Text(link, 1);
        op.stream = Text(link, 0) + "/" + op.stream_only;
        if (!link.ColumnIsNull(2) && !link.ColumnIsNull(3)) {
          op.launch_id = link.ColumnInt(2);
          op.launch_ts = link.ColumnInt(3);
        }
        if (!link.ColumnIsNull(4)) {
          auto it = communication.find(link.ColumnInt(4));
          op.communication = it != communication.end() && it->second;
        }
      }
      link.Reset();
    }
    Stmt args = db_.Prepare(
        "SELECT key, value FROM args WHERE event_id = ?1 AND key IN "
        "('cuda_sync_kind', 'stream', 'wait_on_stream', 'wait_on_cuda_event_record_corr_id')");
    for (CudaSync& c : syncs_) {
      c.stream = c.wait_on_stream = "-1";
      args.BindInt(1, c.id);
      while (args.Step()) {
        std::string key = Text(args, 0), value = Text(args, 1);
        if (key == "cuda_sync_kind") c.kind = value;
        if (key == "stream") c.stream = value;
        if (key == "wait_on_stream") c.wait_on_stream = value;
        if (key == "wait_on_cuda_event_record_corr_id" && !args.ColumnIsNull(1)) {
          c.record_correlation = args.ColumnInt(1);
        }
      }
      args.Reset();
    }
  }

  Db& db_;
  const Window& w_;
};

// The thread's events in nesting order: each interval between two consecutive boundaries is charged
// to the innermost event open in it (an op edge), or, outside every event, to the next one (a
// dependency edge: HTA weighs these gaps 0; here they count, so the path keeps the window's length).
void AddThreadChain(Graph& g, std::vector<HostEvent>& events, std::vector<int32_t>& chain_ends) {
  std::sort(events.begin(), events.end(), [](const HostEvent& a, const HostEvent& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.end != b.end) return a.end > b.end;
    return a.id < b.id;
  });
  struct Open {
    HostEvent* event;
    int64_t end;  // clipped to the parent's end: a child never outlives its parent here
    bool data_loading;
  };
  std::vector<Open> stack;
  int32_t prev = kWindowStart;
  auto charge = [&](int32_t to, int64_t next_id) {
    if (stack.empty()) {
      g.AddEdge(prev, to, EdgeKind::kDependency, BoundBy::kCpu, next_id);
    } else {
      const Open& o = stack.back();
      g.AddEdge(prev, to, EdgeKind::kOp, o.data_loading ? BoundBy::kDataLoading : BoundBy::kCpu, o.event->id);
    }
    prev = to;
  };
  auto close_top = [&]() {
    int32_t n = g.AddNode(stack.back().end, false);
    charge(n, 0);
    stack.back().event->end_node = n;
    stack.pop_back();
  };
  for (HostEvent& e : events) {
    while (!stack.empty() && stack.back().end <= e.ts) close_top();
    int32_t n = g.AddNode(e.ts, false);
    charge(n, e.id);
    e.start_node = n;
    int64_t end = stack.empty() ? e.end : std::min(e.end, stack.back().end);
    bool data_loading = e.kind == HostKind::kDataLoading || (!stack.empty() && stack.back().data_loading);
    stack.push_back({&e, end, data_loading});
  }
  while (!stack.empty()) close_top();
  chain_ends.push_back(prev);
}

// Of the GPU ops accepted by |ok|, the one that ends last by |before| (inclusive); nullptr if none.
template <typename Ok>
const GpuOp* LastEnding(const std::vector<GpuOp>& ops, int64_t before, Ok ok) {
  const GpuOp* best = nullptr;
  for (const GpuOp& op : ops) {
    if (op.end <= before && ok(op) && (!best || op.end > best->end)) best = &op;
  }
  return best;
}

int64_t RecordCallTs(Db& db, int64_t trace_id, int64_t correlation,
                     const std::unordered_map<int64_t, const HostEvent*>& by_corr) {
  if (auto it = by_corr.find(correlation); it != by_corr.end()) return it->second->ts;
  Stmt s = db.Prepare(
      "SELECT ts FROM events WHERE trace_id = ?1 AND correlation = ?2 AND cat IN "
      "('cuda_runtime', 'cuda_driver', 'Runtime', 'mtia_runtime') ORDER BY id LIMIT 1");
  s.BindInt(1, trace_id);
  s.BindInt(2, correlation);
  return s.Step() ? s.ColumnInt(0) : INT64_MIN;
}

}  // namespace

Window ResolveWindow(Db& db, const WindowRequest& r) {
  Window w;
  if (r.trace_id) {
    Stmt s = db.Prepare("SELECT id FROM traces WHERE id = ?1");
    s.BindInt(1, *r.trace_id);
    if (!s.Step()) Errorf("no trace {} (see the traces table)", *r.trace_id);
    w.trace_id = *r.trace_id;
  } else {
    int64_t n = db.QueryInt("SELECT count(*) FROM traces");
    if (n == 0) Errorf("the database holds no trace");
    if (n > 1) Errorf("the database holds {} traces: choose one with --trace-id (traces.id)", n);
    w.trace_id = db.QueryInt("SELECT id FROM traces");
  }
  if (r.step && (r.from || r.to)) Errorf("--step and --from/--to exclude each other");
  if (r.step) {
    Stmt s = db.Prepare("SELECT w_ts, w_end FROM step_windows WHERE trace_id = ?1 AND step = ?2");
    s.BindInt(1, w.trace_id);
    s.BindInt(2, *r.step);
    if (!s.Step()) Errorf("trace {} has no ProfilerStep#{} (see the steps view)", w.trace_id, *r.step);
    if (s.ColumnIsNull(1) || s.ColumnInt(1) <= s.ColumnInt(0)) {
      Errorf("the window of ProfilerStep#{} of trace {} holds no time", *r.step, w.trace_id);
    }
    w.from = s.ColumnInt(0);
    w.to = s.ColumnInt(1);
    w.label = fmt::format("step {}", *r.step);
  } else if (r.from || r.to) {
    if (!r.from || !r.to) Errorf("--from and --to go together");
    if (*r.from >= *r.to) Errorf("--from {} is not before --to {}", *r.from, *r.to);
    w.from = *r.from;
    w.to = *r.to;
    w.label = fmt::format("{}..{}", w.from, w.to);
  } else {
    Stmt s = db.Prepare("SELECT start_ts, end_ts FROM traces WHERE id = ?1");
    s.BindInt(1, w.trace_id);
    if (!s.Step() || s.ColumnIsNull(0) || s.ColumnIsNull(1) || s.ColumnInt(1) <= s.ColumnInt(0)) {
      Errorf("trace {} holds no time", w.trace_id);
    }
    w.from = s.ColumnInt(0);
    w.to = s.ColumnInt(1);
    w.label = "trace";
  }
  return w;
}

std::vector<Piece> Compute(Db& db, const Window& w) {
  WindowReader reader(db, w);
  reader.Read();
  Graph g(w.from, w.to);

  std::vector<int32_t> ends;
  std::unordered_map<int64_t, const HostEvent*> by_id, by_corr;
  for (auto& thread : reader.threads_) {
    AddThreadChain(g, thread, ends);
    for (const HostEvent& e : thread) {
      by_id[e.id] = &e;
      if (e.kind == HostKind::kRuntime && e.correlation > 0) by_corr.emplace(e.correlation, &e);
    }
  }

  // GPU ops, stream by stream in start order.
  std::vector<GpuOp>& gpu = reader.gpu_;
  std::sort(gpu.begin(), gpu.end(), [](const GpuOp& a, const GpuOp& b) {
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.id < b.id;
  });
  for (size_t i = 0; i < gpu.size(); ++i) {
    GpuOp& op = gpu[i];
    op.start_node = g.AddNode(op.ts, true);
    op.end_node = g.AddNode(op.end, true);
    g.AddEdge(op.start_node, op.end_node, EdgeKind::kOp,
              op.communication ? BoundBy::kGpuCommunication : BoundBy::kGpuCompute, op.id);
    if (i > 0 && gpu[i - 1].stream == op.stream) {
      g.AddEdge(gpu[i - 1].end_node, op.start_node, EdgeKind::kKernelKernel, BoundBy::kKernelKernelOverhead, op.id);
    }
    if (auto it = by_id.find(op.launch_id); op.launch_id != 0 && it != by_id.end()) {
      g.AddEdge(it->second->start_node, op.start_node, EdgeKind::kLaunch, BoundBy::kLaunchOverhead, op.launch_id);
    }
    ends.push_back(op.end_node);
  }

  // Kineto's cuda_sync events, keyed by the correlation of the call they belong to.
  std::unordered_map<int64_t, const CudaSync*> sync_by_corr;
  for (const CudaSync& c : reader.syncs_) sync_by_corr.emplace(c.correlation, &c);

  // A blocking call's end waits for the last GPU op it covers: launched before the call began
  // (before the event's cudaEventRecord when known), on the stream synchronised when known.
  for (auto& thread : reader.threads_) {
    for (const HostEvent& call : thread) {
      auto it = sync_by_corr.find(call.correlation);
      const CudaSync* info = call.correlation > 0 && it != sync_by_corr.end() ? it->second : nullptr;
      if (info && info->kind == "Stream Wait Event") continue;
      if (call.sync == SyncKind::kNone && !info) continue;
      int64_t launched_by = call.ts;
      std::string stream;
      if (info && info->kind == "Stream Sync" && info->stream != "-1") stream = info->stream;
      if (info && info->kind == "Event Sync") {
        if (info->wait_on_stream != "-1") stream = info->wait_on_stream;
        if (info->record_correlation > 0) {
          launched_by = std::min(launched_by, RecordCallTs(db, w.trace_id, info->record_correlation, by_corr));
        }
      }
      const GpuOp* src = LastEnding(gpu, call.end, [&](const GpuOp& op) {
        return op.launch_id != 0 && op.launch_ts <= launched_by && (stream.empty() || op.stream_only == stream);
      });
      if (src) g.AddEdge(src->end_node, call.end_node, EdgeKind::kSync, BoundBy::kSync, call.id);
    }
  }

  // cudaStreamWaitEvent: the first op launched on the waiting stream after the call waits for the
  // last op launched on the recording stream before the cudaEventRecord.
  for (const CudaSync& c : reader.syncs_) {
    if (c.kind != "Stream Wait Event" || c.stream == "-1") continue;
    auto call = by_corr.find(c.correlation);
    int64_t waited_at = call != by_corr.end() ? call->second->ts : c.ts;
    int64_t recorded_at = c.record_correlation > 0
                              ? RecordCallTs(db, w.trace_id, c.record_correlation, by_corr)
                              : waited_at;
    if (recorded_at == INT64_MIN) recorded_at = waited_at;
    const GpuOp* src = LastEnding(gpu, INT64_MAX, [&](const GpuOp& op) {
      return op.launch_id != 0 && op.launch_ts < recorded_at &&
             (c.wait_on_stream == "-1" ? op.stream_only != c.stream : op.stream_only == c.wait_on_stream);
    });
    const GpuOp* dst = nullptr;
    for (const GpuOp& op : gpu) {
      if (op.launch_id != 0 && op.launch_ts > waited_at && op.stream_only == c.stream &&
          (!dst || op.launch_ts < dst->launch_ts || (op.launch_ts == dst->launch_ts && op.ts < dst->ts))) {
        dst = &op;
      }
    }
    if (src && dst) {
      g.AddEdge(src->end_node, dst->start_node, EdgeKind::kStreamWait, BoundBy::kSync,
                call != by_corr.end() ? call->second->id : dst->id);
    }
  }

  g.ConnectOrphans();
  g.AddEdge(kWindowStart, kWindowEnd, EdgeKind::kDependency, BoundBy::kCpu, 0);
  for (int32_t n : ends) g.AddEdge(n, kWindowEnd, EdgeKind::kDependency, BoundBy::kCpu, 0);
  return g.WalkBack();
}

void Write(Db& db, const Window& w, const std::vector<Piece>& path) {
  db.Exec("BEGIN IMMEDIATE");
  try {
    if (db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'critical_path'") == 0) {
      for (const EmbeddedFile& f : EmbeddedFilesUnder("sql/schema/")) {
        if (f.path.find("critical_path") != std::string_view::npos) db.Exec(f.text, f.path);
      }
    }
    Stmt del = db.Prepare("DELETE FROM critical_path WHERE trace_id = ?1 AND window = ?2");
    del.BindInt(1, w.trace_id);
    del.BindText(2, w.label);
    del.Run();
    Stmt ins = db.Prepare(
        "INSERT INTO critical_path (trace_id, window, seq, event_id, ts, dur, edge_kind, bound_by) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    int64_t seq = 0;
    for (const Piece& p : path) {
      ins.BindInt(1, w.trace_id);
      ins.BindText(2, w.label);
      ins.BindInt(3, ++seq);
      if (p.event_id != 0) {
        ins.BindInt(4, p.event_id);
      } else {
        ins.BindNull(4);
      }
      ins.BindInt(5, p.ts);
      ins.BindInt(6, p.dur);
      ins.BindText(7, p.edge_kind);
      ins.BindText(8, p.bound_by);
      ins.Run();
    }
    db.Exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace tracesql::critical_path
