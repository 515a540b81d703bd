#include "tracesql/combine.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"
#include "tracesql/user_db.h"

namespace tracesql {
namespace {

// A partition's result: its columns and its values, row after row, each a type byte (SQLITE_INTEGER,
// ...) then 8 bytes (an integer or a double) or a 4-byte length and the bytes (text, blob), or
// nothing (NULL). One buffer instead of an allocation per value.
struct Result {
  std::vector<std::string> columns;
  std::string data;
  size_t rows = 0;
};

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T Take(const char*& pos) {
  T v;
  std::memcpy(&v, pos, sizeof v);
  pos += sizeof v;
  return v;
}

void Read(sqlite3_stmt* s, int i, std::string& out) {
  int type = sqlite3_column_type(s, i);
  out += static_cast<char>(type);
  switch (type) {
    case SQLITE_INTEGER: Put(out, static_cast<int64_t>(sqlite3_column_int64(s, i))); break;
    case SQLITE_FLOAT: Put(out, sqlite3_column_double(s, i)); break;
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      const void* p = type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(s, i)) : sqlite3_column_blob(s, i);
      auto n = static_cast<uint32_t>(sqlite3_column_bytes(s, i));
      Put(out, n);
      if (n > 0) out.append(static_cast<const char*>(p), n);
      break;
    }
    default: break;
  }
}

// Binds the value at pos to parameter i (or, when a non-NULL value and renumber is set, that id
// instead) and moves pos past it.
void Bind(sqlite3_stmt* s, int i, const char*& pos, const std::optional<int64_t>& renumber) {
  int type = static_cast<unsigned char>(*pos++);
  switch (type) {
    case SQLITE_INTEGER: {
      auto v = Take<int64_t>(pos);
      sqlite3_bind_int64(s, i, renumber ? *renumber : v);
      break;
    }
    case SQLITE_FLOAT: {
      auto v = Take<double>(pos);
      if (renumber) sqlite3_bind_int64(s, i, *renumber); else sqlite3_bind_double(s, i, v);
      break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      auto n = Take<uint32_t>(pos);
      if (renumber) {
        sqlite3_bind_int64(s, i, *renumber);
      } else if (type == SQLITE_TEXT) {
        sqlite3_bind_text(s, i, pos, static_cast<int>(n), SQLITE_STATIC);
      } else {
        sqlite3_bind_blob(s, i, pos, static_cast<int>(n), SQLITE_STATIC);
      }
      pos += n;
      break;
    }
    default: sqlite3_bind_null(s, i);
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
      for (int i = 0; i < n; ++i) Read(stmt, i, here.data);
      ++here.rows;
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
  // that then runs sql on it when it is one of parts: each database's schema is read once. This
  // thread puts each result into `partial` as soon as the ones before it are in, and drops it.
  std::vector<Partition> checked = dir.parts;
  std::vector<size_t> slot(checked.size(), SIZE_MAX);  // a partition's index in parts, SIZE_MAX: not run
  for (size_t i = 0; i < parts.size(); ++i) slot[parts[i]] = i;
  std::vector<Result> results(parts.size());
  std::vector<std::exception_ptr> errors(checked.size());
  std::vector<char> done(checked.size(), 0);  // guarded by mu
  std::mutex mu;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  int threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::clamp(threads, 1, static_cast<int>(std::max<size_t>(checked.size(), 1)));
  struct Pool {
    std::vector<std::thread> threads;
    std::atomic<bool>* stop;
    void Join() {
      stop->store(true);
      for (auto& t : threads) {
        if (t.joinable()) t.join();
      }
    }
    ~Pool() { Join(); }
  } pool{{}, &stop};
  for (int k = 0; k < threads; ++k) {
    pool.threads.emplace_back([&] {
      for (size_t i; !stop.load() && (i = next.fetch_add(1)) < checked.size();) {
        try {
          Db db = OpenCheckedPartition(dir, checked[i]);
          if (slot[i] != SIZE_MAX) {
            UserDb user = UserDb::Adopt(std::move(db), checked[i].path);
            results[slot[i]] = RunOn(user, checked[i], sql, source, params);
          }
        } catch (...) {
          errors[i] = std::current_exception();
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          done[i] = 1;
        }
        ready.notify_all();
      }
    });
  }

  // The columns: the first partition's result's (every partition runs the same SQL).
  std::optional<Stmt> ins;
  int trace_col = -1;
  // No rollback journal while loading (on a failure the database is dropped); the combining SQL
  // gets the default back.
  memory.Exec("PRAGMA journal_mode = OFF");
  memory.Exec("BEGIN");
  for (size_t i = 0; i < checked.size(); ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      ready.wait(lock, [&] { return done[i] != 0; });
    }
    if (errors[i]) {
      pool.Join();
      std::rethrow_exception(errors[i]);  // the first failing partition in trace order
    }
    if (slot[i] == SIZE_MAX) continue;
    Result r = std::move(results[slot[i]]);
    if (!ins && !r.columns.empty()) {
      std::string ddl, marks;
      for (size_t c = 0; c < r.columns.size(); ++c) {
        ddl += Quoted(r.columns[c]) + ", ";
        marks += "?, ";
        if (r.columns[c] == "trace_id" && trace_col < 0) trace_col = static_cast<int>(c);
      }
      ddl.resize(ddl.size() - 2);
      marks.resize(marks.size() - 2);
      memory.Exec(fmt::format("CREATE TABLE partial ({})", ddl));
      ins.emplace(memory.Prepare(fmt::format("INSERT INTO partial VALUES ({})", marks)));
    }
    // A partition holds one trace: its trace_id (1) is the job's id of that trace.
    std::optional<int64_t> job_id = checked[i].trace_id;
    const char* pos = r.data.data();
    int n = static_cast<int>(r.columns.size());
    for (size_t row = 0; row < r.rows; ++row) {
      for (int c = 0; c < n; ++c) Bind(ins->get(), c + 1, pos, c == trace_col ? job_id : std::nullopt);
      ins->Run();
    }
  }
  pool.Join();
  if (!ins) Errorf("{}: returns no columns", source.name);
  memory.Exec("COMMIT");
  memory.Exec("PRAGMA journal_mode = MEMORY");

  memory.Exec(
      "CREATE TABLE partitions (trace_id INTEGER PRIMARY KEY, file TEXT, trace TEXT, rank INTEGER, world_size INTEGER,"
      " events INTEGER, threads INTEGER, processes INTEGER, flows INTEGER, event_base INTEGER, thread_base INTEGER,"
      " process_base INTEGER, flow_base INTEGER)");
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

}  // namespace tracesql
