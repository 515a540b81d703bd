// The shell's state and its dot-commands (internal to src/shell; tests include it).
#ifndef TRACESQL_SHELL_SHELL_H_
#define TRACESQL_SHELL_SHELL_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shell/line_reader.h"
#include "tracesql/params.h"
#include "tracesql/render.h"
#include "tracesql/shell.h"
#include "tracesql/sql_runner.h"
#include "tracesql/user_db.h"

namespace tracesql::shell {

class Shell;

enum class DotResult { kOk, kError, kExit, kUsage };

// One dot-command: `.help` and tab completion are generated from the table of these (DuckDB's
// shell_metadata_command.cpp, SQLite's azHelp). args holds the words after the command (see SplitDotArgs).
struct DotCommand {
  std::string_view name;   // without the '.'
  std::string_view usage;  // argument synopsis, e.g. "?FORMAT?"
  std::string_view help;   // one line
  int min_args;
  int max_args;            // -1: any number
  DotResult (*run)(Shell& shell, const std::vector<std::string>& args);
};

// Every dot-command, in the order `.help` lists them.
std::span<const DotCommand> DotCommands();

// The `.help` text for commands whose name starts with pattern (all when empty).
std::string DotHelp(std::string_view pattern);

// Splits a dot-command line into words at unquoted blanks. "Double quotes" group and are removed;
// 'single quotes' group and are kept, so `.param set x '42'` sets the text 42 (file-name arguments
// drop them). E.g. `run q name='a b' "x y"` -> {"run", "q", "name='a b'", "x y"}.
std::vector<std::string> SplitDotArgs(std::string_view line);

class Shell {
 public:
  explicit Shell(const ShellOptions& options);
  ~Shell();
  Shell(const Shell&) = delete;
  Shell& operator=(const Shell&) = delete;

  // Opens the database; throws tracesql::Error when it cannot.
  void Open(const std::string& path);
  // Reads and runs everything from reader. source names it in error messages ("<stdin>", "q.sql").
  // Returns false when input stopped early (--bail after an error, or .quit / .exit).
  bool ProcessInput(LineReader& reader, const std::string& source, bool interactive);
  // Runs one dot-command line; returns false on an error.
  bool RunDotCommand(std::string_view line, const std::string& source, int line_no);
  // Runs SQL text (one or more statements); returns false on an error (already reported).
  bool RunSql(std::string_view sql, const SqlSource& source, const Params& params);

  int Run();  // the whole session on stdin; returns the exit status

  // State the dot-commands use.
  UserDb& db() { return db_; }
  RenderOptions& render() { return render_; }
  Params& params() { return params_; }
  const ShellOptions& options() const { return options_; }
  bool& timer() { return timer_; }
  bool& bail() { return bail_; }
  std::FILE* out() const { return out_; }
  // Redirects output to file (nullptr: back to stdout). once: only for the next command.
  void SetOutput(std::FILE* file, bool once);
  // Writes a small table of text (listings) like a result set, separated from the previous one.
  void WriteTable(const std::vector<std::string>& columns,
                  const std::vector<std::vector<std::optional<std::string>>>& rows);
  // Render options for the current output: box/table fit the terminal when writing to one.
  RenderOptions CurrentRender() const;
  std::vector<std::string> QueryDirs() const;
  // Error reporting in the style of the sqlite3 shell.
  void ReportError(std::string_view message);
  void set_exit(int code) {
    exit_requested_ = true;
    exit_code_ = code;
  }
  int read_depth = 0;  // nesting of .read
  bool interactive() const { return interactive_; }

 private:
  void EndOfCommand();  // closes a .once file
  ShellOptions options_;
  UserDb db_;
  RenderOptions render_;
  Params params_;
  bool timer_ = false;
  bool bail_ = false;
  bool interactive_ = false;
  std::FILE* out_ = stdout;
  bool once_ = false;
  bool once_armed_ = false;
  bool statement_pending_ = false;  // SQL typed on earlier lines awaits its end (for completion)
  bool interrupted_ = false;        // Ctrl-C stopped a statement: a .read file stops too
  bool exit_requested_ = false;
  int exit_code_ = 0;
  int errors_ = 0;
  int64_t results_written_ = 0;
  // Where the statement being run came from, for dot-command error messages.
  std::string current_source_;
  int current_line_ = 0;
};

}  // namespace tracesql::shell

#endif  // TRACESQL_SHELL_SHELL_H_
