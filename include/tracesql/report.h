// `tracesql report`: one self-contained HTML page (no request to any host) whose charts and tables
// are the result sets of bundled queries, run on a database, embedded as JSON and laid out by a
// small script. The page names each query and the `tracesql run` line that reproduces it.
#ifndef TRACESQL_REPORT_H_
#define TRACESQL_REPORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracesql/combine.h"
#include "tracesql/params.h"
#include "tracesql/queries.h"

struct sqlite3;

namespace tracesql {

// One result set drawn on the page: a bundled query and the parameters the report gives it.
struct ReportDataset {
  std::string key;    // what the page's script calls it ("util", "kernels", ...)
  std::string query;  // bundled query name
  std::vector<std::pair<std::string, std::string>> params;
  // Its query's CPU time on a 16-rank, 2.19 M-event database (ms), a hint only: the longest start
  // first, so that the connections finish together instead of waiting for one long query begun last.
  int cost_ms = 0;
};

// The datasets every report runs, in page order, with the parameters of a database of few devices.
// "devices" (bundled query worst_devices) chooses the devices whose charts the page draws when it
// cannot draw every one: at most kDeviceCharts (the page's script draws as many).
const std::vector<ReportDataset>& ReportDatasets();
inline constexpr int64_t kDeviceCharts = 16;

// The per-device series (gpu_utilization buckets, memory_timeline points, collective_ranks top) get
// a budget of points over all devices: a parameter is min(its value in ReportDatasets(),
// max(floor, budget / devices)), so that the page's size grows slowly with the devices. Up to 16
// devices the parameters are ReportDatasets()'s, without "devices" (every device is drawn) unless
// devices is 0 (not known).
std::vector<ReportDataset> ReportDatasetsFor(int64_t devices);

struct ReportOptions {
  std::string db_label;  // the database as `tracesql run` lines on the page name it
  // Findings at the top of the page: a statement yielding rows of (trace_id, rule, severity,
  // time_lost_ns, title, evidence, advice), and the command that reproduces them. prepare, when set,
  // runs first on the connection that then runs sql (it makes the temporary tables sql reads).
  // Without findings the page has no findings section.
  // prepare may also compute some datasets' results (the advisor runs some of the page's queries with
  // the same parameters): the datasets named in shared wait for it and run on its connection after
  // it; prepare returns, for those it computed, the dataset key -> the temporary table holding the
  // query's rows in its order, which the page then reads instead of running the query again.
  struct Findings {
    std::string sql;
    std::string command;
    std::function<std::map<std::string, std::string>(sqlite3*)> prepare;
    std::vector<std::string> shared;  // dataset keys
  };
  std::optional<Findings> findings;
  // The devices the per-device series are sized for (ReportDatasetsFor); 0: the database's traces
  // (one GPU each in a job of one trace per rank), or for BuildJobReportHtml ReportDatasets()'s
  // parameters (`tracesql report DIR` gives the job's traces, one a partition).
  int64_t devices = 0;
  // Connections running the queries at once (0: one per core, at most 8).
  int threads = 0;
};

// The HTML page for the tracesql database at db_path, opened read-only on options.threads
// connections that run the datasets' queries in parallel. Throws tracesql::Error when the database
// cannot be opened or a dataset's query is missing from the bundle; a query that fails on this
// database is shown as failed on the page.
std::string BuildReportHtml(const std::string& db_path, const ReportOptions& options);

// How the page of a partition directory gets a dataset: runs bundled query q with params over the
// partitions as `tracesql run DIR NAME` does (cli::RunJobInto) and hands its combining step to step.
using JobQuery = std::function<void(const QueryFile& q, const Params& params, const CombineStep& step)>;

// The page for a partition directory (docs/scale.md), as the page of the database merging its
// partitions shows it: each dataset is its bundled query run over the partitions by `run` and
// read from the combining step, the rows `tracesql run DIR NAME` prints. A dataset whose query has no
// combining SQL (queries/combine/NAME.sql) is on the page as not available, naming why (merge
// first); so are the findings (options.findings is not used): the rules read one database. The
// datasets run one after the other. The `tracesql run` lines name options.db_label (the directory
// as the user gave it).
std::string BuildJobReportHtml(const JobQuery& run, const ReportOptions& options);

// The POSIX shell word for s: as it is when it holds only safe characters, else in single quotes (the
// page's `tracesql run` lines quote the database path with it).
std::string ShellWord(std::string_view s);

// Writes html to out_path through a temporary file in the same directory, renamed into place when
// complete: an existing out_path is refused unless force (and is never one of inputs, which are
// compared by identity, not by name). Throws tracesql::Error, leaving nothing behind.
void WriteReportFile(const std::string& html, const std::string& out_path, bool force,
                     const std::vector<std::string>& inputs);

}  // namespace tracesql

#endif  // TRACESQL_REPORT_H_
