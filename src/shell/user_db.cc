#include "tracesql/user_db.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "shell/json_shim.h"
#include "tracesql/error.h"

namespace tracesql {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

FileKind SniffFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return FileKind::kMissing;
  if (S_ISDIR(st.st_mode)) return FileKind::kDirectory;
  unsigned char head[64] = {};
  size_t n = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
  } else {
    return FileKind::kOther;
  }
  if (n == 0) return EndsWith(path, ".json") || EndsWith(path, ".json.gz") ? FileKind::kTrace : FileKind::kSqlite;
  if (n >= 16 && std::memcmp(head, "SQLite format 3", 16) == 0) return FileKind::kSqlite;
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return FileKind::kTrace;
  size_t i = 0;
  if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3;  // UTF-8 byte order mark
  while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i < n && (head[i] == '{' || head[i] == '[')) return FileKind::kTrace;
  return FileKind::kOther;
}

UserDb::UserDb() = default;
UserDb::~UserDb() { Close(); }
UserDb::UserDb(UserDb&&) noexcept = default;
UserDb& UserDb::operator=(UserDb&& other) noexcept {
  if (this != &other) {
    Close();
    json_ = std::move(other.json_);
    db_ = std::move(other.db_);
    path_ = std::move(other.path_);
    is_tracesql_ = other.is_tracesql_;
    schema_version_ = other.schema_version_;
  }
  return *this;
}

void UserDb::Close() {
  db_.Close();
  json_.reset();
}

namespace {

// Defensive mode: no writes to sqlite_schema, no corrupting PRAGMAs. Untrusted schema: views and
// triggers may only call innocuous functions (PRAGMA trusted_schema = OFF).
void Secure(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_busy_timeout(db, 5000);
}

}  // namespace

UserDb UserDb::Adopt(Db db, const std::string& path) {
  UserDb u;
  u.path_ = path;
  u.db_ = std::move(db);
  Secure(u.db_.get());
  if (shell::JsonShim::Needed()) u.json_ = shell::JsonShim::Install(u.db_.get());
  u.is_tracesql_ = true;
  u.schema_version_ = kSchemaVersion;
  return u;
}

UserDb UserDb::Open(const std::string& path, bool any_db) {
  switch (SniffFile(path)) {
    case FileKind::kMissing: Errorf("{}: no such database", path);
    case FileKind::kDirectory: Errorf("{}: is a directory, not a database", path);
    case FileKind::kTrace:
      Errorf("{}: is a trace, not a database: import it with `tracesql import {} -o DB`, or open it with `tracesql {}`",
             path, path, path);
    case FileKind::kOther: Errorf("{}: not a SQLite database", path);
    case FileKind::kSqlite: break;
  }
  UserDb u;
  u.path_ = path;
  u.db_ = Db::Open(path, /*create=*/false);
  Secure(u.db_.get());
  int64_t app = 0, version = 0;
  try {
    app = u.db_.QueryInt("PRAGMA application_id");
    version = u.db_.QueryInt("PRAGMA user_version");
    u.db_.QueryInt("SELECT count(*) FROM sqlite_schema");  // reads the schema: fails on a non-database
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind("SQL error: ", 0) == 0) msg = msg.substr(11);
    Errorf("{}: not a usable SQLite database: {}", path, msg);
  }
  if (shell::JsonShim::Needed()) u.json_ = shell::JsonShim::Install(u.db_.get());
  u.is_tracesql_ = app == kApplicationId;
  u.schema_version_ = version;
  if (!any_db) {
    if (!u.is_tracesql_) {
      Errorf("{}: not a tracesql database (application_id {}); import a trace with `tracesql import`, or pass "
             "--any-db to query it as plain SQLite",
             path, app);
    }
    if (version > kSchemaVersion) {
      Errorf("{}: database schema version {} is newer than this tracesql supports ({}); upgrade tracesql, or pass "
             "--any-db",
             path, version, kSchemaVersion);
    }
    if (version < kSchemaVersion) {
      std::fprintf(stderr,
                   "tracesql: warning: %s: database schema version %lld is older than this tracesql's (%d); bundled "
                   "queries may fail on it: import the trace again\n",
                   path.c_str(), static_cast<long long>(version), kSchemaVersion);
    }
  }
  return u;
}

}  // namespace tracesql
