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

// Partitions' results as they came, read through the virtual table module tracesql_partial: with
// LoadPartials' `stream` every covered partition's (the table `partial` itself), else the one being
// inserted into `partial` (temp.tq_partial_rows); each with the job's id of its trace. Values are
// returned as the table `partial` would hold them: a non-NULL trace_id is the job's id.
struct Streamed {
  std::vector<std::string> columns;
  int trace_col = -1;
  std::vector<Result> results;
  std::vector<int64_t> ids;
};

struct StreamedTab {
  sqlite3_vtab base;
  const Streamed* rows;
};

struct StreamedCursor {
  sqlite3_vtab_cursor base;
  const Streamed* rows;
  size_t part = 0;          // the result the cursor is in
  size_t row = 0;           // the row within it
  int64_t rowid = 0;        // 1, 2, ... over all results: the row's position
  const char* next = nullptr;          // where the row after this one starts
  std::vector<const char*> at;         // each column's value in the current row
};

// Moves pos past one value.
void Skip(const char*& pos) {
  int type = static_cast<unsigned char>(*pos++);
  if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
    pos += 8;
  } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
    auto n = Take<uint32_t>(pos);
    pos += n;
  }
}

// The cursor's row: the first row at or after (part, row), its values' positions read from next.
void Settle(StreamedCursor* c) {
  const Streamed& s = *c->rows;
  while (c->part < s.results.size() && c->row >= s.results[c->part].rows) {
    ++c->part;
    c->row = 0;
    if (c->part < s.results.size()) c->next = s.results[c->part].data.data();
  }
  if (c->part >= s.results.size()) return;
  for (const char*& p : c->at) {
    p = c->next;
    Skip(c->next);
  }
}

int StreamedConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const auto* rows = static_cast<const Streamed*>(aux);
  std::string ddl = "CREATE TABLE x(";
  for (size_t c = 0; c < rows->columns.size(); ++c) ddl += (c ? ", " : "") + Quoted(rows->columns[c]);
  ddl += ")";
  if (int rc = sqlite3_declare_vtab(db, ddl.c_str()); rc != SQLITE_OK) return rc;
  auto* tab = new StreamedTab{};
  tab->rows = rows;
  *out = &tab->base;
  return SQLITE_OK;
}

int StreamedDisconnect(sqlite3_vtab* tab) {
  delete reinterpret_cast<StreamedTab*>(tab);
  return SQLITE_OK;
}

// A scan of every row in rowid order (the order the rows were given); that order is consumed.
int StreamedBestIndex(sqlite3_vtab* tab, sqlite3_index_info* info) {
  const Streamed& s = *reinterpret_cast<StreamedTab*>(tab)->rows;
  double rows = 0;
  for (const Result& r : s.results) rows += static_cast<double>(r.rows);
  info->estimatedCost = rows + 1;
  info->estimatedRows = static_cast<sqlite3_int64>(rows);
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == -1 && !info->aOrderBy[0].desc) info->orderByConsumed = 1;
  return SQLITE_OK;
}

int StreamedOpen(sqlite3_vtab* tab, sqlite3_vtab_cursor** out) {
  auto* c = new StreamedCursor{};
  c->rows = reinterpret_cast<StreamedTab*>(tab)->rows;
  c->at.resize(c->rows->columns.size());
  *out = &c->base;
  return SQLITE_OK;
}

int StreamedClose(sqlite3_vtab_cursor* cur) {
  delete reinterpret_cast<StreamedCursor*>(cur);
  return SQLITE_OK;
}

int StreamedFilter(sqlite3_vtab_cursor* cur, int, const char*, int, sqlite3_value**) {
  auto* c = reinterpret_cast<StreamedCursor*>(cur);
  c->part = 0;
  c->row = 0;
  c->rowid = 1;
  c->next = c->rows->results.empty() ? nullptr : c->rows->results[0].data.data();
  Settle(c);
  return SQLITE_OK;
}

int StreamedNext(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<StreamedCursor*>(cur);
  ++c->row;
  ++c->rowid;
  Settle(c);
  return SQLITE_OK;
}

int StreamedEof(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<StreamedCursor*>(cur);
  return c->part >= c->rows->results.size();
}

// The value as the table `partial` would hold it (a non-NULL trace_id: the job's id of the trace).
int StreamedColumn(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) {
  auto* c = reinterpret_cast<StreamedCursor*>(cur);
  const char* pos = c->at[static_cast<size_t>(i)];
  int type = static_cast<unsigned char>(*pos++);
  if (type != SQLITE_NULL && i == c->rows->trace_col) {
    sqlite3_result_int64(ctx, c->rows->ids[c->part]);
    return SQLITE_OK;
  }
  switch (type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, Take<int64_t>(pos)); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, Take<double>(pos)); break;
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      auto n = Take<uint32_t>(pos);
      if (type == SQLITE_TEXT) {
        sqlite3_result_text(ctx, pos, static_cast<int>(n), SQLITE_STATIC);
      } else {
        sqlite3_result_blob(ctx, pos, static_cast<int>(n), SQLITE_STATIC);
      }
      break;
    }
    default: sqlite3_result_null(ctx);
  }
  return SQLITE_OK;
}

int StreamedRowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) {
  *rowid = reinterpret_cast<StreamedCursor*>(cur)->rowid;
  return SQLITE_OK;
}

const sqlite3_module* StreamedModule() {
  static const sqlite3_module module = [] {
    sqlite3_module m{};
    m.xCreate = StreamedConnect;
    m.xConnect = StreamedConnect;
    m.xBestIndex = StreamedBestIndex;
    m.xDisconnect = StreamedDisconnect;
    m.xDestroy = StreamedDisconnect;
    m.xOpen = StreamedOpen;
    m.xClose = StreamedClose;
    m.xFilter = StreamedFilter;
    m.xNext = StreamedNext;
    m.xEof = StreamedEof;
    m.xColumn = StreamedColumn;
    m.xRowid = StreamedRowid;
    return m;
  }();
  return &module;
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

std::optional<std::string> JobFiguresSql(std::string_view name) {
  return EmbeddedCombineFile(fmt::format("queries/combine/{}.job.sql", name));
}

Params JobFigures(const PartitionDir& dir, const std::vector<size_t>& parts, std::string_view sql,
                  const SqlSource& source, const Params& params) {
  Db scratch = Db::Open(":memory:", /*create=*/true);
  LoadPartials(scratch, dir, parts, sql, source, params, /*jobs=*/0, /*stream=*/true);
  Stmt s = scratch.Prepare("SELECT * FROM partial");
  int n = sqlite3_column_count(s.get());
  std::vector<std::optional<int64_t>> sums(static_cast<size_t>(n));
  while (s.Step()) {
    for (int c = 0; c < n; ++c) {
      int type = sqlite3_column_type(s.get(), c);
      if (type == SQLITE_NULL) continue;
      if (type != SQLITE_INTEGER) Errorf("{}: column {} is not an integer", source.name, sqlite3_column_name(s.get(), c));
      sums[static_cast<size_t>(c)] = sums[static_cast<size_t>(c)].value_or(0) + sqlite3_column_int64(s.get(), c);
    }
  }
  Params figures;
  for (int c = 0; c < n; ++c) {
    if (sums[static_cast<size_t>(c)]) figures[sqlite3_column_name(s.get(), c)] = std::to_string(*sums[static_cast<size_t>(c)]);
  }
  return figures;
}

namespace {

// Registers the module tracesql_partial on memory over rows (columns set; the connection owns them).
Streamed* Register(Db& memory, const SqlSource& source, std::unique_ptr<Streamed> rows,
                   const std::vector<std::string>& columns) {
  rows->columns = columns;
  rows->trace_col = -1;
  auto it = std::find(columns.begin(), columns.end(), "trace_id");
  if (it != columns.end()) rows->trace_col = static_cast<int>(it - columns.begin());
  Streamed* p = rows.release();  // (the destructor runs also when this fails)
  if (sqlite3_create_module_v2(memory.get(), "tracesql_partial", StreamedModule(), p,
                               [](void* q) { delete static_cast<Streamed*>(q); }) != SQLITE_OK) {
    Errorf("{}: {}", source.name, sqlite3_errmsg(memory.get()));
  }
  return p;
}

}  // namespace

bool ReadsPartialByScans(std::string_view combine_sql) {
  return ReadsPartialInOrder(combine_sql) || combine_sql.find("\n-- partial: scans\n") != std::string_view::npos;
}

bool ReadsPartialInOrder(std::string_view combine_sql) {
  // The statement without comments, its words single-spaced and lower-cased, no final ';'.
  std::string words;
  for (size_t i = 0; i < combine_sql.size(); ++i) {
    char ch = combine_sql[i];
    if (ch == '-' && i + 1 < combine_sql.size() && combine_sql[i + 1] == '-') {
      while (i < combine_sql.size() && combine_sql[i] != '\n') ++i;
      ch = ' ';
    }
    if (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r') {
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else {
      words += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
  }
  while (!words.empty() && (words.back() == ' ' || words.back() == ';')) words.pop_back();
  return words == "select * from partial order by rowid";
}

void LoadPartials(Db& memory, const PartitionDir& dir, const std::vector<size_t>& parts, std::string_view sql,
                  const SqlSource& source, const Params& params, int jobs, bool stream) {
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
  auto streamed = std::make_unique<Streamed>();
  Streamed* feed = nullptr;  // without stream: the module's rows, one result at a time
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
    if (stream) {
      if (streamed->columns.empty() && !r.columns.empty()) streamed->columns = r.columns;
      streamed->results.push_back(std::move(r));
      streamed->ids.push_back(checked[i].trace_id);
      continue;
    }
    if (!ins && !r.columns.empty()) {
      // Each result is inserted by one statement reading it through the module's table
      // tq_partial_rows (no binding and stepping per row).
      std::string ddl;
      for (size_t c = 0; c < r.columns.size(); ++c) ddl += Quoted(r.columns[c]) + ", ";
      ddl.resize(ddl.size() - 2);
      memory.Exec(fmt::format("CREATE TABLE partial ({})", ddl));
      feed = Register(memory, source, std::move(streamed), r.columns);
      memory.Exec("CREATE VIRTUAL TABLE temp.tq_partial_rows USING tracesql_partial");
      ins.emplace(memory.Prepare("INSERT INTO main.partial SELECT * FROM temp.tq_partial_rows"));
    }
    if (!ins) continue;  // no columns: no rows
    feed->results.clear();
    feed->results.push_back(std::move(r));
    feed->ids.assign(1, checked[i].trace_id);  // a partition holds one trace: the job's id of it
    ins->Run();
  }
  pool.Join();
  if (stream) {
    if (streamed->columns.empty()) Errorf("{}: returns no columns", source.name);
    std::vector<std::string> columns = streamed->columns;
    Register(memory, source, std::move(streamed), columns);
    memory.Exec("CREATE VIRTUAL TABLE partial USING tracesql_partial");
  } else if (!ins) {
    Errorf("{}: returns no columns", source.name);
  } else {
    ins.reset();
    memory.Exec("DROP TABLE temp.tq_partial_rows");
  }
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
