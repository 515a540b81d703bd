#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "tracesql/cli.h"
#include "tracesql/cli_jobs.h"
#include "tracesql/combine.h"
#include "tracesql/partitions.h"
#include "tracesql/error.h"
#include "tracesql/params.h"
#include "tracesql/queries.h"
#include "tracesql/shell.h"
#include "tracesql/sql_runner.h"
#include "tracesql/user_db.h"
#include "tracesql/user_dirs.h"

namespace tracesql::cli {
namespace {

namespace fs = std::filesystem;

// "; did you mean top_kernels?" when a query's name is close to name, else "".
std::string DidYouMean(const std::string& name, const std::vector<std::string>& dirs) {
  std::string close = ClosestQueryName(name, dirs);
  return close.empty() ? "" : fmt::format("; did you mean {}?", close);
}

std::string ReadSqlFile(const std::string& path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) Errorf("{}: is a directory, not a SQL file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) Errorf("{}: cannot read SQL file", path);
  ss << in.rdbuf();
  return ss.str();
}

Params ParseParams(const std::vector<std::string>& args) {
  Params p;
  for (const auto& a : args) {
    auto [k, v] = ParseParamAssignment(a);
    p[k] = v;
  }
  return p;
}

bool NamedAsTrace(std::string_view path) {
  for (std::string_view ext : {".json", ".json.gz"}) {
    if (path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext) return true;
  }
  return false;
}

}  // namespace

RenderOptions ResolveOutput(const OutputFlags& flags) {
  RenderOptions ro;
  if (flags.format.empty()) {
    ro.mode = isatty(STDOUT_FILENO) ? OutputMode::kBox : OutputMode::kCsv;
  } else {
    auto mode = ParseOutputMode(flags.format);
    if (!mode) Errorf("unknown --format '{}' (use {})", flags.format, OutputModeList());
    ro.mode = *mode;
  }
  ro.header = !flags.no_header;
  ro.null_text = flags.null_text;
  winsize ws{};
  ro.ascii = !LocaleIsUtf8();
  if ((ro.mode == OutputMode::kBox || ro.mode == OutputMode::kTable || ro.mode == OutputMode::kBar) && isatty(STDOUT_FILENO) &&
      ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
    ro.max_width = ws.ws_col;
  }
  return ro;
}

void Execute(sqlite3* db, std::string_view sql, const SqlSource& source, const Params& params, const OutputFlags& out) {
  ExecOptions eo;
  eo.render = ResolveOutput(out);
  eo.params = &params;
  eo.out = stdout;
  eo.separate_results = true;
  ExecuteSql(db, sql, source, eo);
}

int Query(const std::string& db_path, const std::string& sql, const std::string& file,
          const std::vector<std::string>& param_args, const OutputFlags& out, const DbFlags& dbf) {
  if (sql.empty() == file.empty()) Errorf("give either SQL text or -f FILE");
  Params params = ParseParams(param_args);
  ResolveOutput(out);  // a bad --format fails before any work
  std::string text = file.empty() ? sql : ReadSqlFile(file);
  std::string source = file.empty() ? "<command line>" : (file == "-" ? "<stdin>" : file);
  CheckParamsKnown(params, ReferencedParams(text), file.empty() ? "the SQL" : source);
  if (IsPartitionDir(db_path)) return QueryJob(db_path, text, source, params, out, dbf);
  if (!dbf.combine.empty()) Errorf("--combine: {} is not a partition directory", db_path);
  UserDb db = UserDb::Open(db_path, dbf.any_db);
  AttachDatabases(db, dbf.attach, dbf.against, dbf.any_db);
  Execute(db.get(), text, SqlSource{source, 1}, params, out);
  return 0;
}

int Run(const std::string& db_path, const std::string& name, const std::vector<std::string>& param_args,
        const OutputFlags& out, const DbFlags& dbf) {
  Params params = ParseParams(param_args);
  ResolveOutput(out);
  std::vector<std::string> dirs = UserQueryDirs(dbf.queries_dirs);
  auto q = FindQuery(name, dirs);
  if (!q) Errorf("no query named '{}'{} (see `tracesql queries`)", name, DidYouMean(name, dirs));
  std::set<std::string> known = ReferencedParams(q->text);
  for (const auto& p : q->params) known.insert(p.name);
  if (dbf.per_partition && q->builtin) {
    // The per-partition SQL may take job-wide figures too (:job_devices: docs/scale.md).
    if (std::optional<std::string> partial = PartialSql(q->name)) known.merge(ReferencedParams(*partial));
  }
  CheckParamsKnown(params, known, q->name);
  CheckParamValues(*q, params);
  OutputFlags query_out = out;  // no --format: the query's own ("-- format: folded"), if it names one
  if (query_out.format.empty()) query_out.format = q->format;
  ResolveOutput(query_out);
  if (IsPartitionDir(db_path)) {
    if (dbf.per_partition) Errorf("{}: --per-partition runs a query on one partition database, not a directory", db_path);
    return RunJob(db_path, *q, params, query_out, dbf);
  }
  UserDb db = UserDb::Open(db_path, dbf.any_db);
  AttachDatabases(db, dbf.attach, dbf.against, dbf.any_db);
  if (dbf.per_partition) {
    PartitionQuery partition = PartitionQueryFor(*q, q->name);
    Execute(db.get(), partition.sql, partition.source, params, query_out);
    return 0;
  }
  Execute(db.get(), q->text, SqlSource{q->Source(), 1}, params, query_out);
  return 0;
}

int Queries(const std::string& show, bool combining, bool job_figures, const OutputFlags& out, const DbFlags& dbf) {
  std::vector<std::string> dirs = UserQueryDirs(dbf.queries_dirs);
  if (combining && show.empty()) Errorf("--combining prints the combining SQL of the query --show names");
  if (dbf.per_partition && show.empty()) Errorf("--per-partition prints the per-partition SQL of the query --show names");
  if (job_figures && show.empty()) Errorf("--job-figures prints the job-figures SQL of the query --show names");
  if (int(combining) + int(job_figures) + int(dbf.per_partition) > 1) {
    Errorf("--combining, --job-figures and --per-partition: choose one");
  }
  if (!show.empty()) {
    auto q = FindQuery(show, dirs);
    if (!q) Errorf("no query named '{}'{} (see `tracesql queries`)", show, DidYouMean(show, dirs));
    if (job_figures) {
      // Nothing for a query without one (its per-partition SQL takes no job-wide figure).
      std::string text = q->builtin ? JobFiguresSql(q->name).value_or("") : "";
      std::fwrite(text.data(), 1, text.size(), stdout);
      return 0;
    }
    std::string text = combining           ? CombiningSqlFor(*q, q->name)
                       : dbf.per_partition ? PartitionQueryFor(*q, q->name).sql
                                           : q->text;
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
    return 0;
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& q : ListQueries(dirs)) {
    std::string params;
    for (const auto& p : q.params) params += (params.empty() ? ":" : " :") + p.name;
    rows.push_back({q.name, q.description, params, q.Source() + (q.shadows_builtin ? " (shadows builtin)" : "")});
  }
  RenderTextTable({"name", "description", "params", "source"}, rows, ResolveOutput(out), stdout);
  return 0;
}

std::string DatabaseForTrace(const std::string& trace) {
  std::string base = trace;
  for (std::string_view ext : {".gz", ".json"}) {
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0) {
      base.resize(base.size() - ext.size());
    }
  }
  return base + ".db";
}

std::string DefaultImportOutput(const std::vector<std::string>& traces) {
  if (traces.size() != 1) {
    Errorf("{} traces go into one database: name it with -o DB (one trace alone goes to TRACE.db next to it)",
           traces.size());
  }
  return DatabaseForTrace(traces[0]);
}

void PrintImportSummary(const ImportSummary& s, const std::string& db_path) {
  double mb = static_cast<double>(s.json_bytes) / 1e6;
  std::fprintf(stderr, "imported %lld trace%s: %lld events, %lld flows in %.2f s (%.1f MB/s of JSON) -> %s\n",
               static_cast<long long>(s.traces), s.traces == 1 ? "" : "s", static_cast<long long>(s.events),
               static_cast<long long>(s.flows), s.seconds, s.seconds > 0 ? mb / s.seconds : 0.0, db_path.c_str());
}

enum class DbState { kMissing, kFresh, kStale };

// Whether db_path holds a tracesql database that can stand for the trace: at least as new as the
// trace and of this tracesql's schema version. Stale ones are imported again (with `why` saying
// why); a file there that is not a tracesql database is an error: it is never replaced. One of a
// newer schema version counts as fresh while newer than the trace (opening it then says the schema
// is too new for this tracesql).
DbState DatabaseState(const std::string& db_path, const std::string& trace, std::string* why) {
  if (SniffFile(db_path) == FileKind::kMissing) return DbState::kMissing;
  bool ours = false;
  int64_t version = 0;
  std::vector<std::string> sources;  // traces.path of each trace in it
  try {
    UserDb u = UserDb::Open(db_path, /*any_db=*/true);
    ours = u.is_tracesql();
    version = u.schema_version();
    Stmt s = u.db().Prepare("SELECT path FROM traces ORDER BY id");
    while (s.Step()) sources.push_back(s.ColumnText(0));
  } catch (const Error&) {
    ours = ours && version < kSchemaVersion && sources.empty();  // an old layout: imported again below
  }
  if (!ours) {
    Errorf("{}: exists and is not a tracesql database, so it is not replaced; import elsewhere with `tracesql "
           "import {} -o DB`",
           db_path, trace);
  }
  // Another trace's database of the same name (a.json and a.json.gz both give a.db), or one of several
  // traces: neither stands for this trace, nor is replaced by it.
  std::string want = fs::path(trace).filename().string();
  if (!sources.empty() && (sources.size() != 1 || fs::path(sources[0]).filename().string() != want)) {
    std::string held;
    for (const auto& p : sources) held += (held.empty() ? "" : ", ") + fs::path(p).filename().string();
    Errorf("{}: holds the trace{} {}, not {}, so it is neither used nor replaced; import elsewhere with `tracesql "
           "import {} -o DB`",
           db_path, sources.size() == 1 ? "" : "s", held, want, trace);
  }
  std::error_code ec1, ec2;
  auto db_time = fs::last_write_time(db_path, ec1);
  auto trace_time = fs::last_write_time(trace, ec2);
  if (ec1 || ec2 || db_time < trace_time) {
    *why = fmt::format("{} is older than {}", db_path, trace);
    return DbState::kStale;
  }
  if (version < kSchemaVersion) {
    *why = fmt::format("{} was made by an older tracesql (schema version {}; this one writes {})", db_path, version,
                       kSchemaVersion);
    return DbState::kStale;
  }
  return DbState::kFresh;
}

// The cache database of a trace: $XDG_CACHE_HOME/tracesql (else ~/.cache/tracesql), named after the
// trace and a hash of its full path (so two traces of one name in different directories differ).
// Empty when neither variable is set.
std::string CacheDatabaseFor(const std::string& trace) {
  std::string dir = UserDir("XDG_CACHE_HOME", ".cache");
  if (dir.empty()) return dir;
  std::error_code ec;
  fs::path full = fs::weakly_canonical(fs::absolute(trace, ec), ec);
  if (ec) full = fs::absolute(trace, ec).lexically_normal();
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : full.string()) h = (h ^ c) * 1099511628211ull;
  std::string name = fs::path(DatabaseForTrace(fs::path(trace).filename().string())).stem().string();
  return (fs::path(dir) / fmt::format("{}-{:016x}.db", name, h)).string();
}

// The database `tracesql TRACE` opens, and whether to import it first: NAME.db next to the trace,
// imported when missing, older than the trace or made by an older tracesql (DatabaseState). When
// the trace's directory is not writable (a read-only mount, a shared directory) and no up-to-date
// database is there, the user's cache directory holds it instead (CacheDatabaseFor).
std::pair<std::string, bool> ShortcutDatabase(const std::string& trace) {
  std::string next = DatabaseForTrace(trace), why;
  DbState state = DatabaseState(next, trace, &why);
  if (state == DbState::kFresh) return {next, false};
  fs::path dir = fs::path(next).parent_path();
  if (dir.empty()) dir = ".";
  // Writable, or no cache directory to go to: next to the trace (the import names any problem).
  std::string db = access(dir.c_str(), W_OK | X_OK) == 0 ? "" : CacheDatabaseFor(trace);
  if (db.empty()) {
    db = next;
  } else {
    std::fprintf(stderr, "%s is not writable: the database is kept in %s\n", dir.c_str(), db.c_str());
    state = DatabaseState(db, trace, &why);
    if (state == DbState::kFresh) return {db, false};
    std::error_code ec;
    fs::create_directories(fs::path(db).parent_path(), ec);
    if (ec) Errorf("{}: cannot create the cache directory: {}", fs::path(db).parent_path().string(), ec.message());
  }
  if (state == DbState::kStale) std::fprintf(stderr, "%s: importing again\n", why.c_str());
  return {db, true};
}

std::string DatabaseForShortcut(const std::string& trace) {
  auto [db_path, import] = ShortcutDatabase(trace);
  if (import) {
    ImportOptions opt;
    opt.force = true;
    opt.progress = isatty(STDERR_FILENO);
    PrintImportSummary(ImportTraces({trace}, db_path, opt), db_path);
  }
  return db_path;
}

int Open(const std::string& file, bool bail, const OutputFlags& out, const DbFlags& dbf) {
  ShellOptions so;
  so.any_db = dbf.any_db;
  so.bail = bail;
  so.queries_dirs = dbf.queries_dirs;
  so.null_text = out.null_text;
  so.header = !out.no_header;
  if (!out.format.empty()) so.mode = ResolveOutput(out).mode;
  switch (SniffFile(file)) {
    case FileKind::kMissing: Errorf("{}: no such file", file);
    case FileKind::kDirectory: Errorf("{}: is a directory", file);
    case FileKind::kOther:
      // Named as a trace: imported as one, so the importer says what is wrong, as `tracesql import` does.
      if (!NamedAsTrace(file)) Errorf("{}: neither a trace (.json, .json.gz) nor a SQLite database", file);
      break;
    case FileKind::kSqlite:
      so.db_path = file;
      return RunShell(so);
    case FileKind::kTrace: break;
  }
  so.db_path = DatabaseForShortcut(file);
  return RunShell(so);
}

}  // namespace tracesql::cli
