// tracesql export DB|TRACE -o FILE.json[.gz] [--with-trace] [--trace-id N] [--force]: the overlay
// tracks (src/export/timeline_export.cc), optionally with the trace's own events, as Chrome-trace JSON
// written through a temporary file.
#include <chrono>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "tracesql/advise.h"
#include "tracesql/cli.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/output_file.h"
#include "tracesql/timeline_export.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {
namespace {


void CheckOutput(const std::string& out, bool force, const std::vector<std::string>& inputs) {
  if (out.empty()) Errorf("give the file to write with -o FILE.json (or FILE.json.gz)");
  CheckNewOutput(out, force, inputs, "export");
}

}  // namespace

int Export(const std::string& file, const std::string& out, const ExportFlags& flags, const DbFlags& dbf) {
  auto t0 = std::chrono::steady_clock::now();
  if (file.empty()) Errorf("export: give a database or a trace");
  std::string db_path = file;
  std::vector<std::string> inputs{file};
  switch (SniffFile(file)) {
    case FileKind::kMissing: Errorf("{}: no such file", file);
    case FileKind::kDirectory: Errorf("{}: is a directory", file);
    case FileKind::kOther: Errorf("{}: neither a trace (.json, .json.gz) nor a SQLite database", file);
    case FileKind::kTrace:
      CheckOutput(out, flags.force, inputs);  // before the import: a refused output costs nothing
      db_path = DatabaseForShortcut(file);
      inputs.push_back(db_path);
      break;
    case FileKind::kSqlite: break;
  }
  UserDb db = UserDb::Open(db_path, dbf.any_db);
  if (db.schema_version() < kSchemaVersion) {
    Errorf("{}: made by an older tracesql (schema version {}; this one writes {}): import the trace again", db_path,
           db.schema_version(), kSchemaVersion);
  }
  {
    // The traces the database was imported from are inputs too: an export never replaces one.
    Stmt s = db.db().Prepare("SELECT path FROM traces");
    while (s.Step()) inputs.push_back(s.ColumnText(0));
  }
  CheckOutput(out, flags.force, inputs);
  timeline::ExportOptions options;
  options.trace_id = flags.trace_id;
  options.with_trace = flags.with_trace;
  options.rule_dirs = UserRuleDirs({});
  OutputFile output(out, IsGzipPath(out));
  timeline::ExportSummary sum;
  try {
    sum = timeline::Export(db.db(), options, [&](std::string& text) { output.Write(text); });
  } catch (const Error& e) {
    Errorf("{}: {}", db_path, e.what());
  }
  output.Commit();
  for (const auto& note : sum.notes) std::fprintf(stderr, "export: %s\n", note.c_str());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string events = fmt::format("{} overlay events", sum.overlay_events);
  if (flags.with_trace) events += fmt::format(", {} trace events", sum.trace_events);
  std::fprintf(stderr, "%s\n",
               fmt::format("wrote {}: trace {}, {}, {} flows ({:.1f} MB) in {:.2f} s", out, sum.trace_id, events,
                           sum.flows, static_cast<double>(output.bytes()) / 1e6, secs)
                   .c_str());
  return 0;
}

}  // namespace tracesql::cli
