// RowWriter: rows of a table, either as bulk INSERTs into a database or as pages (ImportPages).
// INSERTs go through one statement of several rows (kRows), so that the table's cursor stays open
// from row to row and each row is appended without a seek from the root (a statement per row
// reopens the cursor and seeks: ~1000 instructions a row). The last rows go through a one-row
// statement. Values are buffered until their statement runs: text must stay valid until Finish()
// (the importer's interned strings and literals do). On pages, each row is added as it ends.
//
// Stager: the rows of some tables written on another thread into a database file of their own,
// then copied into the database being built by SQLite's transfer optimization: with identical
// DDL, `INSERT INTO t SELECT * FROM stage.t` copies the records and index entries as they are (no
// decoding, no re-encoding, no sort; ~0.25 s for the 40 MB of flows and computed tables of a
// 500 MB trace, indexes included).
#ifndef SRC_IMPORT_ROW_WRITER_H_
#define SRC_IMPORT_ROW_WRITER_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "import/builder.h"
#include "tracesql/db.h"

namespace tracesql {

// "INSERT INTO <target> VALUES (?,...),(?,...)...": `rows` rows of `columns` parameters each.
std::string MultiRowInsertSql(std::string_view target, int columns, int rows);

class RowWriter {
 public:
  static constexpr int kRows = 16;
  // target: "table (col, col, ...)".
  RowWriter(Db& db, std::string_view target, int columns);
  RowWriter(ImportPages& pages, std::string_view target, int columns);

  RowWriter& Null() { return Put({Slot::kNull, 0, {}}); }
  RowWriter& Int(int64_t v) { return Put({Slot::kInt, v, {}}); }
  RowWriter& Opt(int64_t v) { return v == kNullTs ? Null() : Int(v); }  // kNullTs: NULL
  RowWriter& Text(std::string_view v) { return Put({Slot::kText, 0, v}); }
  // Ends a row; runs the multi-row statement when kRows rows are buffered.
  void EndRow();
  // Writes the rows still buffered.
  void Finish();

 private:
  using Slot = btree::Value;
  RowWriter& Put(const Slot& s) {
    buf_.push_back(s);
    return *this;
  }
  void Run(Stmt& stmt, size_t from, size_t count);

  int columns_;
  Stmt multi_, one_;
  std::vector<Slot> buf_;
  btree::PagedTable* table_ = nullptr;  // on pages: the table, its columns' positions, a row
  std::vector<int> positions_;
  std::vector<Slot> row_;
};

// Writes some tables of db on a second thread, through a connection of its own, into a staging
// database at `path` with the same DDL (replaced if there; the tables first, their indexes built
// once the rows are in), while db's thread goes on; Finish() copies rows and index entries in.
class Stager {
 public:
  // write(stage) runs on the new thread inside a transaction on the staging database.
  Stager(Db& db, std::string path, std::vector<std::string> tables, std::function<void(Db& stage)> write);
  // Without Finish() (db's thread failed): stops the writing thread (its next statement is
  // interrupted) and joins it. The file is left to the caller's clean-up.
  ~Stager();
  Stager(const Stager&) = delete;
  Stager& operator=(const Stager&) = delete;
  // Joins the writing thread, rethrows its error, copies every staged row of the tables into db's
  // tables of the same names (by SQLite's transfer optimization: records and index entries as they
  // are, when db's tables have the same indexes) and removes the file. Ends db's open transaction
  // and begins a new one (ATTACH is refused inside a transaction; with journal_mode OFF a commit
  // costs no sync).
  void Finish(Db& db);

 private:
  std::string path_;
  std::vector<std::string> tables_;
  int64_t page_size_;  // db's
  std::vector<std::string> table_ddl_, index_ddl_;
  std::atomic<bool> cancel_{false};
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace tracesql

#endif  // SRC_IMPORT_ROW_WRITER_H_
