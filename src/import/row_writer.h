// RowWriter: bulk INSERTs through one statement of several rows (kRows), so that the table's cursor
// stays open from row to row and each row is appended without a seek from the root (a statement
// per row reopens the cursor and seeks: ~1000 instructions a row). The last rows go through a
// one-row statement. Values are buffered until their statement runs: text must stay valid until
// Finish() (the importer's interned strings and literals do).
//
// Staging: the rows of some tables written on another thread into a database file of their own,
// then copied into the database being built by SQLite's transfer optimization: with identical
// DDL, `INSERT INTO t SELECT * FROM stage.t` copies the records as they are (no decoding, no
// re-encoding; ~0.07 s for the 35 MB of computed tables of a 500 MB trace).
#ifndef SRC_IMPORT_ROW_WRITER_H_
#define SRC_IMPORT_ROW_WRITER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "import/builder.h"
#include "tracesql/db.h"

namespace tracesql {

// "INSERT INTO <target> VALUES (?,...),(?,...)...": `rows` rows of `columns` parameters each.
std::string MultiRowInsertSql(std::string_view target, int columns, int rows);

struct RowSlot {
  enum Type : uint8_t { kNull, kInt, kText } type;
  int64_t i;
  std::string_view s;
};

class RowWriter {
 public:
  static constexpr int kRows = 16;
  // target: "table (col, col, ...)".
  RowWriter(Db& db, std::string_view target, int columns);

  RowWriter& Null() { return Put({RowSlot::kNull, 0, {}}); }
  RowWriter& Int(int64_t v) { return Put({RowSlot::kInt, v, {}}); }
  RowWriter& Opt(int64_t v) { return v == kNullTs ? Null() : Int(v); }  // kNullTs: NULL
  RowWriter& Text(std::string_view v) { return Put({RowSlot::kText, 0, v}); }
  // Ends a row; runs the multi-row statement when kRows rows are buffered.
  void EndRow();
  // Writes the rows still buffered.
  void Finish();

 private:
  // Inserts whole rows given as values (count: a multiple of the columns): kRows rows through the
  // multi-row statement, fewer one row at a time.
  void Insert(const RowSlot* slots, size_t count);
  // Binds count values from slots to stmt's parameters 1.. and runs it.
  static void Run(Stmt& stmt, const RowSlot* slots, size_t count);
  RowWriter& Put(const RowSlot& s) {
    buf_.push_back(s);
    return *this;
  }
  int columns_;
  Stmt multi_, one_;
  std::vector<RowSlot> buf_;
};

// The CREATE statements of some tables of a database: the tables', then their indexes'.
struct TableDdl {
  std::vector<std::string> tables, indexes;
  TableDdl(Db& db, const std::vector<std::string>& names);
};
// Creates a staging database at path (replacing any file there) holding the tables of `ddl` (not
// their indexes: FinishStaging builds them after the rows are in), and opens a transaction on it.
// Its statements fail with SQLITE_INTERRUPT once *cancel is true.
Db OpenStaging(const std::string& path, const TableDdl& ddl, const std::atomic<bool>* cancel);
// Builds the indexes of `ddl` and commits.
void FinishStaging(Db& stage, const TableDdl& ddl);
// Copies every row of `tables` from the (closed) staging database at path into db's tables of the
// same names (with their index entries when db has the same indexes), then removes the file. Ends db's open transaction and begins a new one (ATTACH is
// refused inside a transaction; with journal_mode OFF a commit costs no sync).
void CopyStaged(Db& db, const std::string& path, const std::vector<std::string>& tables);

}  // namespace tracesql

#endif  // SRC_IMPORT_ROW_WRITER_H_
