#include "tracesql/sql_runner.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>

namespace tracesql {
namespace {

// Skips whitespace and comments: the statement proper starts after them (for its line number).
size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else {
      break;
    }
  }
  return i;
}

struct CpuTimes {
  double user = 0, sys = 0;
};

CpuTimes Cpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return {static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) * 1e-6,
          static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6};
}

class StmtGuard {
 public:
  explicit StmtGuard(sqlite3_stmt* s) : s_(s) {}
  ~StmtGuard() { sqlite3_finalize(s_); }
  StmtGuard(const StmtGuard&) = delete;
  StmtGuard& operator=(const StmtGuard&) = delete;

 private:
  sqlite3_stmt* s_;
};

}  // namespace

SqlError::SqlError(Kind kind, std::string source, int line, std::string message, std::string statement,
                   int offset)
    : Error(fmt::format("{} error near line {} of {}: {}", kind == Kind::kParse ? "parse" : "runtime", line, source,
                        message)),
      kind_(kind),
      source_(std::move(source)),
      line_(line),
      message_(std::move(message)),
      statement_(std::move(statement)),
      offset_(offset) {}

std::string SqlError::Located() const {
  return fmt::format("{} error near line {} of {}: {}", kind_ == Kind::kParse ? "Parse" : "Runtime", line_, source_,
                     message_);
}

void RenderTextTable(const std::vector<std::string>& columns,
                     const std::vector<std::vector<std::optional<std::string>>>& rows, const RenderOptions& options,
                     std::FILE* out) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    Errorf("out of memory");
  }
  std::string create = "CREATE TABLE t(", insert = "INSERT INTO t VALUES(", select = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) {
    create += fmt::format("{}c{}", i ? ", " : "", i);
    insert += i ? ", ?" : "?";
    std::string quoted;
    for (char ch : columns[i]) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    select += fmt::format("{}c{} AS \"{}\"", i ? ", " : "", i, quoted);
  }
  create += ")";
  insert += ")";
  select += " FROM t ORDER BY rowid";
  sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr);
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(db, insert.c_str(), -1, &ins, nullptr);
  for (const auto& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i < row.size() && row[i]) {
        sqlite3_bind_text(ins, static_cast<int>(i + 1), row[i]->data(), static_cast<int>(row[i]->size()),
                          SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_null(ins, static_cast<int>(i + 1));
      }
    }
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  sqlite3_stmt* sel = nullptr;
  sqlite3_prepare_v2(db, select.c_str(), -1, &sel, nullptr);
  try {
    RenderStatement(sel, options, out);
  } catch (...) {
    sqlite3_finalize(sel);
    sqlite3_close(db);
    throw;
  }
  sqlite3_finalize(sel);
  sqlite3_close(db);
}

TextPosition PositionOf(std::string_view text, size_t offset, int first_line) {
  TextPosition p{first_line, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

void ExecuteSql(sqlite3* db, std::string_view sql, const SqlSource& source, const ExecOptions& options,
                int64_t* results_written) {
  int64_t local_written = 0;
  int64_t& written = results_written ? *results_written : local_written;
  size_t pos = 0;
  while (pos < sql.size()) {
    size_t start = SkipBlanks(sql, pos);
    if (start >= sql.size()) break;
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    const char* begin = sql.data() + start;
    int rc = sqlite3_prepare_v2(db, begin, static_cast<int>(sql.size() - start), &stmt, &tail);
    if (rc != SQLITE_OK) {
#if SQLITE_VERSION_NUMBER >= 3038000
      int off = sqlite3_error_offset(db);
#else
      int off = -1;
#endif
      size_t at = off >= 0 ? start + static_cast<size_t>(off) : start;
      std::string msg = sqlite3_errmsg(db);
      size_t stmt_end = sql.find(';', start);
      std::string text(sql.substr(start, stmt_end == std::string_view::npos ? std::string_view::npos
                                                                            : stmt_end + 1 - start));
      throw SqlError(SqlError::Kind::kParse, source.name, PositionOf(sql, at, source.first_line).line, msg, text, off);
    }
    StmtGuard guard(stmt);
    size_t next = tail ? static_cast<size_t>(tail - sql.data()) : sql.size();
    if (next <= start) next = sql.size();  // never loop on a statement SQLite did not consume
    pos = next;
    if (!stmt) continue;  // only whitespace or comments
    int line = PositionOf(sql, start, source.first_line).line;
    std::string text(sql.substr(start, next - start));
    std::vector<std::string> text_params;
    try {
      if (options.params) text_params = BindParams(stmt, *options.params);
    } catch (const Error& e) {
      throw SqlError(SqlError::Kind::kRuntime, source.name, line, e.what(), text, -1);
    }
    auto t0 = std::chrono::steady_clock::now();
    CpuTimes c0 = Cpu();
    bool has_columns = sqlite3_column_count(stmt) > 0;
    if (has_columns && options.separate_results && written > 0 && options.render.mode != OutputMode::kJsonl) {
      std::fputc('\n', options.out);
    }
    try {
      RenderStatement(stmt, options.render, options.out);
    } catch (const Error& e) {
      std::fflush(options.out);
      std::string msg = e.what();
      // "datatype mismatch": SQLite wanted a number (LIMIT :limit) and got text, most likely a
      // parameter given as -p limit=abc: say which.
      if (sqlite3_errcode(db) == SQLITE_MISMATCH && !text_params.empty()) {
        std::string names;
        for (const auto& t : text_params) names += (names.empty() ? "" : ", ") + t;
        msg += fmt::format(" (text where a number is needed? {} is text)", names);
      }
      throw SqlError(SqlError::Kind::kRuntime, source.name, line, msg, text, -1);
    }
    if (has_columns) ++written;
    std::fflush(options.out);
    if (options.timer) {
      double real = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CpuTimes c1 = Cpu();
      std::fprintf(options.timer_out, "Run Time: real %.3f user %.6f sys %.6f\n", real, c1.user - c0.user,
                   c1.sys - c0.sys);
      std::fflush(options.timer_out);
    }
  }
}

}  // namespace tracesql
