// tracesql report DB|DIR|TRACE... -o FILE.html [--force]
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "tracesql/advise.h"
#include "tracesql/cli.h"
#include "tracesql/cli_jobs.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/import.h"
#include "tracesql/partitions.h"
#include "tracesql/queries.h"
#include "tracesql/report.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {
namespace {

namespace fs = std::filesystem;

void CheckOutput(const std::string& out, bool force, const std::vector<std::string>& inputs) {
  if (out.empty()) Errorf("give the report's file with -o FILE.html");
  CheckNewOutput(out, force, inputs, "report");
  std::error_code ec;
  // Its directory must take a new file, or a trace would be imported for nothing.
  fs::path dir = fs::path(out).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) Errorf("{}: cannot write the report: {}", out, std::strerror(ENOENT));
  if (access(dir.c_str(), W_OK | X_OK) != 0) Errorf("{}: cannot write the report: {}", out, std::strerror(errno));
}

// True when the bundled query a with parameters pa gives the same rows as b with pb: the same query,
// and every parameter either given the same value or left at the default its header documents
// (which the query's SQL applies to a NULL).
bool SameRun(const std::string& a, const Params& pa, const std::string& b, const Params& pb) {
  if (a != b) return false;
  auto q = FindQuery(a, {});
  if (!q || !q->builtin) return false;
  auto effective = [&](const Params& given) {
    Params out;
    for (const QueryParamDoc& p : q->params) out[p.name] = p.default_value == "NULL" ? "" : p.default_value;
    for (const auto& [k, v] : given) out[k] = v;
    return out;
  };
  return effective(pa) == effective(pb);
}

// Writes the report of a partition directory, its datasets combined over the partitions
// (BuildJobReportHtml); the page's size.
size_t ReportJob(const std::string& dir_path, const std::string& out, bool force) {
  PartitionDir dir = OpenPartitionDir(dir_path);  // every partition checked before any query runs
  std::vector<std::string> protect{dir.manifest};
  for (const Partition& p : dir.parts) protect.push_back(p.path);
  ReportOptions ro;
  ro.db_label = dir_path;
  // The job's traces, as the report of the merged database counts them (its traces table): one a
  // partition. The per-device series get the same budgets (ReportDatasetsFor) over both.
  ro.devices = static_cast<int64_t>(dir.parts.size());
  auto run = [&dir](const QueryFile& q, const Params& params, const CombineStep& step) {
    RunJobInto(dir, q, params, step);
  };
  std::string html = BuildJobReportHtml(run, ro);
  WriteReportFile(html, out, force, protect);
  return html.size();
}

}  // namespace

ReportOptions ReportOptionsFor(const std::string& db_path) {
  ReportOptions ro;
  ro.db_label = db_path;
  // The advise rules (bundled, and the user's as `tracesql advise` finds them) run on the
  // connection that then reads their findings. The page's datasets that some rule's "-- uses:" runs
  // with the same parameters are read from the advisor's result instead of run a second time.
  std::vector<std::string> rule_dirs = UserRuleDirs({});
  std::vector<RuleFile> rules = ListRules(rule_dirs);
  auto same = [](const UsedQuery& u, const ReportDataset& d) {
    return SameRun(u.name, u.params, d.query, Params(d.params.begin(), d.params.end()));
  };
  std::vector<ReportDataset> shared;  // the datasets some rule computes
  for (const ReportDataset& d : ReportDatasets()) {
    bool used = false;
    for (const RuleFile& rule : rules) {
      for (const UsedQuery& u : rule.uses) used = used || same(u, d);
    }
    if (used) shared.push_back(d);
  }
  ro.findings = ReportOptions::Findings{std::string(FindingsSql()), "tracesql advise " + ShellWord(db_path), {}, {}};
  for (const ReportDataset& d : shared) ro.findings->shared.push_back(d.key);
  ro.findings->prepare = [rule_dirs, shared, same](sqlite3* db) {
    AdviseOptions ao;
    ao.rule_dirs = rule_dirs;
    ao.keep = [&](const UsedQuery& u) {
      return std::any_of(shared.begin(), shared.end(), [&](const ReportDataset& d) { return same(u, d); });
    };
    std::map<std::string, std::string> tables;  // dataset key -> the table holding its rows
    for (const KeptQuery& k : Advise(db, ao).kept) {
      for (const ReportDataset& d : shared) {
        if (same(k.query, d)) tables[d.key] = k.table;
      }
    }
    return tables;
  };
  return ro;
}

int Report(const std::vector<std::string>& inputs, const std::string& out, bool force) {
  auto t0 = std::chrono::steady_clock::now();
  if (inputs.empty()) Errorf("give a database, a partition directory, or one or more traces");
  CheckOutput(out, force, inputs);  // before any import: a refused output costs nothing
  auto wrote = [&](size_t bytes) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "wrote %s (%.0f KB) in %.2f s\n", out.c_str(), static_cast<double>(bytes) / 1024.0, secs);
  };
  if (inputs.size() == 1 && IsPartitionDir(inputs[0])) {
    wrote(ReportJob(inputs[0], out, force));
    return 0;
  }
  size_t traces = 0, dbs = 0;
  for (const auto& in : inputs) {
    switch (SniffFile(in)) {
      case FileKind::kMissing: Errorf("{}: no such file", in);
      case FileKind::kDirectory:
        if (IsPartitionDir(in)) Errorf("{}: a partition directory is reported alone (give it as the only input)", in);
        Errorf("{}: is a directory", in);
      case FileKind::kOther: Errorf("{}: neither a trace (.json, .json.gz) nor a SQLite database", in);
      case FileKind::kSqlite: ++dbs; break;
      case FileKind::kTrace: ++traces; break;
    }
  }
  if (dbs > 1 || (dbs == 1 && traces > 0)) Errorf("give one database, or traces (not both)");
  std::string db_path;
  std::vector<std::string> protect = inputs;
  if (dbs == 1) {
    db_path = inputs[0];
  } else if (traces == 1) {
    db_path = DatabaseForShortcut(inputs[0]);
    protect.push_back(db_path);
  } else {
    // Several traces (the ranks of one job): one database next to the report, named after it, so
    // that the page's `tracesql run` lines can be run on it.
    fs::path p(out);
    db_path = (p.parent_path() / (p.stem().string() + ".db")).string();
    for (const auto& in : inputs) {
      std::error_code ec;
      if (fs::exists(db_path, ec) && fs::equivalent(db_path, in, ec)) {
        Errorf("{}: is an input of this report, never overwritten (choose another -o)", db_path);
      }
    }
    ImportOptions opt;
    opt.force = force;
    opt.progress = isatty(STDERR_FILENO);
    PrintImportSummary(ImportTraces(inputs, db_path, opt), db_path);
    protect.push_back(db_path);
  }
  UserDb db = UserDb::Open(db_path, /*any_db=*/false);
  if (db.schema_version() < kSchemaVersion) {
    Errorf("{}: made by an older tracesql (schema version {}; this one writes {}): import the trace again", db_path,
           db.schema_version(), kSchemaVersion);
  }
  db.Close();
  std::string html = BuildReportHtml(db_path, ReportOptionsFor(db_path));
  WriteReportFile(html, out, force, protect);
  wrote(html.size());
  return 0;
}

}  // namespace tracesql::cli
