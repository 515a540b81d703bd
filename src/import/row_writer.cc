#include "import/row_writer.h"

#include <map>
#include <utility>

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

RowWriter::RowWriter(RowPipe& pipe, std::string_view target, int columns)
    : columns_(columns), pipe_(&pipe), target_(target) {
  buf_.reserve(static_cast<size_t>(columns) * kRows);
}

void RowWriter::EndRow() {
  if (buf_.size() % static_cast<size_t>(columns_) != 0) Errorf("RowWriter: a row has the wrong number of values");
  if (buf_.size() == static_cast<size_t>(columns_) * kRows) {
    if (pipe_) {
      Hand();
    } else {
      Run(multi_, buf_.data(), buf_.size());
      buf_.clear();
    }
  }
}

void RowWriter::Finish() {
  if (pipe_) {
    if (!buf_.empty()) Hand();
    return;
  }
  for (size_t from = 0; from < buf_.size(); from += static_cast<size_t>(columns_)) {
    Run(one_, buf_.data() + from, static_cast<size_t>(columns_));
  }
  buf_.clear();
}

void RowWriter::Hand() {
  RowPipe::Chunk c{target_, columns_, std::move(buf_)};
  buf_ = std::vector<RowSlot>();
  buf_.reserve(static_cast<size_t>(columns_) * kRows);
  pipe_->Push(std::move(c));
}

void RowWriter::Run(Stmt& stmt, const RowSlot* slots, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    const RowSlot& s = slots[k];
    int i = static_cast<int>(k) + 1;
    switch (s.type) {
      case RowSlot::kNull: stmt.BindNull(i); break;
      case RowSlot::kInt: stmt.BindInt(i, s.i); break;
      case RowSlot::kText: stmt.BindText(i, s.s); break;
    }
  }
  stmt.Run();
}

void RowPipe::Drain(Db& db) {
  struct Statements {
    Stmt multi, one;
  };
  std::map<std::string_view, Statements> stmts;
  Chunk c;
  while (chunks_.Pop(c)) {
    auto it = stmts.find(c.target);
    if (it == stmts.end()) {
      it = stmts.emplace(c.target, Statements{db.Prepare(MultiRowInsertSql(c.target, c.columns, RowWriter::kRows)),
                                              db.Prepare(MultiRowInsertSql(c.target, c.columns, 1))})
               .first;
    }
    size_t cols = static_cast<size_t>(c.columns);
    if (c.slots.size() == cols * RowWriter::kRows) {
      RowWriter::Run(it->second.multi, c.slots.data(), c.slots.size());
    } else {
      for (size_t from = 0; from < c.slots.size(); from += cols) RowWriter::Run(it->second.one, c.slots.data() + from, cols);
    }
  }
}

}  // namespace tracesql
