// The writer: a finished Trace (trace.h) into the database. The tables that hold most rows
// (events and its two indexes, memory_args, flows, stacks and the computed analysis tables) are
// written as b-tree pages (btree/btree_writer.h) through ImportPages and placed into the database
// file after the last trace; the small ones (traces, threads, arg keys, import stats...) through
// prepared INSERTs.
#ifndef SRC_IMPORT_WRITER_H_
#define SRC_IMPORT_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "btree/btree_writer.h"
#include "import/analysis.h"
#include "import/trace.h"
#include "tracesql/db.h"

namespace tracesql {

// The tables whose rows make up most of an import, written as b-tree pages outside SQLite
// (btree_writer.h) for every trace, and placed into the database after the last (Place): SQLite's
// own row insertion and index builds were most of an import's single-threaded time. The events
// table and its two indexes have a path of their own (records encoded straight from the builder's
// rows; index keys sorted as packed integers); memory_args, flows and the computed tables go
// through PagedTable (RowWriter on pages). Pages of the events, memory_args and flows are made on
// the importing thread, those of the computed tables and stacks on the thread that computes them:
// each has its spill (the two share one scratch file) and its runs of index keys.
struct ImportPages {
  // The events columns in table order, as the records are written (checked against the schema).
  static constexpr const char* kColumns =
      "id, trace_id, thread_id, pid, tid, ph, cat, name, ts, dur, depth, parent_id, stack_id, external_id, "
      "correlation, seq_num, fwd_thread_id, python_id, python_parent_id, device, stream, cpu_op_id, "
      "top_cpu_op_id, step, arg_shape_id, arg_values, input_shape_id";
  // The indexes, as sql/indexes/ creates them (checked against the schema).
  static constexpr const char* kThreadTs = "CREATE INDEX events_thread_ts ON events(thread_id, ts)";
  static constexpr const char* kTraceCorrelation =
      "CREATE INDEX events_trace_correlation ON events(trace_id, correlation) WHERE correlation IS NOT NULL";
  // dir: the database's directory (the scratch files go there); db_label: for errors. computed:
  // the computed tables that are on (their pages are made beside the events').
  ImportPages(Db& db, const std::string& dir, const std::string& db_label, const ComputedTables& computed);
  // A paged table by name (an internal error if it is not one).
  btree::PagedTable& Table(std::string_view name);
  // The aux thread's tables: their index keys still in memory, as sorted runs.
  void FlushAux();
  // An event's keys in its two indexes (ts kNullTs: NULL; correlation nullptr: none), as its row
  // is encoded; EndTrace() after each trace's last.
  void AddIndexKeys(int64_t thread_id, int64_t ts, int64_t id, const int64_t* correlation);
  void EndTrace(int64_t trace_id);
  // Once the indexes exist (empty) in db: runs aux_first on the computing thread (rows of its
  // tables known only once every trace is read: the stacks), commits and closes db, places the
  // pages into its file at path and reopens it (with an open transaction) through reopen.
  void Place(Db& db, const std::string& path, const std::function<void()>& aux_first,
             const std::function<Db()>& reopen);

  btree::PageSpill spill;      // the importing thread's: events, their indexes, memory_args, flows
  btree::PageSpill aux_spill;  // the computing thread's: computed tables, stacks
  btree::RunSpill runs, aux_runs;
  btree::TableWriter events{spill};
  btree::IndexWriter thread_ts{spill};          // events_thread_ts: (thread_id, ts, id)
  btree::IndexWriter trace_correlation{spill};  // events_trace_correlation: (trace_id, correlation, id)
  // memory_args and flows (the importing thread's: its spill and runs), then the computing
  // thread's.
  std::vector<std::unique_ptr<btree::PagedTable>> tables;
  static constexpr size_t kMainTables = 2;

 private:
  struct Key {  // compared as (hi, lo)
    uint64_t hi, lo;
    bool operator<(const Key& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
  };
  struct TraceKeys {
    int64_t trace_id;
    size_t thread_pieces, correlation_pieces;  // the pieces up to and including this trace's
  };
  static constexpr size_t kKeysPerPiece = (1 << 20) / sizeof(Key);
  void SpillKeys(std::vector<Key>& keys, std::vector<std::pair<uint64_t, uint64_t>>& pieces);
  void WriteIndexEntries();  // the keys sorted, trace by trace, into thread_ts and trace_correlation
  std::vector<Key> thread_keys_, correlation_keys_;
  std::vector<std::pair<uint64_t, uint64_t>> thread_pieces_, correlation_pieces_;  // (offset, bytes) in runs
  std::vector<TraceKeys> traces_;
};

struct WriteCounts {
  int64_t events = 0, flows = 0;
  std::vector<const char*> sql_tables;  // computed tables whose rows of this trace are left to their SQL
};

// What the import knows of a trace file besides its events.
struct TraceFile {
  HeaderInfo header;
  std::string root_shape;
  int64_t file_bytes = 0, json_bytes = 0;
  bool compressed = false, truncated = false;
};

// Writes every row of a finished trace: the events (and their index entries) and the other paged
// tables into pages, the rest into db. Ids continue from the bases in the database (events: from
// those in pages). The flow points are freed once the flows are written.
WriteCounts WriteTrace(Trace& trace, const TraceFile& file, int64_t trace_id, Db& db, ImportPages& pages,
                       const ComputedTables& computed);

// Writes every stack (all traces of the import) with its step-merged id and CPU self time.
void WriteStacks(const StackInterner& stacks, const Interner& strings, ImportPages& pages);

}  // namespace tracesql

#endif  // SRC_IMPORT_WRITER_H_
