// Thin RAII wrappers over sqlite3* and sqlite3_stmt*.
#ifndef TRACESQL_DB_H_
#define TRACESQL_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tracesql/error.h"

namespace tracesql {

// Database identity: PRAGMA application_id ('TRSQ') and the schema version in PRAGMA user_version.
inline constexpr int32_t kApplicationId = 0x54525351;
inline constexpr int32_t kSchemaVersion = 13;

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, std::string_view sql);
  ~Stmt();
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&& other) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  sqlite3_stmt* get() const { return stmt_; }
  void BindNull(int i) { Check(sqlite3_bind_null(stmt_, i)); }
  void BindInt(int i, int64_t v) { Check(sqlite3_bind_int64(stmt_, i, v)); }
  void BindDouble(int i, double v) { Check(sqlite3_bind_double(stmt_, i, v)); }
  // The text must stay valid until the next Step()/Reset().
  void BindText(int i, std::string_view v) {
    Check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC));
  }
  void BindTextCopy(int i, std::string_view v) {
    Check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  // Returns true when a row is available, false when done. Throws on error.
  bool Step();
  // Step() a statement that returns no rows, then Reset().
  void Run();
  void Reset();
  int64_t ColumnInt(int i) const { return sqlite3_column_int64(stmt_, i); }
  std::string ColumnText(int i) const;
  bool ColumnIsNull(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }

 private:
  void Check(int rc);
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Db {
 public:
  Db() = default;
  // Opens (or creates with create=true) a database file. Throws tracesql::Error on failure.
  static Db Open(const std::string& path, bool create, bool read_only = false);
  ~Db();
  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return db_; }
  // Runs one or more statements; throws with SQLite's message (and label, when given) on error.
  void Exec(std::string_view sql, std::string_view label = {});
  Stmt Prepare(std::string_view sql) { return Stmt(db_, sql); }
  int64_t QueryInt(std::string_view sql);
  void Close();

 private:
  sqlite3* db_ = nullptr;
};

// Applies the embedded schema (sql/schema/*.sql) to an empty database.
void CreateSchema(Db& db);
// Creates the indexes (sql/indexes/*.sql); run after bulk loading.
void CreateIndexes(Db& db);
// Tables the importer fills itself: the view files marked "-- @computed" that become tables in this
// mode. sql_traces: per table, the traces it left to the SQL (CreateViews inserts their rows with
// the view's SELECT).
struct ComputedViews {
  std::vector<std::string> tables;
  std::map<std::string, std::vector<int64_t>, std::less<>> sql_traces;
  bool Has(std::string_view name) const;
};
// Creates the tables of ComputedViews (empty), each with the columns CREATE TABLE AS would give it
// (found by running the view files on an empty in-memory copy of the schema), or with the DDL of
// its "-- @table CREATE TABLE ..." line (one line; its columns in the SELECT's order), and with
// the indexes of its "-- @index" lines.
ComputedViews CreateComputedTables(Db& db, bool materialize);
// Rethrows e, an error met while reading the database at path, as one line naming it: SQLite's
// errors ("SQL error: ...") read "cannot read it: ...". An error that already names path, or
// also_named (another file the caller writes), is passed on as it is.
[[noreturn]] void RethrowNamingDatabase(const Error& e, const std::string& path, const std::string& also_named = "");

// Whether name is a view of sql/views/ marked "-- @materialize": a table, in a database imported
// with materialize, whose values are its SQL's (or the importer's, computed as its SQL would).
bool IsMaterializedView(std::string_view name);

// Creates the analysis views (sql/views/*.sql). With materialize, views marked "-- @materialize" are
// built as tables from the same SQL (with their "-- @index" indexes) instead; those marked
// "-- @materialize always" are built as tables either way. A table in `computed` is already there
// and filled, with its indexes: only the rows of its computed->sql_traces are added. Returns the
// seconds each view file took (file name, seconds), in order.
std::vector<std::pair<std::string, double>> CreateViews(Db& db, bool materialize = true,
                                                        const ComputedViews* computed = nullptr);

// Fills short_names from gpu_op_names with ShortName (tracesql/short_name.h); CreateViews calls it
// last (src/names/short_names_table.cc).
void FillShortNames(Db& db);

}  // namespace tracesql

#endif  // TRACESQL_DB_H_
