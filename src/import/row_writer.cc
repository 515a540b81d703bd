#include "import/row_writer.h"

#include "tracesql/error.h"

namespace tracesql {

std::string MultiRowInsertSql(std::string_view target, int columns, int rows) {
  std::string sql = "INSERT INTO ";
  sql += target;
  sql += " VALUES ";
  for (int r = 0; r < rows; ++r) {
    sql += r ? ",(" : "(";
    for (int c = 0; c < columns; ++c) sql += c ? ",?" : "?";
    sql += ')';
  }
  return sql;
}

RowWriter::RowWriter(Db& db, std::string_view target, int columns)
    : columns_(columns),
      multi_(db.Prepare(MultiRowInsertSql(target, columns, kRows))),
      one_(db.Prepare(MultiRowInsertSql(target, columns, 1))) {
  buf_.reserve(static_cast<size_t>(columns) * kRows);
}

void RowWriter::EndRow() {
  if (buf_.size() % static_cast<size_t>(columns_) != 0) Errorf("RowWriter: a row has the wrong number of values");
  if (buf_.size() == static_cast<size_t>(columns_) * kRows) {
    Run(multi_, 0, buf_.size());
    buf_.clear();
  }
}

void RowWriter::Finish() {
  for (size_t from = 0; from < buf_.size(); from += static_cast<size_t>(columns_)) {
    Run(one_, from, static_cast<size_t>(columns_));
  }
  buf_.clear();
}

void RowWriter::Run(Stmt& stmt, size_t from, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    const Slot& s = buf_[from + k];
    int i = static_cast<int>(k) + 1;
    switch (s.type) {
      case Slot::kNull: stmt.BindNull(i); break;
      case Slot::kInt: stmt.BindInt(i, s.i); break;
      case Slot::kText: stmt.BindText(i, s.s); break;
    }
  }
  stmt.Run();
}

}  // namespace tracesql
