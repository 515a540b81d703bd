#include "tracesql/combine.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <variant>

#include <fmt/format.h>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"
#include "tracesql/user_db.h"

namespace tracesql {
namespace {

// One value of a result, owned.
using Value = std::variant<std::monostate, int64_t, double, std::string, std::vector<unsigned char>>;

struct Result {
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
};

Value Read(sqlite3_stmt* s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(s, i);
    case SQLITE_FLOAT: return sqlite3_column_double(s, i);
    case SQLITE_TEXT:
      return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, i)),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)));
    case SQLITE_BLOB: {
      const auto* b = static_cast<const unsigned char*>(sqlite3_column_blob(s, i));
      return std::vector<unsigned char>(b, b + sqlite3_column_bytes(s, i));
    }
    default: return std::monostate{};
  }
}

void Bind(sqlite3_stmt* s, int i, const Value& v) {
  if (const auto* x = std::get_if<int64_t>(&v)) {
    sqlite3_bind_int64(s, i, *x);
  } else if (const auto* d = std::get_if<double>(&v)) {
    sqlite3_bind_double(s, i, *d);
  } else if (const auto* t = std::get_if<std::string>(&v)) {
    sqlite3_bind_text(s, i, t->data(), static_cast<int>(t->size()), SQLITE_STATIC);
  } else if (const auto* b = std::get_if<std::vector<unsigned char>>(&v)) {
    sqlite3_bind_blob(s, i, b->data(), static_cast<int>(b->size()), SQLITE_STATIC);
  } else {
    sqlite3_bind_null(s, i);
  }
}

// Runs every statement of sql on the partition p (db: its connection); the rows of the last one with
// columns.
Result RunOn(UserDb& db, const Partition& p, std::string_view sql, const SqlSource& source, const Params& params) {
  Result r;
  const char* pos = sql.data();
  const char* end = sql.data() + sql.size();
  while (pos < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db.get(), pos, static_cast<int>(end - pos), &stmt, &tail) != SQLITE_OK) {
      Errorf("{}: {}: {}", p.path, source.name, sqlite3_errmsg(db.get()));
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    pos = tail && tail > pos ? tail : end;
    if (!stmt) continue;
    BindParams(stmt, params);
    int n = sqlite3_column_count(stmt);
    Result here;
    for (int i = 0; i < n; ++i) here.columns.emplace_back(sqlite3_column_name(stmt, i));
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<Value> row;
      row.reserve(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) row.push_back(Read(stmt, i));
      here.rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) Errorf("{}: {}: {}", p.path, source.name, sqlite3_errmsg(db.get()));
    if (n > 0) r = std::move(here);
  }
  return r;
}

std::string Quoted(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

namespace {

std::optional<std::string> EmbeddedCombineFile(const std::string& path) {
  for (const EmbeddedFile& f : EmbeddedFilesUnder("queries/combine/")) {
    if (f.path == path) return std::string(f.text);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CombiningSql(std::string_view name) {
  return EmbeddedCombineFile(fmt::format("queries/combine/{}.sql", name));
}

std::optional<std::string> PartialSql(std::string_view name) {
  return EmbeddedCombineFile(fmt::format("queries/combine/{}.partial.sql", name));
}

void LoadPartials(Db& memory, const PartitionDir& dir, const std::vector<size_t>& parts, std::string_view sql,
                  const SqlSource& source, const Params& params, int jobs) {
  // Every partition is opened and checked (OpenCheckedPartition), in the workers, on the connection
  // that then runs sql on it when it is one of parts: each database's schema is read once.
  std::vector<Partition> checked = dir.parts;
  std::vector<size_t> slot(checked.size(), SIZE_MAX);  // a partition's index in parts, SIZE_MAX: not run
  for (size_t i = 0; i < parts.size(); ++i) slot[parts[i]] = i;
  std::vector<Result> results(parts.size());
  std::vector<std::exception_ptr> errors(checked.size());
  std::atomic<size_t> next{0};
  int threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::clamp(threads, 1, static_cast<int>(std::max<size_t>(checked.size(), 1)));
  {
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
      pool.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < checked.size();) {
          try {
            Db db = OpenCheckedPartition(dir, checked[i]);
            if (slot[i] == SIZE_MAX) continue;
            UserDb user = UserDb::Adopt(std::move(db), checked[i].path);
            results[slot[i]] = RunOn(user, checked[i], sql, source, params);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        }
      });
    }
    for (auto& t : pool) t.join();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }

  memory.Exec(
      "CREATE TABLE partitions (trace_id INTEGER PRIMARY KEY, file TEXT, trace TEXT, rank INTEGER, world_size INTEGER,"
      " events INTEGER, threads INTEGER, processes INTEGER, flows INTEGER, event_base INTEGER, thread_base INTEGER,"
      " process_base INTEGER, flow_base INTEGER)");
  {
    Stmt s = memory.Prepare("INSERT INTO partitions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    int64_t base[4] = {0, 0, 0, 0};
    for (const Partition& p : checked) {
      s.BindInt(1, p.trace_id);
      s.BindText(2, p.file);
      s.BindText(3, p.trace);
      if (p.rank) s.BindInt(4, *p.rank); else s.BindNull(4);
      if (p.world_size) s.BindInt(5, *p.world_size); else s.BindNull(5);
      int64_t counts[4] = {p.events, p.threads, p.processes, p.flows};
      for (int k = 0; k < 4; ++k) {
        s.BindInt(6 + k, counts[k]);
        s.BindInt(10 + k, base[k]);
        base[k] += counts[k];
      }
      s.Run();
    }
  }
  // The columns: the first partition's result's (every partition runs the same SQL).
  std::vector<std::string> columns;
  for (const Result& r : results) {
    if (!r.columns.empty()) {
      columns = r.columns;
      break;
    }
  }
  if (columns.empty()) Errorf("{}: returns no columns", source.name);
  std::string ddl, marks;
  int trace_col = -1;
  for (size_t c = 0; c < columns.size(); ++c) {
    ddl += Quoted(columns[c]) + ", ";
    marks += "?, ";
    if (columns[c] == "trace_id" && trace_col < 0) trace_col = static_cast<int>(c);
  }
  ddl.resize(ddl.size() - 2);
  marks.resize(marks.size() - 2);
  memory.Exec(fmt::format("CREATE TABLE partial ({})", ddl));
  Stmt ins = memory.Prepare(fmt::format("INSERT INTO partial VALUES ({})", marks));
  memory.Exec("BEGIN");
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partition& p = dir.parts[parts[i]];
    for (const auto& row : results[i].rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        // A partition holds one trace: its trace_id (1) is the job's id of that trace.
        bool renumber = static_cast<int>(c) == trace_col && !std::holds_alternative<std::monostate>(row[c]);
        if (renumber) ins.BindInt(static_cast<int>(c) + 1, p.trace_id); else Bind(ins.get(), static_cast<int>(c) + 1, row[c]);
      }
      ins.Run();
    }
  }
  memory.Exec("COMMIT");
}

}  // namespace tracesql
