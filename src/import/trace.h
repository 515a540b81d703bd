// The model of a trace that the import pipeline builds (builder.h) and writes (writer.h,
// analysis.h): events in compact form (fixed-size records; their arg text spilled to temporary
// files), threads, processes and flow points, the interners shared by the traces of one import, and
// the results of the builder's Finish() (nesting, call paths, steps, flow bindings).
#ifndef SRC_IMPORT_TRACE_H_
#define SRC_IMPORT_TRACE_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/stats.h"

namespace tracesql {

inline constexpr int64_t kNullTs = std::numeric_limits<int64_t>::min();

// Interns strings; id 0 is reserved for "no string" (NULL).
// string_view -> id (> 0), open addressing with linear probing, each slot keeping its key's hash:
// the interners' lookups (several per event) spent more in a node-based map's pointer chasing and
// prime modulo than in comparing. The views must stay valid (the caller keeps the text).
class StringIdMap {
 public:
  static uint64_t Hash(std::string_view s);
  // The id of s (h = Hash(s)), or 0.
  uint32_t Find(std::string_view s, uint64_t h) const;
  uint32_t Find(std::string_view s) const { return Find(s, Hash(s)); }
  void Insert(std::string_view s, uint64_t h, uint32_t id);  // s not present
  // The id of s; when s is absent, add() keeps a copy of it and returns {that copy, its new id},
  // which is inserted. (The interners' one lookup per value: s is hashed once.)
  template <class Add>
  uint32_t FindOrAdd(std::string_view s, Add add) {
    const uint64_t h = Hash(s);
    if (uint32_t id = Find(s, h)) return id;
    const auto [kept, id] = add();
    Insert(kept, h, id);
    return id;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;
    uint32_t size = 0, id = 0;  // id 0: empty
  };
  void Grow();
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

class Interner {
 public:
  Interner() { views_.emplace_back(); }
  uint32_t Intern(std::string_view s);
  // Intern() with a one-entry cache, for values that repeat from one event to the next.
  uint32_t InternCached(std::string_view s, uint32_t& cache) {
    if (cache && views_[cache] == s) return cache;
    return cache = Intern(s);
  }
  std::string_view Get(uint32_t id) const { return views_[id]; }
  // The id of s when it has been interned, else 0.
  uint32_t Find(std::string_view s) const { return map_.Find(s); }
  size_t size() const { return views_.size(); }

 private:
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  StringIdMap map_;
};

// A pid or tid after normalisation: an integer (numeric strings included) or text.
struct IdValue {
  bool is_text = false;
  int64_t i = 0;
  uint32_t text = 0;  // interned
  bool operator==(const IdValue& o) const { return is_text == o.is_text && (is_text ? text == o.text : i == o.i); }
};

// Promoted args, in bit order of EventRec::mask. The first kEventColumns are events columns; the
// allocator args of [memory] instants go to memory_args; kInputShape is the input_shapes id of the
// event's (Input Dims, Input type), set by the builder.
enum Promoted : uint8_t {
  kExternalId = 0, kCorrelation, kSeqNum, kFwdThreadId, kPythonId, kPythonParentId, kDevice, kStream,
  kBytes, kAddr, kTotalAllocated, kTotalReserved, kDeviceType, kDeviceId, kInputShape, kPromotedCount
};
inline constexpr int kEventColumns = kBytes;
inline constexpr int kMemoryFirst = kBytes, kMemoryEnd = kInputShape;
inline constexpr uint32_t kEventBits = (1u << kEventColumns) - 1;  // mask bits of the events columns
inline constexpr uint32_t kMemoryBits = ((1u << kMemoryEnd) - 1) & ~((1u << kMemoryFirst) - 1);
// EventRec::mask bit set when a promoted value is written "-0": json_extract reads it as 0 but `->`
// keeps its text, so such an event keeps every value in line (arg_keys.path not NULL).
inline constexpr uint16_t kKeepInLine = 1u << 15;
static_assert(kPromotedCount <= 15);

// s == lit, compared with the literal's length known at compile time: inlined as a few loads
// (string_view's operator== calls memcmp; per event and per arg key, that showed in profiles).
template <size_t N>
inline bool Eq(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && __builtin_memcmp(s.data(), lit, N - 1) == 0;
}

// Whether an event is a [memory] instant (kind 'memory', a memory_args row).
inline bool IsMemoryInstant(std::string_view ph, std::string_view name) {
  return Eq(name, "[memory]") && (Eq(ph, "i") || Eq(ph, "I"));
}

struct EventRec {
  int64_t ts = kNullTs;   // ns, without baseTimeNanoseconds
  int64_t dur = kNullTs;  // ns, kNullTs = NULL
  // Bytes of its arg values (JSON array text; 0 = no args) in the spill file of its kind, where the
  // events of a kind follow one another in file order (ArgSpill).
  uint32_t args_len = 0;
  uint32_t shape = 0;     // ArgShapes id of the arg keys, 0 = no args
  uint32_t thread = 0;    // index into threads
  uint32_t name = 0;
  uint32_t cat = 0;
  uint32_t ph = 0;
  uint32_t promo = 0;     // index of the first promoted value in the pool
  uint16_t mask = 0;      // which promoted values are present
  uint8_t kind = 0;       // EventKind: which id range the event is written to
  bool wide = false;      // its promoted values take 64 bits each in the pool (else 32)
};
static_assert(sizeof(EventRec) == 48, "one per event: the import's memory");

// Kinds of events. Events are written grouped by kind (in file order within a kind), so each category
// view reads one rowid range per trace (event_ranges) instead of scanning every event. The order here
// is the order of the ranges; the names are event_ranges.kind.
enum EventKind : uint8_t {
  kKindCpuOp = 0, kKindRuntime, kKindPython, kKindUserAnnotation, kKindKernel, kKindMemcpy, kKindMemset,
  kKindGpuAnnotation, kKindMemory, kKindOther, kKindCount
};
inline constexpr const char* kKindNames[kKindCount] = {
    "cpu_op", "runtime", "python_function", "user_annotation", "kernel", "memcpy", "memset",
    "gpu_user_annotation", "memory", "other"};

struct FlowPoint {
  int64_t ts = kNullTs;
  uint32_t thread = 0;
  uint32_t cat = 0;
  uint32_t name = 0;
  uint32_t order = 0;  // file order
  IdValue id;
  char ph = 's';
  bool bp_enclosing = false;
};

struct ThreadRec {
  uint32_t process = 0;
  IdValue pid, tid;
  uint32_t name = 0;
  bool has_sort = false;
  int64_t sort_index = 0;
  int64_t events = 0;
  int64_t gpu_events = 0, cpu_events = 0;
  std::vector<uint32_t> open_begins;  // B events waiting for their E
};

struct ProcessRec {
  IdValue pid;
  uint32_t name = 0, labels = 0;
  bool has_sort = false;
  int64_t sort_index = 0;
};

struct EndArgs {
  uint32_t event;
  uint64_t off;
  uint32_t len;
  uint32_t shape;
};

// Interns the key sequences of args objects ("shapes"): events store only a shape id and a JSON
// array of values, and arg_keys maps (shape, index) to the key.
class ArgShapes {
 public:
  // sig: the keys, each as a 4-byte length then its bytes. A length with kOutOfLine set marks a key
  // whose value is not in events.arg_values (arg_keys.path NULL) but in a column: input_shapes for
  // 'Input Dims' / 'Input type', the promoted events column or memory_args for a promoted key (the
  // parser moves them: ArgsReader::Finish).
  static constexpr uint32_t kOutOfLine = 0x80000000u;
  uint32_t Intern(std::string_view sig);
  uint32_t Concat(uint32_t a, uint32_t b);
  const std::deque<std::string>& sigs() const { return sigs_; }
  size_t written = 0;  // shapes already written to the database

 private:
  StringIdMap map_;               // views into sigs_
  std::deque<std::string> sigs_;  // id = index + 1
  std::string_view last_sig_;
  uint32_t last_id_ = 0;
};

struct HeaderInfo {
  std::string metadata = "{}";
  bool has_base = false;
  int64_t base_time_ns = 0;
  bool has_rank = false, has_world = false;
  int64_t rank = 0, world_size = 0;
  struct Device {
    bool has_id = false;
    int64_t id = 0;
    std::string name;
    bool has_major = false, has_minor = false, has_mem = false, has_sms = false;
    int64_t major = 0, minor = 0, mem = 0, sms = 0;
    std::string properties;
  };
  std::vector<Device> devices;
};

class StackInterner {
 public:
  uint32_t Intern(uint32_t parent, uint32_t name, uint32_t cat, int depth);
  struct Node {
    uint32_t parent, name, cat;
    int depth;
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  // Adds one host-thread slice's duration to its call path (stacks.cpu_self_ns is computed from these).
  void AddCpuSlice(uint32_t id, int64_t dur) {
    cpu_total_[id - 1] += dur;
    ++cpu_slices_[id - 1];
  }
  // By node (id - 1): the summed duration of its host-thread slices, and their number (0: no host
  // slice ends on this path).
  const std::vector<int64_t>& cpu_total() const { return cpu_total_; }
  const std::vector<uint32_t>& cpu_slices() const { return cpu_slices_; }

 private:
  // (parent, name, cat) -> id, open addressing with linear probing (a lookup per event: a node-based
  // map's pointer chasing was a third of the nesting's time). Slot: an id, 0 = empty.
  void Grow();
  static uint64_t Hash(uint32_t parent, uint32_t name, uint32_t cat) {
    uint64_t h = (uint64_t{parent} << 32 | name) * 0x9E3779B97F4A7C15ull ^ uint64_t{cat} * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 31);
  }
  std::vector<uint32_t> slots_;
  std::vector<Node> nodes_;  // id = index + 1
  std::vector<int64_t> cpu_total_;   // by node: summed duration of host-thread slices
  std::vector<uint32_t> cpu_slices_;  // by node: their number (0: no host slice ends on this path)
};

// Interns the (Input Dims, Input type) pairs of CPU ops: events store an input_shapes id, so that
// grouping ops by shape needs no JSON. Shared by the traces of one import, like stacks.
class InputShapes {
 public:
  uint32_t Intern(bool has_dims, std::string_view dims, bool has_types, std::string_view types);
  struct Shape {
    bool has_dims, has_types;
    std::string dims, types;
  };
  const std::deque<Shape>& shapes() const { return shapes_; }
  size_t written = 0;

 private:
  StringIdMap map_;               // views into keys_
  std::deque<std::string> keys_;  // flags, dims, '\0', types: one per shape
  std::string key_;               // the key being looked up
  std::deque<Shape> shapes_;      // id = index + 1
};

// The interners of one import, whose ids are the database's. A parallel import builds each trace
// with interners of its own and moves the trace to these ids before writing it (remap.h).
struct Interners {
  Interner strings;
  StackInterner stacks;
  ArgShapes shapes;
  InputShapes input_shapes;
  bool empty() const {
    return strings.size() <= 1 && stacks.nodes().empty() && shapes.sigs().empty() && input_shapes.shapes().empty();
  }
};

// A flow row: a start bound to a later step or end of the same (cat, id), or a point alone.
struct FlowRow {
  int64_t src = -1, dst = -1;  // event index or -1
  int32_t src_point = -1, dst_point = -1;
};

// The arg text of a trace's events, spilled to unlinked temporary files as it is parsed (memory
// holds only the fixed-size records): one file per event kind, so that writing the events kind by
// kind reads each one sequentially, and one for the args of E events (kEndFile), read back one by
// one.
class ArgSpill {
 public:
  static constexpr int kEndFile = kKindCount;
  // dir: where the files go; trace: the trace's path, for errors. The first file is opened at once
  // (to fail early if the directory cannot take temporary files).
  ArgSpill(std::string dir, std::string trace);
  ~ArgSpill();
  ArgSpill(const ArgSpill&) = delete;
  ArgSpill& operator=(const ArgSpill&) = delete;
  // Appends text to a file; returns its offset there.
  uint64_t Append(int file, std::string_view text);
  // Writes out what is buffered (before the files are read back).
  void Flush();
  // The descriptor of a file that text was appended to.
  int fd(int file) const { return fileno(files_[static_cast<size_t>(file)]); }

 private:
  FILE* File(int file);
  std::string dir_, trace_;
  std::array<FILE*, kKindCount + 1> files_{};
  std::array<uint64_t, kKindCount + 1> sizes_{};
};

// One trace, as TraceBuilder fills it (AddEvent) and completes it (Finish).
struct Trace {
  Trace(std::string trace_path, const std::string& spill_dir, Interner& string_ids, StackInterner& stack_ids,
        ArgShapes& arg_shapes, InputShapes& shape_ids)
      : path(std::move(trace_path)), strings(string_ids), stacks(stack_ids), shapes(arg_shapes), input_shapes(shape_ids),
        args(spill_dir, path) {}

  std::string path;
  // Shared by the traces of one import.
  Interner& strings;
  StackInterner& stacks;
  ArgShapes& shapes;
  InputShapes& input_shapes;

  Stats stats;
  std::vector<EventRec> events;
  // Promoted values (EventRec::promo, mask): 32 bits each, or 64 (two words, low first) for an
  // event whose values do not all fit in 32 (EventRec::wide: allocator addresses and sizes). Most
  // values (ids, sequence numbers, streams, input shapes) fit.
  std::vector<uint32_t> pool;
  std::vector<FlowPoint> flow_points;
  std::vector<ThreadRec> threads;
  std::vector<ProcessRec> processes;
  std::vector<EndArgs> end_args;  // args of E events, joined to their B's
  std::array<uint32_t, kKindCount> kind_count{};
  ArgSpill args;

  // Results of Finish(), by event index.
  std::vector<uint32_t> parent;  // event index + 1, 0 = none
  std::vector<int32_t> depth;    // -1 = NULL
  std::vector<uint32_t> stack;   // stack id, 0 = NULL
  std::vector<uint32_t> op;      // innermost cpu op ancestor-or-self, index + 1 (0 = none)
  std::vector<uint32_t> top_op;  // outermost cpu op ancestor-or-self, index + 1 (0 = none)
  std::vector<uint32_t> step;    // index + 1 in step_numbers, 0 = NULL (see Step())
  std::vector<int64_t> step_numbers;  // the ProfilerStep#N numbers, by start time
  std::vector<FlowRow> flow_rows;
  int64_t min_ts = std::numeric_limits<int64_t>::max(), max_end = std::numeric_limits<int64_t>::min();

  // A promoted value of an event (Promoted), or kNullTs.
  int64_t PromotedValue(const EventRec& e, int which) const {
    if (!(e.mask & (1u << which))) return kNullTs;
    return PromotedAt(e, static_cast<uint32_t>(__builtin_popcount(static_cast<unsigned>(e.mask) & ((1u << which) - 1))));
  }
  // The k-th promoted value that e has (in Promoted order).
  int64_t PromotedAt(const EventRec& e, uint32_t k) const {
    if (e.wide) {
      const uint32_t* w = pool.data() + e.promo + 2 * k;
      return static_cast<int64_t>(uint64_t{w[1]} << 32 | w[0]);
    }
    return static_cast<int32_t>(pool[e.promo + k]);
  }
  // An event's ProfilerStep number, kNullTs = NULL.
  int64_t Step(uint32_t i) const { return step[i] ? step_numbers[step[i] - 1] : kNullTs; }
  // The point that names a flow row (cat, name, id): its start, else its end.
  const FlowPoint& AnyPoint(const FlowRow& r) const { return flow_points[r.src_point >= 0 ? r.src_point : r.dst_point]; }
};

// SQL's name LIKE 'ProfilerStep#%' (LIKE ignores ASCII case), as the views test it.
bool LikeProfilerStep(std::string_view name);

}  // namespace tracesql

#endif  // SRC_IMPORT_TRACE_H_
