// Running user SQL: each statement in order, parameters bound, each result set rendered. Shared by the
// shell, `tracesql query` and `tracesql run`.
#ifndef TRACESQL_SQL_RUNNER_H_
#define TRACESQL_SQL_RUNNER_H_

#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/error.h"
#include "tracesql/params.h"
#include "tracesql/render.h"

namespace tracesql {

// Where a piece of SQL came from: a file name ("q.sql", "<stdin>", "builtin:top_kernels") and the
// line of that file its first byte is on.
struct SqlSource {
  std::string name;
  int first_line = 1;
};

// A statement that failed to prepare (parse error) or to run (runtime error), with its place.
// what() is the lower-case one-line form used after "tracesql: error: ":
//   parse error near line 3 of q.sql: near "SELEC": syntax error
class SqlError : public Error {
 public:
  enum class Kind { kParse, kRuntime };
  SqlError(Kind kind, std::string source, int line, std::string message, std::string statement, int offset);

  Kind kind() const { return kind_; }
  const std::string& source() const { return source_; }
  int line() const { return line_; }
  // SQLite's message alone: near "SELEC": syntax error.
  const std::string& message() const { return message_; }
  // The statement's text, and the byte offset in it SQLite blames (-1 when unknown).
  const std::string& statement() const { return statement_; }
  int offset() const { return offset_; }
  // The sqlite3 shell's form: Parse error near line 3 of q.sql: near "SELEC": syntax error
  std::string Located() const;

 private:
  Kind kind_;
  std::string source_;
  int line_;
  std::string message_;
  std::string statement_;
  int offset_;
};

struct ExecOptions {
  RenderOptions render;
  const Params* params = nullptr;  // bound by name to every statement; may be null
  std::FILE* out = stdout;
  // A blank line before each result set after the first (batch output; the REPL's prompt separates).
  bool separate_results = false;
  // Print "Run Time: real 0.012 user 0.010 sys 0.000" to timer_out after each statement.
  bool timer = false;
  std::FILE* timer_out = stdout;
};

// Runs every statement of sql in order, rendering each result set. Stops at the first failing
// statement and throws SqlError naming source and line. results_written (may be null) counts result
// sets written, across calls, for the blank-line separators.
void ExecuteSql(sqlite3* db, std::string_view sql, const SqlSource& source, const ExecOptions& options,
                int64_t* results_written = nullptr);

// Renders a small table of text values (listings: queries, parameters) in any output mode, through
// the same renderer as query results. A nullopt cell is NULL.
void RenderTextTable(const std::vector<std::string>& columns,
                     const std::vector<std::vector<std::optional<std::string>>>& rows, const RenderOptions& options,
                     std::FILE* out);

// The 1-based line and column of byte offset in text (lines counted from first_line).
struct TextPosition {
  int line;
  int column;
};
TextPosition PositionOf(std::string_view text, size_t offset, int first_line);

}  // namespace tracesql

#endif  // TRACESQL_SQL_RUNNER_H_
