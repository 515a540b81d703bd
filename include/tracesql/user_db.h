// Opening a database for the user's SQL (shell, query, run): safe settings and an identity check.
#ifndef TRACESQL_USER_DB_H_
#define TRACESQL_USER_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tracesql/db.h"

namespace tracesql {

namespace shell {
class JsonShim;
}

class UserDb {
 public:
  UserDb();
  ~UserDb();
  UserDb(UserDb&&) noexcept;
  UserDb& operator=(UserDb&&) noexcept;
  UserDb(const UserDb&) = delete;
  UserDb& operator=(const UserDb&) = delete;

  // Opens an existing database file read-write (read-only when the file is), with SQLite's defensive
  // mode on and PRAGMA trusted_schema=OFF, so a crafted database cannot reach risky functions through
  // its views or triggers. Throws tracesql::Error, naming path, when the file does not exist, is not a
  // SQLite database, or (unless any_db) is not a tracesql database or has a newer schema version.
  static UserDb Open(const std::string& path, bool any_db);

  // The same safe settings on a connection to a tracesql database of this schema version that the
  // caller opened and identified (a partition, OpenCheckedPartition).
  static UserDb Adopt(Db db, const std::string& path);

  sqlite3* get() const { return db_.get(); }
  Db& db() { return db_; }
  const std::string& path() const { return path_; }
  // application_id says tracesql (whatever the version).
  bool is_tracesql() const { return is_tracesql_; }
  // PRAGMA user_version: the schema version of a tracesql database (kSchemaVersion when current).
  int64_t schema_version() const { return schema_version_; }
  void Close();

 private:
  std::unique_ptr<shell::JsonShim> json_;  // declared before db_: outlives the connection
  Db db_;
  std::string path_;
  bool is_tracesql_ = false;
  int64_t schema_version_ = 0;
};

// What a file holds, judged by its first bytes (and its name when it is empty).
enum class FileKind { kMissing, kDirectory, kSqlite, kTrace, kOther };
FileKind SniffFile(const std::string& path);

}  // namespace tracesql

#endif  // TRACESQL_USER_DB_H_
