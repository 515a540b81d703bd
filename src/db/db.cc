#include "tracesql/db.h"

#include "tracesql/error.h"

namespace tracesql {

Stmt::Stmt(sqlite3* db, std::string_view sql) : db_(db) {
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, &tail);
  if (rc != SQLITE_OK) Errorf("SQL error: {}", sqlite3_errmsg(db));
}

Stmt::~Stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Stmt::Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

void Stmt::Check(int rc) {
  if (rc != SQLITE_OK) Errorf("SQL error: {}", sqlite3_errmsg(db_));
}

bool Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string msg = sqlite3_errmsg(db_);
  sqlite3_reset(stmt_);
  Errorf("SQL error: {}", msg);
}

void Stmt::Run() {
  Step();
  Reset();
}

void Stmt::Reset() { sqlite3_reset(stmt_); }

std::string Stmt::ColumnText(int i) const {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
           : std::string();
}

namespace {
// Process-wide SQLite settings, applied once before the library initialises: no global memory
// statistics (they take a mutex on every allocation).
void ConfigureSqliteOnce() {
  static const bool done = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)done;
}
}  // namespace

Db Db::Open(const std::string& path, bool create, bool read_only) {
  ConfigureSqliteOnce();
  Db db;
  // Each connection is used by one thread at a time: no per-call connection mutex.
  int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)) |
              SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? sqlite3_errmsg(db.db_) : "out of memory";
    Errorf("{}: cannot open database: {}", path, msg);
  }
  sqlite3_extended_result_codes(db.db_, 1);
  return db;
}

Db::~Db() { Close(); }

Db::Db(Db&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    Close();
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

void Db::Close() {
  if (db_) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
}

void Db::Exec(std::string_view sql, std::string_view label) {
  std::string text(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if (label.empty()) Errorf("SQL error: {}", msg);
    Errorf("{}: SQL error: {}", label, msg);
  }
}

int64_t Db::QueryInt(std::string_view sql) {
  Stmt s(db_, sql);
  if (!s.Step()) return 0;
  return s.ColumnInt(0);
}

void RethrowNamingDatabase(const Error& e, const std::string& path, const std::string& also_named) {
  std::string msg = e.what();
  if (msg.starts_with(path + ": ") || (!also_named.empty() && msg.starts_with(also_named + ": "))) throw e;
  if (msg.starts_with("SQL error: ")) msg = "cannot read it: " + msg.substr(11);
  Errorf("{}: {}", path, msg);
}

}  // namespace tracesql
