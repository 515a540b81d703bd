// The subcommands behind `tracesql query | run | queries | TRACE | DB` (src/cli/commands.cc). Each returns
// the exit status, or throws tracesql::Error (main prints "tracesql: error: <what>" and exits 1).
#ifndef TRACESQL_CLI_H_
#define TRACESQL_CLI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/critical_path.h"
#include "tracesql/import.h"
#include "tracesql/render.h"
#include "tracesql/report.h"
#include "tracesql/sql_runner.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {

// Output flags every command that prints results takes.
struct OutputFlags {
  std::string format;     // empty: box when stdout is a terminal, csv otherwise
  std::string null_text;  // --null
  bool no_header = false;  // --no-header
};

// Flags of commands that open a database and find queries.
struct DbFlags {
  bool any_db = false;                    // --any-db
  std::vector<std::string> queries_dirs;  // --queries-dir (repeatable)
  std::vector<std::string> attach;        // --attach [ALIAS=]PATH (repeatable; query, run, shell)
  std::string against;                    // --against PATH (query, run, shell)
  std::string combine;                    // --combine SQL (query over a partition directory)
  bool per_partition = false;             // --per-partition (run, queries --show): a query's per-partition SQL
};

// Attaches each --attach [ALIAS=]PATH read-only (unnamed ones as b, c, d, ...), after the same checks as
// the main database (throws tracesql::Error naming the file). With against (--against PATH): attaches it
// read-only as b and creates a temporary view over each of its tables and views, so that unqualified
// names read it while main.NAME reads db (the two sides of trace_diff).
void AttachDatabases(UserDb& db, const std::vector<std::string>& attach, const std::string& against, bool any_db);

// The render options flags ask for; throws tracesql::Error for an unknown format.
RenderOptions ResolveOutput(const OutputFlags& flags);

// Runs sql's statements on db, params bound, and prints each result set as out asks: what `query`
// and `run` print, of a database or of a partition directory's combining step.
void Execute(sqlite3* db, std::string_view sql, const SqlSource& source, const Params& params, const OutputFlags& out);

// tracesql query DB "SQL" | -f FILE.sql [-p key=value]...
int Query(const std::string& db, const std::string& sql, const std::string& file,
          const std::vector<std::string>& params, const OutputFlags& out, const DbFlags& dbf);

// tracesql run DB NAME [-p key=value]...
int Run(const std::string& db, const std::string& name, const std::vector<std::string>& params,
        const OutputFlags& out, const DbFlags& dbf);

// tracesql critical-path DB [--trace-id N] [--step N | --from TS --to TS] (src/cli/critical_path.cc):
// writes the window's critical_path rows, then prints critical_path_summary of that window.
int CriticalPath(const std::string& db, const critical_path::WindowRequest& request, const OutputFlags& out,
                 const DbFlags& dbf);

// tracesql export DB|TRACE -o FILE.json[.gz] [--with-trace] [--trace-id N] [--force] (src/cli/export.cc):
// the overlay tracks (steps, GPU idle gaps by cause, the critical path, the advisor's findings) as
// Chrome-trace JSON, with the trace's own events when with_trace; see docs/timeline.md.
struct ExportFlags {
  std::optional<int64_t> trace_id;  // --trace-id N
  bool with_trace = false;          // --with-trace
  bool force = false;               // --force
};
int Export(const std::string& file, const std::string& out, const ExportFlags& flags, const DbFlags& dbf);

// tracesql queries [--show NAME [--combining | --job-figures | --per-partition]]
int Queries(const std::string& show, bool combining, bool job_figures, const OutputFlags& out, const DbFlags& dbf);

// tracesql advise DB|TRACE [--rule NAME] [--all] [--list] [-p key=value]... (src/cli/advise.cc)
struct AdviseFlags {
  std::string rule;                    // --rule NAME
  bool all = false;                    // --all: also list the rules run and what each found
  bool list = false;                   // --list: list the rules instead of running them
  bool timings = false;                // --timings: each rule's wall time on stderr
  std::vector<std::string> rules_dirs; // --rules-dir (repeatable)
};
int Advise(const std::string& file, const std::vector<std::string>& params, const AdviseFlags& flags,
           const OutputFlags& out, const DbFlags& dbf);

// The database `tracesql TRACE` uses for a trace (see DatabaseForTrace), imported first when it is
// missing, older than the trace or made by an older tracesql; in the user's cache directory when the
// trace's directory is not writable.
std::string DatabaseForShortcut(const std::string& trace);

// tracesql TRACE.json[.gz] | DB: imports the trace next to itself when needed, then opens the shell.
int Open(const std::string& file, bool bail, const OutputFlags& out, const DbFlags& dbf);

// tracesql report DB|DIR|TRACE... -o FILE.html [--force]: one database, one partition directory (its
// datasets combined over the partitions, as `tracesql run DIR NAME` prints them), or traces imported
// first (one trace as the shortcut does; several into one database next to the report: FILE.db).
int Report(const std::vector<std::string>& inputs, const std::string& out, bool force);

// The report's options for the database at db_path, as `tracesql report` and `.report` write it: the
// `tracesql run` lines name db_path, and the advise rules' findings head the page.
ReportOptions ReportOptionsFor(const std::string& db_path);

// The database the shortcut uses for a trace: its path without ".json"/".json.gz", plus ".db".
// E.g. "run/rank0.pt.trace.json.gz" -> "run/rank0.pt.trace.db".
std::string DatabaseForTrace(const std::string& trace);

// The database `tracesql import` writes without -o: DatabaseForTrace of its one trace. Several traces
// have no obvious name: throws tracesql::Error asking for -o.
std::string DefaultImportOutput(const std::vector<std::string>& traces);

// The one-line summary `tracesql import` prints on stderr.
void PrintImportSummary(const ImportSummary& s, const std::string& db_path);

}  // namespace tracesql::cli

#endif  // TRACESQL_CLI_H_
