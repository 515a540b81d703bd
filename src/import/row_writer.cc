#include "import/row_writer.h"

#include <map>

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
      Insert(buf_.data(), buf_.size());
      buf_.clear();
    }
  }
}

void RowWriter::Finish() {
  if (pipe_) {
    if (!buf_.empty()) Hand();
    return;
  }
  Insert(buf_.data(), buf_.size());
  buf_.clear();
}

void RowWriter::Insert(const RowSlot* slots, size_t count) {
  size_t cols = static_cast<size_t>(columns_);
  if (count == cols * kRows) {
    Run(multi_, slots, count);
    return;
  }
  for (size_t from = 0; from < count; from += cols) Run(one_, slots + from, cols);
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
  std::map<std::string_view, RowWriter> writers;  // by target: its statements, prepared here
  Chunk c;
  while (chunks_.Pop(c)) {
    auto it = writers.find(c.target);
    if (it == writers.end()) it = writers.try_emplace(c.target, db, c.target, c.columns).first;
    it->second.Insert(c.slots.data(), c.slots.size());
  }
}

}  // namespace tracesql
