#include "import/row_writer.h"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <sqlite3.h>

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
  if (buf_.size() % static_cast<size_t>(columns_) != 0) Errorf("RowWriter: a row has the wrong number of values");
  if (table_) {
    std::fill(row_.begin(), row_.end(), Slot{});
    for (size_t k = 0; k < buf_.size(); ++k) row_[static_cast<size_t>(positions_[k])] = buf_[k];
    table_->Add(row_.data());
    buf_.clear();
    return;
  }
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

Stager::Stager(Db& db, std::string path, std::vector<std::string> tables, std::function<void(Db& stage)> write)
    : path_(std::move(path)), tables_(std::move(tables)), page_size_(db.QueryInt("PRAGMA page_size")) {
  // An empty path would open a private temporary database that the copy could not attach.
  if (path_.empty()) Errorf("internal error: no staging database path");
  // The DDL as db has it: the transfer needs the same columns, constraints and indexes.
  Stmt s = db.Prepare("SELECT type, sql FROM sqlite_schema WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY rowid");
  for (const std::string& t : tables_) {
    bool found = false;
    s.BindText(1, t);
    while (s.Step()) {
      bool table = s.ColumnText(0) == "table";
      found = found || table;
      (table ? table_ddl_ : index_ddl_).push_back(s.ColumnText(1));
    }
    s.Reset();
    if (!found) Errorf("internal error: no table {} to stage", t);
  }
  thread_ = std::thread([this, write = std::move(write)] {
    try {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
      Db stage = Db::Open(path_, /*create=*/true);
      sqlite3_progress_handler(
          stage.get(), 1000, [](void* flag) -> int { return static_cast<std::atomic<bool>*>(flag)->load() ? 1 : 0; },
          &cancel_);
      // The page size of the database being built (a transferred record is copied cell by cell), a
      // small cache (the tables are appended to), no journal and no sync: the file is scratch.
      stage.Exec(fmt::format(
          "PRAGMA page_size = {}; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -2048;",
          page_size_));
      // A simulated full disk for this file alone (tests/reliability/faults.py).
      if (const char* max_pages = std::getenv("TRACESQL_TEST_STAGE_MAX_PAGES")) {
        stage.Exec(fmt::format("PRAGMA max_page_count = {}", std::atoll(max_pages)));
      }
      stage.Exec("BEGIN");
      for (const std::string& sql : table_ddl_) stage.Exec(sql);
      write(stage);
      // Indexes after the bulk insert: one sort each instead of a seek per row.
      for (const std::string& sql : index_ddl_) stage.Exec(sql);
      stage.Exec("COMMIT");
      stage.Close();
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

Stager::~Stager() {
  if (thread_.joinable()) {
    cancel_.store(true);
    thread_.join();
  }
}

void Stager::Finish(Db& db) {
  thread_.join();
  if (error_) std::rethrow_exception(error_);
  db.Exec("COMMIT");
  {
    Stmt attach = db.Prepare("ATTACH ? AS tracesql_stage");
    attach.BindText(1, path_);
    attach.Run();
  }
  db.Exec("BEGIN");
  for (const std::string& t : tables_) {
    db.Exec(fmt::format("INSERT INTO main.\"{0}\" SELECT * FROM tracesql_stage.\"{0}\"", t));
  }
  db.Exec("COMMIT");
  db.Exec("DETACH tracesql_stage");
  db.Exec("BEGIN");
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

}  // namespace tracesql
