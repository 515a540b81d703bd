// Partitioned jobs: one ordinary tracesql database per trace in a directory, with a manifest that
// names them (DIR/manifest.json; the format is in docs/scale.md). `import --partitioned` writes one,
// `merge` makes one database of the partitions, `query`/`run` run SQL over them.
#ifndef TRACESQL_PARTITIONS_H_
#define TRACESQL_PARTITIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tracesql/db.h"
#include "tracesql/import.h"

namespace tracesql {

inline constexpr const char* kManifestName = "manifest.json";
inline constexpr const char* kManifestFormat = "tracesql-partitions";
inline constexpr int64_t kManifestVersion = 1;

// One partition: a database holding one trace.
struct Partition {
  int64_t trace_id = 0;  // the trace's traces.id in the job: the id importing the traces together gives it
  std::string file;      // the database's file name, in the partition directory
  std::string path;      // the database's path (directory / file)
  std::string trace;     // the trace file as given on the command line (traces.path)
  std::optional<int64_t> rank, world_size;  // distributedInfo
  // Rows of the partition's events, threads, processes and flows: its ids are 1..count, and the id
  // importing the traces together gives a row is its id plus the counts of the partitions before it.
  int64_t events = 0, threads = 0, processes = 0, flows = 0;
};

// A partition directory: its manifest, in trace id order.
struct PartitionDir {
  std::string dir;
  std::string manifest;  // DIR/manifest.json
  std::vector<Partition> parts;
};

// Whether path is a directory with a manifest.json (a partition directory, or a broken one).
bool IsPartitionDir(const std::string& path);

// Reads DIR/manifest.json and checks every partition: present, a tracesql database of this schema
// version holding the one trace the manifest names, with the manifest's row counts (a cheap check:
// the header and the traces row; damage elsewhere surfaces when it is read). Without
// check_partitions, only that each listed file exists: the caller checks each partition when it
// opens it (OpenCheckedPartition), which spares opening every database twice. Throws
// tracesql::Error with one line naming the file.
PartitionDir OpenPartitionDir(const std::string& dir, bool check_partitions = true);

// Opens partition m of dir read-only and checks it as OpenPartitionDir does (the same error lines);
// sets m.rank and m.world_size from the database. The connection has read the schema.
Db OpenCheckedPartition(const PartitionDir& dir, Partition& m);

// What a partition database holds, read from it (the manifest's fields but file and trace_id).
// Throws tracesql::Error naming path when it is not a tracesql database of this schema version
// holding exactly one trace.
Partition ReadPartition(const std::string& path);

// Imports each trace into a database of its own in the new directory dir (part-NNNNN.db, NNNNN its
// position on the command line) and writes dir/manifest.json. The traces are imported
// options.jobs at a time (default: the cores, at most 8), each as `tracesql import TRACE -o
// part.db` would, into a temporary directory next to dir that is renamed to dir when complete.
// An existing dir is refused unless empty, or with options.force a partition directory (only
// manifest.json and the databases it names). On failure nothing is left behind; with
// options.keep_going a failing trace is left out (ImportSummary::failed) and the trace ids stay
// consecutive. Throws tracesql::Error.
ImportSummary ImportPartitioned(const std::vector<std::string>& traces, const std::string& dir,
                                const ImportOptions& options);

struct MergeOptions {
  bool force = false;  // replace an existing database (a SQLite database only)
  // Receives warnings (one line each). Defaults to stderr.
  std::function<void(const std::string&)> warn;
};

struct MergeSummary {
  int64_t traces = 0, events = 0;
  double seconds = 0;
};

// Makes one database at out of tracesql databases (partitions, or any databases of this schema
// version), equal to importing their traces together in the order given: trace ids follow the
// inputs, every id is moved to what that import gives (src/import/merge.cc). Built in a temporary
// file next to out and renamed when complete. Throws tracesql::Error naming the file.
MergeSummary MergeDatabases(const std::vector<std::string>& inputs, const std::string& out, const MergeOptions& options);

}  // namespace tracesql

#endif  // TRACESQL_PARTITIONS_H_
