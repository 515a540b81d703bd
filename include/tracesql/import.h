// Importing Kineto / Chrome-trace JSON files into a tracesql database.
#ifndef TRACESQL_IMPORT_H_
#define TRACESQL_IMPORT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tracesql {

struct ImportOptions {
  bool force = false;     // replace an existing database
  bool strict = false;    // a truncated trace is an error instead of a warning
  bool progress = false;  // draw a progress bar on stderr
  bool timings = false;   // print per-stage timings on stderr
  bool materialize = true;  // build the heavy analysis views as tables at import
  // Traces read and built at once, counting the one being written (memory grows with it);
  // 0: the number of cores, at most 8. Whatever the number, the database is the same.
  int jobs = 0;
  bool keep_going = false;  // a trace that fails is left out (ImportSummary::failed), not the import
  // Receives warnings (one line each, no trailing newline). Defaults to stderr.
  std::function<void(const std::string&)> warn;
};

struct StageTimes {
  double read_split = 0;  // reading, inflating and splitting (reader thread, overlaps parse)
  double parse = 0;       // simdjson parse and event decoding
  double build = 0;       // nesting, stacks, flow binding
  double insert = 0;      // writing rows
  double index = 0;       // creating indexes
  double views = 0;       // views and materialised tables
  std::vector<std::pair<std::string, double>> view_files;  // seconds per sql/views file
};

struct ImportSummary {
  int64_t traces = 0;
  int64_t events = 0;
  int64_t flows = 0;
  int64_t json_bytes = 0;  // uncompressed JSON bytes read
  int64_t file_bytes = 0;  // bytes on disk
  double seconds = 0;
  StageTimes stages;  // with jobs > 1, read, parse and build are summed over the traces built at once
  int jobs = 1;       // traces built at once
  std::vector<std::string> failed;  // keep_going: the errors of the traces left out, in order
};

// Imports the traces into a new database at db_path: built in a temporary file in the same
// directory and renamed into place only when complete. Throws tracesql::Error on failure, leaving
// nothing behind.
ImportSummary ImportTraces(const std::vector<std::string>& traces, const std::string& db_path,
                           const ImportOptions& options);

// Keeps the import's Ctrl-C handling installed while it lives, across several ImportTraces calls
// (a partitioned import): a Ctrl-C between them is then seen by ImportInterrupted() instead of
// ending the program, so the caller can remove what it wrote.
class ImportSignalScope {
 public:
  ImportSignalScope();
  ~ImportSignalScope();
  ImportSignalScope(const ImportSignalScope&) = delete;
  ImportSignalScope& operator=(const ImportSignalScope&) = delete;
};
bool ImportInterrupted();

}  // namespace tracesql

#endif  // TRACESQL_IMPORT_H_
