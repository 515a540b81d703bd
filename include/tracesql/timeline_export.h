// A trace's findings back on its timeline: Chrome-trace JSON (ui.perfetto.dev, chrome://tracing) of
// overlay tracks made by bundled SQL (timeline_overlay: steps, GPU idle gaps by cause, the critical
// path; timeline_flows: the arrows; the advisor's findings as instants), optionally together with the
// trace's own events read back from the database (events, event_args, flows, processes, threads), so
// one file opens with both. Every number comes from SQL; this only places it. Knows nothing of the
// command line; src/cli/export.cc calls it. See docs/timeline.md.
#ifndef TRACESQL_TIMELINE_EXPORT_H_
#define TRACESQL_TIMELINE_EXPORT_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tracesql/db.h"

namespace tracesql::timeline {

struct ExportOptions {
  std::optional<int64_t> trace_id;     // required when the database holds several traces
  bool with_trace = false;             // also write the trace's own events, flows and tracks
  bool compute_critical_path = true;   // no critical_path rows for the trace: compute each step's
                                       // (the whole trace's without steps) and write them first
  bool findings = true;                // run the advise rules (rule_dirs) and mark their findings
  std::vector<std::string> rule_dirs;  // user rule directories (UserRuleDirs)
};

struct ExportSummary {
  int64_t trace_id = 0;
  int64_t trace_events = 0;    // events of the trace written (with_trace)
  int64_t overlay_events = 0;  // slices and instants of the overlay tracks
  int64_t flows = 0;           // arrows written (flow starts)
  int64_t overlay_pid = 0;     // the overlay's process id
  std::vector<std::string> notes;  // what was done on the way ("critical path computed for 3 steps")
};

// Writes the JSON to sink in pieces (each call may take the text out of the string it is given).
// Throws tracesql::Error for an unknown trace, a database holding several traces without trace_id,
// or a SQL error.
ExportSummary Export(Db& db, const ExportOptions& options, const std::function<void(std::string&)>& sink);

// The overlay's process id for a trace: one more than its largest integer pid (1 when it has none),
// so it never shares a process with the trace's own events.
int64_t OverlayPid(Db& db, int64_t trace_id);

}  // namespace tracesql::timeline

#endif  // TRACESQL_TIMELINE_EXPORT_H_
