// RowWriter: bulk INSERTs through one statement of several rows (kRows), so that the table's cursor
// stays open from row to row and each row is appended without a seek from the root (a statement
// per row reopens the cursor and seeks: ~1000 instructions a row). The last rows go through a
// one-row statement. Values are buffered until their statement runs: text must stay valid until
// Finish() (the importer's interned strings and literals do), or, with a RowPipe, until the pipe
// is drained (RowPipe::Keep holds text made on the fly).
//
// RowPipe: rows made on one thread and inserted on the database's thread. A RowWriter built on a
// pipe hands each kRows rows (and the last few) over as one chunk; Drain() inserts the chunks as
// they come, through statements prepared on its own thread, so making the rows (sorts, sweeps)
// overlaps SQLite's work on them.
#ifndef SRC_IMPORT_ROW_WRITER_H_
#define SRC_IMPORT_ROW_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "import/builder.h"
#include "tracesql/db.h"
#include "util/channel.h"

namespace tracesql {

// "INSERT INTO <target> VALUES (?,...),(?,...)...": `rows` rows of `columns` parameters each.
std::string MultiRowInsertSql(std::string_view target, int columns, int rows);

struct RowSlot {
  enum Type : uint8_t { kNull, kInt, kText } type;
  int64_t i;
  std::string_view s;
};

class RowPipe {
 public:
  struct Chunk {
    std::string_view target;  // a literal: lives as long as the program
    int columns = 0;
    std::vector<RowSlot> slots;
  };
  // Thrown by a RowWriter's EndRow()/Finish() when the pipe was cancelled (the inserting side failed).
  struct Cancelled {};

  RowPipe() : chunks_(64) {}
  void Push(Chunk&& c) {
    if (!chunks_.Push(std::move(c))) throw Cancelled{};
  }
  void Close() { chunks_.Close(); }
  void Cancel() { chunks_.Cancel(); }
  // Inserts every chunk until the pipe is closed (on the database's thread).
  void Drain(Db& db);
  // Text a row refers to that would not outlive the producer (e.g. built for a few distinct
  // values): kept by the pipe, which outlives the drain. Producer side only.
  std::string_view Keep(const std::string& text) { return *kept_.insert(text).first; }

 private:
  Channel<Chunk> chunks_;
  std::unordered_set<std::string> kept_;
};

class RowWriter {
 public:
  static constexpr int kRows = 16;
  // target: "table (col, col, ...)".
  RowWriter(Db& db, std::string_view target, int columns);
  // Rows for pipe.Drain(); target must be a literal.
  RowWriter(RowPipe& pipe, std::string_view target, int columns);

  RowWriter& Null() { return Put({RowSlot::kNull, 0, {}}); }
  RowWriter& Int(int64_t v) { return Put({RowSlot::kInt, v, {}}); }
  RowWriter& Opt(int64_t v) { return v == kNullTs ? Null() : Int(v); }  // kNullTs: NULL
  RowWriter& Text(std::string_view v) { return Put({RowSlot::kText, 0, v}); }
  // Ends a row; runs the multi-row statement when kRows rows are buffered.
  void EndRow();
  // Writes the rows still buffered.
  void Finish();

  // Inserts whole rows given as values (count: a multiple of the columns): kRows rows through the
  // multi-row statement, fewer one row at a time (RowPipe::Drain, and this writer's own buffer).
  void Insert(const RowSlot* slots, size_t count);

 private:
  // Binds count values from slots to stmt's parameters 1.. and runs it.
  static void Run(Stmt& stmt, const RowSlot* slots, size_t count);
  RowWriter& Put(const RowSlot& s) {
    buf_.push_back(s);
    return *this;
  }
  void Hand();  // to the pipe

  int columns_;
  RowPipe* pipe_ = nullptr;
  std::string_view target_;
  Stmt multi_, one_;
  std::vector<RowSlot> buf_;
};

}  // namespace tracesql

#endif  // SRC_IMPORT_ROW_WRITER_H_
