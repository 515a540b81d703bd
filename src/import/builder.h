// TraceBuilder: takes the decoded events of one trace in file order (AddEvent) into a Trace in
// compact form (trace.h), then computes its nesting (parent, depth, enclosing CPU ops), call paths
// (stacks), steps and flow bindings (Finish). The writer (writer.h) writes the result.
#ifndef SRC_IMPORT_BUILDER_H_
#define SRC_IMPORT_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/trace.h"

namespace tracesql {

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

class TraceBuilder {
 public:
  TraceBuilder(std::string path, const std::string& spill_dir, Interner& strings, StackInterner& stacks,
               ArgShapes& shapes, InputShapes& input_shapes);

  void AddEvent(RawEvent& e);
  // Reserves room for about this many events (and their promoted values).
  void Reserve(size_t events);
  Interner& strings() { return trace_.strings; }
  Stats& stats() { return trace_.stats; }

  // Computes nesting, stacks, steps and flow bindings.
  void Finish();
  // The trace: complete once Finish() has run.
  Trace& trace() { return trace_; }

 private:
  uint32_t ThreadFor(const IdValue& pid, const IdValue& tid);
  uint32_t ProcessFor(const IdValue& pid);
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

  Trace trace_;
  std::unordered_map<std::string, uint32_t> thread_map_, process_map_;
  std::unordered_map<std::string, int> meta_seen_;
  // Cache of the last (pid, tid) lookup.
  IdValue last_pid_, last_tid_;
  uint32_t last_thread_ = UINT32_MAX;
  uint32_t last_ph_ = 0, last_cat_ = 0;
  std::vector<uint8_t> cat_class_;  // by string id: 0 unknown yet, 1 cpu, 2 gpu, 3 other
  std::vector<uint8_t> cat_kind_;   // by string id: EventKind + 1, 0 unknown yet
  // Finish()'s per-track slice order, for nesting and flow binding (freed at its end).
  std::vector<uint32_t> sorted_;  // slice indices sorted per thread by (ts, -dur, index)
  std::vector<std::pair<uint32_t, uint32_t>> thread_slices_;  // [begin, end) in sorted_
};

}  // namespace tracesql

#endif  // SRC_IMPORT_BUILDER_H_
