// RowWriter: bulk INSERTs through one statement of several rows (kRows), so that the table's cursor
// stays open from row to row and each row is appended without a seek from the root (a statement
// per row reopens the cursor and seeks: ~1000 instructions a row). The last rows go through a
// one-row statement. Values are buffered until their statement runs: text must stay valid until
// Finish() (the importer's interned strings and literals do).
#ifndef SRC_IMPORT_ROW_WRITER_H_
#define SRC_IMPORT_ROW_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
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

  RowWriter& Null() { return Put({Slot::kNull, 0, {}}); }
  RowWriter& Int(int64_t v) { return Put({Slot::kInt, v, {}}); }
  RowWriter& Opt(int64_t v) { return v == kNullTs ? Null() : Int(v); }  // kNullTs: NULL
  RowWriter& Text(std::string_view v) { return Put({Slot::kText, 0, v}); }
  // Ends a row; runs the multi-row statement when kRows rows are buffered.
  void EndRow();
  // Writes the rows still buffered.
  void Finish();

 private:
  struct Slot {
    enum Type : uint8_t { kNull, kInt, kText } type;
    int64_t i;
    std::string_view s;
  };
  RowWriter& Put(const Slot& s) {
    buf_.push_back(s);
    return *this;
  }
  void Run(Stmt& stmt, size_t from, size_t count);

  int columns_;
  Stmt multi_, one_;
  std::vector<Slot> buf_;
};

}  // namespace tracesql

#endif  // SRC_IMPORT_ROW_WRITER_H_
