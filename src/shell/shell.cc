// The read-eval-print loop: lines are joined until sqlite3_complete() says a statement is whole;
// dot-commands are recognised only at the start of a statement (the sqlite3 shell's rule).
#include "shell/shell.h"

#include <sqlite3.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "shell/completion.h"
#include "tracesql/advise.h"
#include "tracesql/cli.h"
#include "tracesql/error.h"
#include "tracesql/queries.h"

namespace tracesql::shell {
namespace {

// The connection a running statement uses, for the SIGINT handler.
std::atomic<sqlite3*> g_running_db{nullptr};

extern "C" void OnSigint(int) {
  g_sigint = 1;
  if (sqlite3* db = g_running_db.load()) sqlite3_interrupt(db);
}

// Also checked every few thousand VM steps: a Ctrl-C that lands after the line was read but before
// the statement started (when sqlite3_interrupt would be forgotten) still stops it.
int ProgressCheck(void*) { return g_sigint ? 1 : 0; }

class RunningGuard {
 public:
  explicit RunningGuard(sqlite3* db) { g_running_db.store(db); }
  ~RunningGuard() { g_running_db.store(nullptr); }
  RunningGuard(const RunningGuard&) = delete;
  RunningGuard& operator=(const RunningGuard&) = delete;
};

bool IsBlankOrComment(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return false;  // an open comment continues on the next line
      i = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

size_t TerminalWidth() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

// A history entry for a statement: one line when that loses nothing (no "--" comment would swallow
// the rest), so that recalling it is easy to edit.
std::string HistoryEntry(std::string_view statement) {
  std::string s(statement);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.find("--") != std::string::npos) return s;
  for (auto& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

Shell::Shell(const ShellOptions& options) : options_(options) {
  bail_ = options.bail;
  render_.header = options.header;
  render_.null_text = options.null_text;
  render_.mode = options.mode ? *options.mode : (isatty(STDOUT_FILENO) ? OutputMode::kBox : OutputMode::kCsv);
}

Shell::~Shell() { SetOutput(nullptr, false); }

void Shell::Open(const std::string& path) {
  UserDb db = UserDb::Open(path, options_.any_db);
  cli::AttachDatabases(db, options_.attach, options_.against, options_.any_db);
  db_ = std::move(db);
  sqlite3_progress_handler(db_.get(), 4000, &ProgressCheck, nullptr);
}

std::vector<std::string> Shell::QueryDirs() const { return UserQueryDirs(options_.queries_dirs); }

void Shell::SetOutput(std::FILE* file, bool once) {
  if (out_ != stdout) std::fclose(out_);
  out_ = file ? file : stdout;
  once_ = file && once;
  once_armed_ = false;
  results_written_ = 0;  // blank lines separate result sets written to the same output
}

void Shell::EndOfCommand() {
  std::fflush(out_);
  if (!once_) return;
  if (once_armed_) {
    SetOutput(nullptr, false);
  } else {
    once_armed_ = true;  // the .once command itself has ended: the next one writes to the file
  }
}

RenderOptions Shell::CurrentRender() const {
  RenderOptions ro = render_;
  ro.ascii = !LocaleIsUtf8();
  if (out_ == stdout && isatty(STDOUT_FILENO) &&
      (ro.mode == OutputMode::kBox || ro.mode == OutputMode::kTable || ro.mode == OutputMode::kBar)) {
    ro.max_width = TerminalWidth();
  }
  return ro;
}

void Shell::WriteTable(const std::vector<std::string>& columns,
                       const std::vector<std::vector<std::optional<std::string>>>& rows) {
  if (!interactive_ && results_written_ > 0 && render_.mode != OutputMode::kJsonl) std::fputc('\n', out_);
  RenderTextTable(columns, rows, CurrentRender(), out_);
  ++results_written_;
}

void Shell::ReportError(std::string_view message) {
  std::fflush(out_);
  if (interactive_ || current_source_.empty()) {
    std::fprintf(stderr, "Error: %.*s\n", static_cast<int>(message.size()), message.data());
  } else {
    std::fprintf(stderr, "Error near line %d of %s: %.*s\n", current_line_, current_source_.c_str(),
                 static_cast<int>(message.size()), message.data());
  }
  std::fflush(stderr);
}

bool Shell::RunSql(std::string_view sql, const SqlSource& source, const Params& params) {
  ExecOptions eo;
  eo.render = CurrentRender();
  eo.params = &params;
  eo.out = out_;
  eo.separate_results = !interactive_;
  eo.timer = timer_;
  bool ok = true;
  try {
    if (!db_.get()) Errorf("no database is open (use .open DB)");
    RunningGuard running(db_.get());
    ExecuteSql(db_.get(), sql, source, eo, &results_written_);
  } catch (const SqlError& e) {
    ok = false;
    std::fflush(out_);
    if (interactive_ && source.name == "<stdin>") {
      // As the sqlite3 shell: the message, then the statement with a caret under the error.
      std::fprintf(stderr, "%s error: %s\n", e.kind() == SqlError::Kind::kParse ? "Parse" : "Runtime",
                   e.message().c_str());
      if (e.offset() >= 0) {
        std::string_view text = e.statement();
        size_t off = std::min(static_cast<size_t>(e.offset()), text.size());
        size_t line_start = 0;
        for (size_t i = 0; i < off; ++i) {
          if (text[i] == '\n') line_start = i + 1;
        }
        size_t line_end = text.find('\n', line_start);
        std::string_view shown = text.substr(line_start, line_end == std::string_view::npos ? std::string_view::npos
                                                                                            : line_end - line_start);
        std::string pad(DisplayWidth(text.substr(line_start, off - line_start)), ' ');
        std::fprintf(stderr, "  %.*s\n  %s^--- error here\n", static_cast<int>(shown.size()), shown.data(),
                     pad.c_str());
      }
    } else {
      std::fprintf(stderr, "%s\n", e.Located().c_str());
    }
    std::fflush(stderr);
  } catch (const Error& e) {
    ok = false;
    ReportError(e.what());
  }
  if (g_sigint) interrupted_ = true;
  g_sigint = 0;
  EndOfCommand();
  return ok;
}

bool Shell::ProcessInput(LineReader& reader, const std::string& source, bool interactive) {
  bool saved_interactive = interactive_;
  interactive_ = interactive;
  std::string buf, line;
  int buf_line = 0, line_no = 0;
  bool stopped = false;
  for (;;) {
    statement_pending_ = !buf.empty();
    if (interactive) interrupted_ = false;
    LineReader::Result r = reader.Read(buf.empty() ? "tracesql> " : "     ...> ", &line);
    if (r == LineReader::Result::kInterrupted) {
      buf.clear();  // Ctrl-C at the prompt drops the statement being typed
      continue;
    }
    if (r == LineReader::Result::kEof) break;
    ++line_no;
    if (buf.empty()) {
      if (IsBlankOrComment(line)) continue;
      size_t lead = line.find_first_not_of(" \t");
      if (line[lead] == '.') {
        if (interactive) reader.AddHistory(line);
        bool ok = RunDotCommand(std::string_view(line).substr(lead), source, line_no);
        if (exit_requested_) {
          stopped = true;
          break;
        }
        if (!ok) {
          ++errors_;
          if (bail_ || (!interactive && interrupted_)) {
            stopped = true;
            break;
          }
        }
        continue;
      }
      buf_line = line_no;
    }
    buf += line;
    buf += '\n';
    if (!sqlite3_complete(buf.c_str())) continue;
    if (interactive) reader.AddHistory(HistoryEntry(buf));
    bool ok = RunSql(buf, SqlSource{source, buf_line}, params_);
    buf.clear();
    if (!ok) {
      ++errors_;
      if (bail_ || (!interactive && interrupted_)) {
        stopped = true;
        break;
      }
    }
  }
  // Input ended inside a statement: run it anyway, so SQLite reports what is missing.
  if (!stopped && !IsBlankOrComment(buf)) {
    if (!RunSql(buf, SqlSource{source, buf_line}, params_)) {
      ++errors_;
      if (bail_) stopped = true;
    }
  }
  interactive_ = saved_interactive;
  return !stopped;
}

bool Shell::RunDotCommand(std::string_view line, const std::string& source, int line_no) {
  current_source_ = source;
  current_line_ = line_no;
  std::vector<std::string> words = SplitDotArgs(line.substr(1));
  if (words.empty()) {
    ReportError("empty dot-command. Enter \".help\" for help");
    return false;
  }
  std::string name = words[0];
  words.erase(words.begin());
  const DotCommand* cmd = nullptr;
  std::vector<const DotCommand*> by_prefix;
  for (const auto& c : DotCommands()) {
    if (c.name == name) cmd = &c;
    if (c.name.substr(0, name.size()) == name) by_prefix.push_back(&c);
  }
  if (!cmd && by_prefix.size() == 1) cmd = by_prefix[0];
  if (!cmd) {
    ReportError("unknown command or invalid arguments: \"" + name + "\". Enter \".help\" for help");
    return false;
  }
  int n = static_cast<int>(words.size());
  DotResult r = DotResult::kUsage;
  if (n >= cmd->min_args && (cmd->max_args < 0 || n <= cmd->max_args)) {
    try {
      r = cmd->run(*this, words);
    } catch (const Error& e) {
      current_source_ = source;  // a nested .read may have changed it
      current_line_ = line_no;
      ReportError(e.what());
      r = DotResult::kError;
    }
  }
  current_source_ = source;
  current_line_ = line_no;
  if (r == DotResult::kUsage) ReportError(fmt::format("usage: .{} {}", cmd->name, cmd->usage));
  EndOfCommand();
  if (r == DotResult::kExit) {
    if (!exit_requested_) set_exit(0);
    return true;
  }
  return r == DotResult::kOk;
}

int Shell::Run() {
  interactive_ = isatty(STDIN_FILENO);
  if (!interactive_) {
    auto reader = MakeFileReader(stdin);
    ProcessInput(*reader, "<stdin>", false);
    if (exit_requested_) return exit_code_;
    return errors_ > 0 ? 1 : 0;
  }
  // Ctrl-C interrupts the running statement (sqlite3_interrupt) or drops the line being typed; it
  // never ends the shell. No SA_RESTART: a read at the prompt returns.
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  struct sigaction old {};
  sigaction(SIGINT, &sa, &old);

  std::vector<std::string> dot_names;
  for (const auto& c : DotCommands()) dot_names.emplace_back(c.name);
  Completer completer = [this, dot_names](std::string_view before, size_t* word_start) {
    CompletionSources src;
    src.db = db_.get();
    src.at_statement_start = !statement_pending_;
    src.dot_commands = dot_names;
    try {
      for (const auto& q : ListQueries(QueryDirs())) src.query_names.push_back(q.name);
    } catch (const Error&) {
      // An unreadable user query file: complete without query names.
    }
    try {
      for (const auto& r : ListRules(UserRuleDirs({}))) src.rule_names.push_back(r.name);
    } catch (const Error&) {
      // An unreadable user rule file: complete without rule names.
    }
    return Complete(src, before, word_start);
  };
  auto reader = MakeTerminalReader(HistoryPath(), completer);
  std::string banner = fmt::format("tracesql {} — {}", TRACESQL_VERSION, db_.path());
  if (db_.is_tracesql()) {
    try {
      Stmt s = db_.db().Prepare("SELECT count(*), coalesce(sum(event_count), 0) FROM traces");
      if (s.Step()) {
        banner += fmt::format(" ({} trace{}, {} events)", s.ColumnInt(0), s.ColumnInt(0) == 1 ? "" : "s",
                              s.ColumnInt(1));
      }
    } catch (const Error&) {
      // A damaged traces table: no counts in the banner.
    }
  }
  std::printf("%s\nEnter \".help\" for usage hints, \".queries\" for saved queries, Ctrl-D to exit.\n",
              banner.c_str());
  std::fflush(stdout);
  ProcessInput(*reader, "<stdin>", true);
  reader.reset();
  sigaction(SIGINT, &old, nullptr);
  return exit_requested_ ? exit_code_ : 0;
}

}  // namespace tracesql::shell

namespace tracesql {

int RunShell(const ShellOptions& options) {
  shell::Shell sh(options);
  try {
    sh.Open(options.db_path);
  } catch (const Error& e) {
    std::fprintf(stderr, "tracesql: error: %s\n", e.what());
    return 1;
  }
  return sh.Run();
}

}  // namespace tracesql
