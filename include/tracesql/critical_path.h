// Critical path of one trace over a time window (HTA's lightweight critical path analysis, with the
// departures docs/queries.md lists): a dependency graph of the host threads' CPU ops and runtime
// calls and of the GPU ops on each stream, built from a database through SQL (events, op_kernel_links,
// step_windows, gpu_op_classes), and the chain of dependencies that bounded the window's end.
// Knows nothing of the command line; src/cli/critical_path.cc calls it.
#ifndef TRACESQL_CRITICAL_PATH_H_
#define TRACESQL_CRITICAL_PATH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tracesql/db.h"

namespace tracesql::critical_path {

// The time window of one trace the path covers: [from, to) in ns.
struct Window {
  int64_t trace_id = 0;
  std::string label;  // critical_path.window: "step N", "FROM..TO" or "trace"
  int64_t from = 0;
  int64_t to = 0;
};

// What selects the window; unset fields are not given.
struct WindowRequest {
  std::optional<int64_t> trace_id;  // required when the database holds several traces
  std::optional<int64_t> step;      // a step_windows row (ProfilerStep#N's GPU window)
  std::optional<int64_t> from;      // with `to`: an explicit range in ns
  std::optional<int64_t> to;
};

// Resolves |request| against the database: the trace (the only one when none is given), then the
// step's window, the explicit range, or the whole trace (traces.start_ts..end_ts). Throws
// tracesql::Error for an unknown trace or step, a step window without time, or from >= to.
Window ResolveWindow(Db& db, const WindowRequest& request);

// One piece of the path: [ts, ts + dur) charged to event_id (0: none).
struct Piece {
  int64_t event_id = 0;
  int64_t ts = 0;
  int64_t dur = 0;
  const char* edge_kind = "";  // "op", "dependency", "launch", "kernel_kernel", "sync", "stream_wait"
  const char* bound_by = "";   // "cpu", "gpu_compute", "gpu_communication", "launch_overhead",
                               // "kernel_kernel_overhead", "sync", "data_loading"
};

// Builds the graph of the events inside |window| (and those running across its start) and returns
// the path from the window's start to its end, in time order, zero-length pieces left out: each
// piece starts where the previous one ends, the first at window.from, the last ends at window.to.
// Memory is proportional to the events in the window. Throws tracesql::Error on a SQL error.
std::vector<Piece> Compute(Db& db, const Window& window);

// Replaces the critical_path rows of (window.trace_id, window.label) with |path| in one transaction,
// creating the table first in a database imported before it existed.
void Write(Db& db, const Window& window, const std::vector<Piece>& path);

}  // namespace tracesql::critical_path

#endif  // TRACESQL_CRITICAL_PATH_H_
