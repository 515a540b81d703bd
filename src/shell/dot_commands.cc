// Dot-commands: one table (kDotCommands) drives dispatch, `.help` and tab completion. None of them runs
// a system command: there is no .shell / .system, and .output / .once take a file name, never a pipe.
#include <sqlite3.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "shell/shell.h"
#include "tracesql/advise.h"
#include "tracesql/cli.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/import.h"
#include "tracesql/queries.h"
#include "tracesql/report.h"

namespace tracesql::shell {
namespace {

namespace fs = std::filesystem;

bool ParseBool(const std::string& s) {
  if (s == "on" || s == "yes" || s == "true" || s == "1") return true;
  if (s == "off" || s == "no" || s == "false" || s == "0") return false;
  Errorf("expected on or off, not '{}'", s);
}

// A file name argument: 'my file.csv' as my file.csv.
std::string FileArg(const std::string& word) {
  if (word.size() >= 2 && word.front() == '\'' && word.back() == '\'') return word.substr(1, word.size() - 2);
  return word;
}

void Print(Shell& sh, std::string_view text) { std::fwrite(text.data(), 1, text.size(), sh.out()); }

size_t OutputWidth(Shell& sh) {
  winsize ws{};
  if (sh.out() == stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 80;
}

// Names in columns, filled row by row (as the sqlite3 shell's .tables).
void PrintColumns(Shell& sh, const std::vector<std::string>& names) {
  if (names.empty()) return;
  size_t w = 0;
  for (const auto& n : names) w = std::max(w, DisplayWidth(n));
  w += 2;
  size_t per_line = std::max<size_t>(1, OutputWidth(sh) / w);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    bool last_in_line = (i + 1) % per_line == 0 || i + 1 == names.size();
    out += names[i];
    if (!last_in_line) out.append(w - DisplayWidth(names[i]), ' ');
    if (last_in_line) out += '\n';
  }
  Print(sh, out);
}

DotResult RunHelp(Shell& sh, const std::vector<std::string>& args) {
  std::string text = DotHelp(args.empty() ? "" : args[0]);
  if (text.empty()) Errorf("no dot-command matches '{}'", args[0]);
  Print(sh, text);
  return DotResult::kOk;
}

DotResult RunTables(Shell& sh, const std::vector<std::string>& args) {
  Stmt s = sh.db().db().Prepare(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
      "AND (?1 IS NULL OR name LIKE ?1) ORDER BY name");
  if (!args.empty()) s.BindTextCopy(1, args[0]);
  std::vector<std::string> names;
  while (s.Step()) names.push_back(s.ColumnText(0));
  PrintColumns(sh, names);
  return DotResult::kOk;
}

DotResult RunSchema(Shell& sh, const std::vector<std::string>& args) {
  Stmt s = sh.db().db().Prepare(
      "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
      "AND (?1 IS NULL OR name LIKE ?1 OR (type = 'index' AND tbl_name LIKE ?1)) ORDER BY rowid");
  if (!args.empty()) s.BindTextCopy(1, args[0]);
  std::string out;
  int n = 0;
  while (s.Step()) {
    out += s.ColumnText(0) + ";\n";
    ++n;
  }
  if (n == 0 && !args.empty()) Errorf("no table, view or index matches '{}'", args[0]);
  Print(sh, out);
  return DotResult::kOk;
}

DotResult RunMode(Shell& sh, const std::vector<std::string>& args) {
  if (args.empty()) {
    Print(sh, fmt::format("current output mode: {}\n", OutputModeName(sh.render().mode)));
    return DotResult::kOk;
  }
  auto mode = ParseOutputMode(args[0]);
  if (!mode) Errorf("unknown mode '{}' (use {})", args[0], OutputModeList());
  sh.render().mode = *mode;
  return DotResult::kOk;
}

DotResult RunHeaders(Shell& sh, const std::vector<std::string>& args) {
  sh.render().header = ParseBool(args[0]);
  return DotResult::kOk;
}

DotResult RunNullvalue(Shell& sh, const std::vector<std::string>& args) {
  sh.render().null_text = args.empty() ? "" : args[0];
  return DotResult::kOk;
}

DotResult RunTimer(Shell& sh, const std::vector<std::string>& args) {
  sh.timer() = ParseBool(args[0]);
  return DotResult::kOk;
}

DotResult RunBail(Shell& sh, const std::vector<std::string>& args) {
  sh.bail() = ParseBool(args[0]);
  return DotResult::kOk;
}

DotResult RunRead(Shell& sh, const std::vector<std::string>& args) {
  constexpr int kMaxNesting = 25;  // as the sqlite3 shell's MAX_INPUT_NESTING
  std::string path = FileArg(args[0]);
  if (sh.read_depth >= kMaxNesting) Errorf("{}: .read nested more than {} deep", path, kMaxNesting);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) Errorf("{}: cannot open: {}", path, std::strerror(errno));
  ++sh.read_depth;
  auto reader = MakeFileReader(f);
  bool ok = sh.ProcessInput(*reader, path, false);
  --sh.read_depth;
  std::fclose(f);
  return ok ? DotResult::kOk : DotResult::kError;
}

DotResult RunQueries(Shell& sh, const std::vector<std::string>& /*args*/) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& q : ListQueries(sh.QueryDirs())) {
    std::string params;
    for (const auto& p : q.params) params += (params.empty() ? ":" : " :") + p.name;
    rows.push_back({q.name, q.description, params, q.Source() + (q.shadows_builtin ? " (shadows builtin)" : "")});
  }
  sh.WriteTable({"name", "description", "params", "source"}, rows);
  return DotResult::kOk;
}

QueryFile FindOrFail(Shell& sh, const std::string& name) {
  auto q = FindQuery(name, sh.QueryDirs());
  if (!q) {
    std::string close = ClosestQueryName(name, sh.QueryDirs());
    Errorf("no query named '{}'{} (see .queries)", name, close.empty() ? "" : "; did you mean " + close + "?");
  }
  return *q;
}

DotResult RunRun(Shell& sh, const std::vector<std::string>& args) {
  QueryFile q = FindOrFail(sh, args[0]);
  Params given;
  for (size_t i = 1; i < args.size(); ++i) {
    auto [k, v] = ParseParamAssignment(args[i]);
    given[k] = v;
  }
  std::set<std::string> known = ReferencedParams(q.text);
  for (const auto& p : q.params) known.insert(p.name);
  CheckParamsKnown(given, known, q.name);
  Params merged = sh.params();
  for (auto& [k, v] : given) merged[k] = v;
  CheckParamValues(q, merged);
  return sh.RunSql(q.text, SqlSource{q.Source(), 1}, merged) ? DotResult::kOk : DotResult::kError;
}

// .advise ?RULE? ?KEY=VALUE...?: the findings of every rule (or of RULE), most time lost first; they
// stay in temp.advise_findings for SQL.
DotResult RunAdvise(Shell& sh, const std::vector<std::string>& args) {
  if (!sh.db().is_tracesql()) Errorf("{}: not a tracesql database", sh.db().path());
  AdviseOptions options;
  options.rule_dirs = UserRuleDirs({});
  for (const auto& a : args) {
    if (a.find('=') == std::string::npos && options.only_rule.empty()) {
      options.only_rule = a;
      continue;
    }
    auto [k, v] = ParseParamAssignment(a);
    options.params[k] = v;
  }
  Advise(sh.db().get(), options);
  return sh.RunSql(FindingsSql(), SqlSource{".advise", 1}, Params{}) ? DotResult::kOk : DotResult::kError;
}

DotResult RunShow(Shell& sh, const std::vector<std::string>& args) {
  QueryFile q = FindOrFail(sh, args[0]);
  std::string text = q.text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  Print(sh, "-- " + q.Source() + "\n" + text);
  return DotResult::kOk;
}

DotResult RunParam(Shell& sh, const std::vector<std::string>& args) {
  const std::string& sub = args[0];
  if (sub == "list" && args.size() == 1) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& [k, v] : sh.params()) {
      const char* kind = "text";
      if (ClassifyParamValue(v) == ParamKind::kInteger) kind = "integer";
      if (ClassifyParamValue(v) == ParamKind::kReal) kind = "real";
      rows.push_back({":" + k, v, std::string(kind)});
    }
    sh.WriteTable({"name", "value", "type"}, rows);
    return DotResult::kOk;
  }
  if (sub == "clear" && args.size() == 1) {
    sh.params().clear();
    return DotResult::kOk;
  }
  if (sub == "unset" && args.size() == 2) {
    std::string name = args[1];
    if (!name.empty() && (name[0] == ':' || name[0] == '@' || name[0] == '$')) name.erase(0, 1);
    sh.params().erase(name);
    return DotResult::kOk;
  }
  if (sub == "set" && args.size() >= 3) {
    std::string value = args[2];
    for (size_t i = 3; i < args.size(); ++i) value += " " + args[i];
    auto [k, v] = ParseParamAssignment(args[1] + "=" + value);
    sh.params()[k] = v;
    return DotResult::kOk;
  }
  return DotResult::kUsage;
}

DotResult RunOutputTo(Shell& sh, const std::vector<std::string>& args, bool once) {
  if (args.empty()) {
    sh.SetOutput(nullptr, false);
    return DotResult::kOk;
  }
  std::string path = FileArg(args[0]);
  if (!path.empty() && path[0] == '|') Errorf("output to a pipe is not supported: no dot-command runs a program");
  // Opening for writing truncates: never the open database or an attached one.
  if (sh.db().get()) {
    Stmt s = sh.db().db().Prepare("PRAGMA database_list");
    while (s.Step()) {
      if (SameFile(path, s.ColumnText(2))) {
        Errorf("{}: is the database '{}' of this shell; write the output to another file", path, s.ColumnText(1));
      }
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) Errorf("{}: cannot write: {}", path, std::strerror(errno));
  sh.SetOutput(f, once);
  return DotResult::kOk;
}

DotResult RunOutput(Shell& sh, const std::vector<std::string>& args) { return RunOutputTo(sh, args, false); }
DotResult RunOnce(Shell& sh, const std::vector<std::string>& args) { return RunOutputTo(sh, args, true); }

DotResult RunOpen(Shell& sh, const std::vector<std::string>& args) {
  if (args.empty()) {
    Print(sh, sh.db().path() + "\n");
    return DotResult::kOk;
  }
  sh.Open(FileArg(args[0]));  // on failure the open database stays open
  return DotResult::kOk;
}

// .import rebuilds the open database from its traces plus the new ones: the importer numbers ids
// across all traces of a database and interns call stacks across them, so appending is a re-import
// (fast), into a temporary file renamed over the database only when complete.
DotResult RunImport(Shell& sh, const std::vector<std::string>& args) {
  if (!sh.db().get()) Errorf("no database is open");
  if (!sh.db().is_tracesql()) Errorf("{}: not a tracesql database: .import adds traces to one", sh.db().path());
  std::string db_path = sh.db().path();
  fs::path db_dir = fs::path(db_path).parent_path();
  std::vector<std::string> traces;
  {
    Stmt s = sh.db().db().Prepare("SELECT id, path FROM traces ORDER BY id");
    while (s.Step()) {
      std::string p = s.ColumnText(1);
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) {
        traces.push_back(p);
      } else if (fs::path(p).is_relative() && fs::is_regular_file(db_dir / p, ec)) {
        traces.push_back((db_dir / p).string());
      } else {
        Errorf("cannot add to {}: its trace {} ({}) is no longer there, and .import re-imports every trace of the "
               "database; import into a new database with `tracesql import`",
               db_path, s.ColumnInt(0), p);
      }
    }
  }
  for (const auto& t : args) traces.push_back(FileArg(t));
  ImportOptions opt;
  opt.force = true;
  opt.progress = isatty(STDERR_FILENO);
  ImportSummary summary = ImportTraces(traces, db_path, opt);
  sh.Open(db_path);
  std::fprintf(stderr, "imported %zu new trace%s: %s now holds %lld traces, %lld events (%.2f s)\n", args.size(),
               args.size() == 1 ? "" : "s", db_path.c_str(), static_cast<long long>(summary.traces),
               static_cast<long long>(summary.events), summary.seconds);
  return DotResult::kOk;
}

DotResult RunTraces(Shell& sh, const std::vector<std::string>& /*args*/) {
  if (!sh.db().is_tracesql()) Errorf("{}: not a tracesql database", sh.db().path());
  return sh.RunSql(
             "SELECT id, path, rank, world_size, event_count, end_ts - start_ts AS dur, truncated FROM traces "
             "ORDER BY id",
             SqlSource{".traces", 1}, Params{})
             ? DotResult::kOk
             : DotResult::kError;
}

// .report FILE ?--force?: the HTML report of the open database (tracesql report).
DotResult RunReport(Shell& sh, const std::vector<std::string>& args) {
  bool force = args.size() > 1 && args[1] == "--force";
  if (args.size() > 1 && !force) Errorf("usage: .report FILE ?--force?");
  if (sh.db().schema_version() < kSchemaVersion) {
    Errorf("{}: made by an older tracesql (schema version {}): import the trace again", sh.db().path(),
           sh.db().schema_version());
  }
  std::string file = FileArg(args[0]);
  std::string html = BuildReportHtml(sh.db().path(), cli::ReportOptionsFor(sh.db().path()));
  WriteReportFile(html, file, force, {sh.db().path()});
  std::fprintf(stderr, "wrote %s (%.0f KB)\n", file.c_str(), static_cast<double>(html.size()) / 1024.0);
  return DotResult::kOk;
}

DotResult RunQuit(Shell& /*sh*/, const std::vector<std::string>& /*args*/) { return DotResult::kExit; }

DotResult RunExit(Shell& sh, const std::vector<std::string>& args) {
  sh.set_exit(args.empty() ? 0 : std::atoi(args[0].c_str()));
  return DotResult::kExit;
}

constexpr DotCommand kDotCommands[] = {
    {"advise", "?RULE? ?KEY=VALUE...?", "Findings of the advise rules, most time lost first", 0, -1, &RunAdvise},
    {"bail", "on|off", "Stop at the first error in a script (as --bail)", 1, 1, &RunBail},
    {"exit", "?CODE?", "Exit the shell with status CODE (default 0)", 0, 1, &RunExit},
    {"headers", "on|off", "Show column names", 1, 1, &RunHeaders},
    {"help", "?PATTERN?", "Show help for commands starting with PATTERN", 0, 1, &RunHelp},
    {"import", "TRACE...", "Add traces (.json / .json.gz) to the open database", 1, -1, &RunImport},
    {"mode", "?FORMAT?", "Set the output format: box table csv tsv json jsonl markdown line bar", 0, 1, &RunMode},
    {"nullvalue", "?TEXT?", "Show NULL as TEXT (default: empty)", 0, 1, &RunNullvalue},
    {"once", "FILE", "Write the next command's output to FILE", 1, 1, &RunOnce},
    {"open", "?DB?", "Close this database and open DB (or show which is open)", 0, 1, &RunOpen},
    {"output", "?FILE?", "Write output to FILE (no FILE: back to the screen)", 0, 1, &RunOutput},
    {"param", "set NAME VALUE|unset NAME|list|clear", "Set, list or clear :NAME parameters of statements", 1, -1,
     &RunParam},
    {"queries", "", "List bundled and user queries", 0, 0, &RunQueries},
    {"quit", "", "Exit the shell", 0, 0, &RunQuit},
    {"read", "FILE", "Run the statements and dot-commands of FILE", 1, 1, &RunRead},
    {"report", "FILE ?--force?", "Write the HTML report of this database to FILE (tracesql report)", 1, 2, &RunReport},
    {"run", "NAME ?KEY=VALUE...?", "Run a bundled or user query, with parameters", 1, -1, &RunRun},
    {"schema", "?PATTERN?", "Show CREATE statements of tables, views and indexes matching PATTERN", 0, 1, &RunSchema},
    {"show", "NAME", "Print the SQL of a bundled or user query", 1, 1, &RunShow},
    {"tables", "?PATTERN?", "List tables and views matching the LIKE pattern", 0, 1, &RunTables},
    {"timer", "on|off", "Print the run time of each statement", 1, 1, &RunTimer},
    {"traces", "", "List the traces in the database", 0, 0, &RunTraces},
};

}  // namespace

std::span<const DotCommand> DotCommands() { return kDotCommands; }

std::string DotHelp(std::string_view pattern) {
  std::vector<std::pair<std::string, std::string_view>> lines;
  size_t width = 0;
  for (const auto& c : kDotCommands) {
    if (c.name.substr(0, pattern.size()) != pattern) continue;
    std::string synopsis = "." + std::string(c.name);
    if (!c.usage.empty()) synopsis += " " + std::string(c.usage);
    width = std::max(width, synopsis.size());
    lines.emplace_back(std::move(synopsis), c.help);
  }
  std::string out;
  for (const auto& [synopsis, help] : lines) {
    out += synopsis + std::string(width + 2 - synopsis.size(), ' ') + std::string(help) + "\n";
  }
  return out;
}

std::vector<std::string> SplitDotArgs(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    std::string word;
    char quote = 0;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (quote) {
        if (c == quote) {
          quote = 0;
          if (c == '\'') word += c;
        } else {
          word += c;
        }
      } else if (c == ' ' || c == '\t') {
        break;
      } else if (c == '"' || c == '\'') {
        quote = c;
        if (c == '\'') word += c;  // kept: '42' stays text for .param and .run
      } else {
        word += c;
      }
    }
    out.push_back(std::move(word));
  }
  return out;
}

}  // namespace tracesql::shell
