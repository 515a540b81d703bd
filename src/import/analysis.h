// The analysis tables the importer fills itself (analysis.cc; sql/views/*.sql files marked
// "-- @computed"), made from a finished Trace while its rows are written.
#ifndef SRC_IMPORT_ANALYSIS_H_
#define SRC_IMPORT_ANALYSIS_H_

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/trace.h"
#include "tracesql/db.h"

namespace tracesql {

struct ImportPages;

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
  bool gpu_segments = false, memory_devices = false, memory_levels = false, steps = false, op_gpu_totals = false,
       stream_queue = false;
  GpuOpNames* gpu_op_names = nullptr;  // needed by op_kernel_links (its name_id) and gpu_segments
  bool any() const {
    return op_kernel_links || idle_gaps || stream_idle_gaps || autograd_pairs || gpu_segments || memory_devices ||
           memory_levels || steps || op_gpu_totals || stream_queue;
  }
  // The names of the tables that are on.
  std::vector<const char*> Tables() const;
};

// What WriteComputed needs besides the trace: the tables that are on, and where this trace's ids
// start in the database.
struct ComputedIds : ComputedTables {
  int64_t trace_id = 0, base = 0, event_base = 0, thread_base = 0;
  const std::vector<uint32_t>* new_id = nullptr;  // trace.events index -> id - event_base
  const std::vector<std::pair<uint32_t, uint32_t>>* launch_flows = nullptr;  // LaunchFlows()
  const std::vector<std::pair<uint32_t, uint32_t>>* fwdbwd = nullptr;  // FwdBwdFlows()
  bool has_fwdbwd = false;  // the trace has fwdbwd flows (bound or not)
};

// (destination, source) event indices of the launch flows (ac2g and legacy names) bound at both
// ends, by destination: the launch of a GPU op that no runtime call's correlation names.
std::vector<std::pair<uint32_t, uint32_t>> LaunchFlows(const Trace& trace);
// (source, destination) event indices of the fwdbwd flows bound at both ends, in flows.id order;
// *any: whether the trace has fwdbwd flows at all.
std::vector<std::pair<uint32_t, uint32_t>> FwdBwdFlows(const Trace& trace, bool* any);
// Writes the trace's rows of the computed tables into `pages`; returns the tables whose rows of
// this trace it leaves to their SQL (and counts views_by_sql when times are too large for it). It
// runs on a thread of its own beside the writer's: it reads the trace's arrays and strings only,
// and sets trace.stats's views_by_sql and ids.gpu_op_names.
std::vector<const char*> WriteComputed(Trace& trace, ImportPages& pages, const ComputedIds& ids);

}  // namespace tracesql

#endif  // SRC_IMPORT_ANALYSIS_H_
