#include "import/row_writer.h"

#include <algorithm>

#include "tracesql/error.h"

namespace tracesql {

RowWriter::RowWriter(ImportPages& pages, std::string_view target, int columns) : columns_(columns) {
  size_t open = target.find('('), close = target.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    Errorf("internal error: RowWriter target {}", target);
  }
  std::string_view name = target.substr(0, open);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  table_ = &pages.Table(name);
  positions_ = table_->Positions(target.substr(open + 1, close - open - 1));
  if (positions_.size() != static_cast<size_t>(columns)) Errorf("internal error: RowWriter target {}", target);
  row_.resize(static_cast<size_t>(table_->columns()));
  buf_.reserve(static_cast<size_t>(columns));
}

void RowWriter::EndRow() {
  if (buf_.size() != static_cast<size_t>(columns_)) Errorf("internal error: RowWriter: a row has the wrong number of values");
  std::fill(row_.begin(), row_.end(), Slot{});
  for (size_t k = 0; k < buf_.size(); ++k) row_[static_cast<size_t>(positions_[k])] = buf_[k];
  table_->Add(row_.data());
  buf_.clear();
}

}  // namespace tracesql
