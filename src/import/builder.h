// TraceBuilder: collects the decoded events of one trace in compact form, then computes nesting,
// stacks and flow bindings, and writes every table. Arg text is spilled to an unlinked temporary
// file as it is parsed and streamed back in order while inserting, so memory holds only the
// fixed-size columns the final tables need.
#ifndef SRC_IMPORT_BUILDER_H_
#define SRC_IMPORT_BUILDER_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/btree_writer.h"
#include "import/stats.h"
#include "tracesql/db.h"

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
  uint64_t args_off = 0;  // arg values (JSON array text) in the spill file
  uint32_t args_len = 0;  // 0 = no args
  uint32_t shape = 0;     // ArgShapes id of the arg keys, 0 = no args
  uint32_t thread = 0;    // index into threads
  uint32_t name = 0;
  uint32_t cat = 0;
  uint32_t ph = 0;
  uint32_t promo = 0;     // index of the first promoted value in the pool
  uint16_t mask = 0;      // which promoted values are present
  uint8_t kind = 0;       // EventKind: which id range the event is written to
};

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

// Decoded fields of one event, handed from the parser to the builder.
struct RawEvent {
  std::string_view ph, cat, name;
  bool has_cat = false;
  IdValue pid, tid;
  int64_t ts = kNullTs, dur = kNullTs;
  bool has_id = false;
  IdValue id;
  bool bp_enclosing = false;
  std::string_view args;  // values as a minified JSON array, empty when the event has no args
  std::string_view arg_sig;  // the keys (see ArgShapes::Intern)
  uint16_t mask = 0;
  int64_t promoted[kPromotedCount] = {};
  // Input Dims / Input type: the JSON text of each value (record_shapes), for input_shapes.
  bool has_dims = false, has_types = false;
  std::string_view dims, types;
  // Metadata (M) args.
  std::string_view meta_name;
  bool has_meta_sort = false;
  int64_t meta_sort = 0;
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

struct ImportPages;

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
  // Writes every stack (all traces of the import) with its step-merged id and CPU self time.
  void Write(ImportPages& pages, const Interner& strings) const;

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

struct WriteCounts {
  int64_t events = 0, flows = 0;
  std::vector<const char*> sql_tables;  // computed tables whose rows of this trace are left to their SQL
};

// gpu_op_names over the traces of one import: each distinct (name, kind) of a GPU op, numbered in
// order of first appearance; written once after the last trace (sql/views/015_gpu_op_names.sql).
struct GpuOpNames {
  struct Row {
    uint32_t name;  // interned string id (0 = NULL)
    uint8_t kind;   // EventKind
    bool timed;
    int64_t ops;
  };
  std::vector<Row> rows;                       // id = index + 1
  std::unordered_map<uint64_t, uint32_t> ids;  // (name << 8 | kind) -> id
  uint32_t Id(uint32_t name, uint8_t kind, bool timed);
  void Write(Db& db, const Interner& strings) const;
};

// Which of the tables marked "-- @computed" in sql/views/ this import fills from the builder.
struct ComputedTables {
  bool op_kernel_links = false, idle_gaps = false, stream_idle_gaps = false, autograd_pairs = false;
  bool gpu_segments = false, memory_devices = false, steps = false;
  GpuOpNames* gpu_op_names = nullptr;  // needed by op_kernel_links (its name_id) and gpu_segments
  bool any() const {
    return op_kernel_links || idle_gaps || stream_idle_gaps || autograd_pairs || gpu_segments || memory_devices ||
           steps;
  }
  // The names of the tables that are on.
  std::vector<const char*> Tables() const;
};

// The tables whose rows make up most of an import, written as b-tree pages outside SQLite
// (btree_writer.h) for every trace, and placed into the database after the last (Place): SQLite's
// own row insertion and index builds were most of an import's single-threaded time. The events
// table and its two indexes have a path of their own (records encoded straight from the builder's
// rows; index keys sorted as packed integers); memory_args, flows and the computed tables go
// through PagedTable (RowWriter on pages). Pages of the events, memory_args and flows are made on
// the importing thread, those of the computed tables and stacks on the thread that computes them:
// each has its spill (the two share one scratch file) and its runs of index keys.
struct ImportPages {
  // The events columns in table order, as the records are written (checked against the schema).
  static constexpr const char* kColumns =
      "id, trace_id, thread_id, pid, tid, ph, cat, name, ts, dur, depth, parent_id, stack_id, external_id, "
      "correlation, seq_num, fwd_thread_id, python_id, python_parent_id, device, stream, cpu_op_id, "
      "top_cpu_op_id, step, arg_shape_id, arg_values, input_shape_id";
  // The indexes, as sql/indexes/ creates them (checked against the schema).
  static constexpr const char* kThreadTs = "CREATE INDEX events_thread_ts ON events(thread_id, ts)";
  static constexpr const char* kTraceCorrelation =
      "CREATE INDEX events_trace_correlation ON events(trace_id, correlation) WHERE correlation IS NOT NULL";
  // dir: the database's directory (the scratch files go there); db_label: for errors. computed:
  // the computed tables that are on (their pages are made beside the events').
  ImportPages(Db& db, const std::string& dir, const std::string& db_label, const struct ComputedTables& computed);
  // A paged table by name (an internal error if it is not one).
  btree::PagedTable& Table(std::string_view name);
  // The aux thread's tables: their index keys still in memory, as sorted runs.
  void FlushAux();
  // An event's keys in its two indexes (ts kNullTs: NULL; correlation nullptr: none), as its row
  // is encoded; EndTrace() after each trace's last.
  void AddIndexKeys(int64_t thread_id, int64_t ts, int64_t id, const int64_t* correlation);
  void EndTrace(int64_t trace_id);
  // Once the indexes exist (empty) in db: runs aux_first on the computing thread (rows of its
  // tables known only once every trace is read: the stacks), commits and closes db, places the
  // pages into its file at path and reopens it (with an open transaction) through reopen.
  void Place(Db& db, const std::string& path, const std::function<void()>& aux_first,
             const std::function<Db()>& reopen);

  btree::PageSpill spill;      // the importing thread's: events, their indexes, memory_args, flows
  btree::PageSpill aux_spill;  // the computing thread's: computed tables, stacks
  btree::RunSpill runs, aux_runs;
  btree::TableWriter events{spill};
  btree::IndexWriter thread_ts{spill};          // events_thread_ts: (thread_id, ts, id)
  btree::IndexWriter trace_correlation{spill};  // events_trace_correlation: (trace_id, correlation, id)
  // memory_args and flows (the importing thread's: its spill and runs), then the computing
  // thread's.
  std::vector<std::unique_ptr<btree::PagedTable>> tables;
  static constexpr size_t kMainTables = 2;

 private:
  struct Key {  // compared as (hi, lo)
    uint64_t hi, lo;
    bool operator<(const Key& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
  };
  struct TraceKeys {
    int64_t trace_id;
    size_t thread_pieces, correlation_pieces;  // the pieces up to and including this trace's
  };
  static constexpr size_t kKeysPerPiece = (1 << 20) / sizeof(Key);
  void SpillKeys(std::vector<Key>& keys, std::vector<std::pair<uint64_t, uint64_t>>& pieces);
  void WriteIndexEntries();  // the keys sorted, trace by trace, into thread_ts and trace_correlation
  std::vector<Key> thread_keys_, correlation_keys_;
  std::vector<std::pair<uint64_t, uint64_t>> thread_pieces_, correlation_pieces_;  // (offset, bytes) in runs
  std::vector<TraceKeys> traces_;
};

class TraceBuilder {
 public:
  TraceBuilder(std::string path, const std::string& spill_dir, Interner& strings, StackInterner& stacks,
               ArgShapes& shapes, InputShapes& input_shapes);
  ~TraceBuilder();

  void AddEvent(RawEvent& e, int64_t json_offset);
  // Reserves room for about this many events (and their promoted values).
  void Reserve(size_t events);
  Interner& strings() { return strings_; }
  Stats& stats() { return stats_; }

  // Computes nesting, stacks and flow bindings; returns seconds spent.
  void Finish();
  // Writes all rows of this trace: the events (and their index entries) into pages, the rest into
  // db. Ids continue from the bases in the database (events: from those in pages).
  WriteCounts Write(Db& db, ImportPages& pages, int64_t trace_id, const HeaderInfo& header,
                    const std::string& root_shape, int64_t file_bytes, int64_t json_bytes, bool compressed,
                    bool truncated, const ComputedTables& computed = {});

 private:
  uint32_t ThreadFor(const IdValue& pid, const IdValue& tid);
  uint32_t ProcessFor(const IdValue& pid);
  uint64_t Spill(int file, std::string_view text);
  FILE* SpillFile(int file);
  uint8_t KindOf(const EventRec& r, std::string_view name);
  void HandleMetadata(RawEvent& e);
  void ComputeNesting();
  void AssignSteps();
  bool IsCpuOp(const EventRec& e) const;
  // Flow point indices by (cat, id, ts, file order): the order BindFlows() pairs them in.
  std::vector<uint32_t> FlowPointOrder() const;
  void BindFlows(const std::vector<uint32_t>& order);
  int64_t Enclosing(uint32_t thread, int64_t t, const IdValue* correlation) const;
  int64_t NextSlice(uint32_t thread, int64_t t) const;
  bool Contains(uint32_t ev, int64_t t) const;
  int64_t PromotedValue(const EventRec& e, int which) const;
  struct ComputedIds : ComputedTables {
    int64_t trace_id = 0, base = 0, event_base = 0, thread_base = 0;
    const std::vector<uint32_t>* new_id = nullptr;  // events_ index -> id - event_base
    const std::vector<std::pair<uint32_t, uint32_t>>* launch_flows = nullptr;  // LaunchFlows()
    const std::vector<std::pair<uint32_t, uint32_t>>* fwdbwd = nullptr;  // FwdBwdFlows()
    bool has_fwdbwd = false;  // the trace has fwdbwd flows (bound or not)
  };
  // (destination, source) event indices of the launch flows (ac2g and legacy names) bound at both
  // ends, by destination: the launch of a GPU op that no runtime call's correlation names.
  std::vector<std::pair<uint32_t, uint32_t>> LaunchFlows() const;
  // (source, destination) event indices of the fwdbwd flows bound at both ends, in flows.id order;
  // *any: whether the trace has fwdbwd flows at all.
  std::vector<std::pair<uint32_t, uint32_t>> FwdBwdFlows(bool* any) const;
  // Writes this trace's flows into `out`'s pages with ids from flow_base + 1; returns how many.
  int64_t WriteFlows(ImportPages& out, const ComputedIds& ids, int64_t flow_base);
  // Writes this trace's rows of the computed tables (analysis.cc) into `out`'s pages; returns the
  // tables whose rows of this trace it leaves to their SQL (and counts views_by_sql when times are
  // too large for it). It runs on the computing thread: it reads the builder's arrays and strings
  // only, and sets stats_'s views_by_sql.
  std::vector<const char*> WriteComputed(ImportPages& out, const ComputedIds& ids);

  std::string path_;
  Interner& strings_;
  StackInterner& stacks_;
  ArgShapes& shapes_;
  InputShapes& input_shapes_;
  Stats stats_;
  std::vector<EventRec> events_;
  std::vector<int64_t> pool_;
  std::vector<FlowPoint> flow_points_;
  std::vector<ThreadRec> threads_;
  std::vector<ProcessRec> processes_;
  std::unordered_map<std::string, uint32_t> thread_map_, process_map_;
  std::vector<EndArgs> end_args_;
  std::unordered_map<std::string, int> meta_seen_;
  // Cache of the last (pid, tid) lookup.
  IdValue last_pid_, last_tid_;
  uint32_t last_thread_ = UINT32_MAX;
  uint32_t last_ph_ = 0, last_cat_ = 0;
  std::vector<uint8_t> cat_class_;  // by string id: 0 unknown yet, 1 cpu, 2 gpu, 3 other
  std::vector<uint8_t> cat_kind_;   // by string id: EventKind + 1, 0 unknown yet
  std::array<uint32_t, kKindCount> kind_count_{};

  // Spill files for args text: one per event kind (so that writing kind by kind reads each one
  // sequentially) and one for the args of E events (kEndSpill), read back one by one.
  static constexpr int kEndSpill = kKindCount;
  std::string spill_dir_;
  std::array<FILE*, kKindCount + 1> spill_{};
  std::array<uint64_t, kKindCount + 1> spill_size_{};

  // Results of Finish().
  std::vector<uint32_t> parent_;  // event index + 1, 0 = none
  std::vector<int32_t> depth_;    // -1 = NULL
  std::vector<uint32_t> stack_;   // stack id, 0 = NULL
  std::vector<uint32_t> op_;      // innermost cpu op ancestor-or-self, index + 1 (0 = none)
  std::vector<uint32_t> top_op_;  // outermost cpu op ancestor-or-self, index + 1 (0 = none)
  std::vector<int64_t> step_;     // ProfilerStep number, kNullTs = NULL
  std::vector<uint32_t> sorted_;  // slice indices sorted per thread by (ts, -dur, index)
  std::vector<std::pair<uint32_t, uint32_t>> thread_slices_;  // [begin, end) in sorted_
  struct FlowRow {
    int64_t src = -1, dst = -1;  // event index or -1
    int32_t src_point = -1, dst_point = -1;
  };
  std::vector<FlowRow> flow_rows_;
  // The point that names a flow row (cat, name, id): its start, else its end.
  const FlowPoint& AnyPoint(const FlowRow& r) const {
    return flow_points_[r.src_point >= 0 ? r.src_point : r.dst_point];
  }
  int64_t min_ts_ = std::numeric_limits<int64_t>::max(), max_end_ = std::numeric_limits<int64_t>::min();
};

// SQL's name LIKE 'ProfilerStep#%' (LIKE ignores ASCII case), as the views test it.
bool LikeProfilerStep(std::string_view name);

// JSON helpers shared by the importer.
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace tracesql

#endif  // SRC_IMPORT_BUILDER_H_
