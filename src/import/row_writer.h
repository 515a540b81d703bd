// RowWriter: the rows of one table written as pages (ImportPages, btree::PagedTable), value by
// value in the order of the columns named at construction:
//   RowWriter out(pages, "flows (id, trace_id, cat)", 3);
//   out.Int(1).Int(7).Text("ac2g");
//   out.EndRow();
// Columns left out are NULL. Text must stay valid until the row ends.
#ifndef SRC_IMPORT_ROW_WRITER_H_
#define SRC_IMPORT_ROW_WRITER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "import/writer.h"

namespace tracesql {

class RowWriter {
 public:
  // target: "table (col, col, ...)", naming `columns` columns of a table that ImportPages writes.
  RowWriter(ImportPages& pages, std::string_view target, int columns);

  RowWriter& Null() { return Put({Slot::kNull, 0, {}}); }
  RowWriter& Int(int64_t v) { return Put({Slot::kInt, v, {}}); }
  RowWriter& Opt(int64_t v) { return v == kNullTs ? Null() : Int(v); }  // kNullTs: NULL
  RowWriter& Text(std::string_view v) { return Put({Slot::kText, 0, v}); }
  // Ends a row: adds it to the table (nothing is left buffered).
  void EndRow();

 private:
  using Slot = btree::Value;
  RowWriter& Put(const Slot& s) {
    if (given_ == columns_) TooMany();
    row_[static_cast<size_t>(positions_[static_cast<size_t>(given_++)])] = s;
    return *this;
  }
  [[noreturn]] void TooMany() const;

  int columns_;
  int given_ = 0;  // values given of the row
  btree::PagedTable* table_;
  std::vector<int> positions_;  // table position of each named column
  std::vector<Slot> row_;       // the row in table order (columns not named stay NULL)
};

}  // namespace tracesql

#endif  // SRC_IMPORT_ROW_WRITER_H_
