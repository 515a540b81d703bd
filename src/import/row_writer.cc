#include "import/row_writer.h"

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
}

void RowWriter::TooMany() const { Errorf("internal error: RowWriter: a row of {} has too many values", table_->name()); }

void RowWriter::EndRow() {
  if (given_ != columns_) Errorf("internal error: RowWriter: a row of {} has too few values", table_->name());
  table_->Add(row_.data());
  given_ = 0;
}

}  // namespace tracesql
