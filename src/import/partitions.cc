// Partitioned jobs: `tracesql import TRACE... -o DIR --partitioned` writes one database per trace
// and DIR/manifest.json (docs/scale.md); OpenPartitionDir reads and checks them back.
#include "tracesql/partitions.h"

#include <fcntl.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/render.h"

namespace tracesql {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ErrorText(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
}

// "dir/" and "dir" name the same directory; its name is what follows the last separator.
fs::path Normalized(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.empty() && p.filename().empty()) p = p.parent_path();
  return p;
}

std::string PartFile(size_t position) { return fmt::format("part-{:05}.db", position + 1); }

std::string OptionalJson(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string ManifestJson(const std::vector<Partition>& parts) {
  std::string out = fmt::format("{{\n  \"format\": {},\n  \"format_version\": {},\n  \"tracesql_version\": {},\n"
                                "  \"schema_version\": {},\n  \"partitions\": [",
                                JsonString(kManifestFormat), kManifestVersion, JsonString(TRACESQL_VERSION),
                                kSchemaVersion);
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partition& p = parts[i];
    out += fmt::format("{}\n    {{\"trace_id\": {}, \"file\": {}, \"trace\": {}, \"rank\": {}, \"world_size\": {}, "
                       "\"events\": {}, \"threads\": {}, \"processes\": {}, \"flows\": {}}}",
                       i ? "," : "", p.trace_id, JsonString(p.file), JsonString(p.trace), OptionalJson(p.rank),
                       OptionalJson(p.world_size), p.events, p.threads, p.processes, p.flows);
  }
  out += "\n  ]\n}\n";
  return out;
}

// Writes text to path and fsync()s it.
void WriteFileSynced(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Errorf("{}: cannot write: {}", path, std::strerror(errno));
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      Errorf("{}: cannot write: {}", path, std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  bool ok = fsync(fd) == 0;
  if (close(fd) != 0 || !ok) Errorf("{}: cannot write: {}", path, std::strerror(errno));
}

// The entries of a directory that a partition directory may hold: manifest.json and its databases.
// Whether dir holds only those (with the manifest naming each database), so --force may replace it.
bool HoldsOnlyPartitions(const fs::path& dir) {
  std::set<std::string> listed;
  try {
    for (const Partition& p : OpenPartitionDir(dir.string()).parts) listed.insert(p.file);
  } catch (const Error&) {
    // A damaged partition directory is still ours when its manifest reads: checked below.
    std::ifstream in(dir / kManifestName);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find(std::string("\"") + kManifestFormat + "\"") == std::string::npos) return false;
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name == kManifestName) continue;
    bool part_name = name.starts_with("part-") && name.ends_with(".db");
    if (!entry.is_regular_file() || (!listed.count(name) && !part_name)) return false;
    if (!IsEmptyOrSqliteFile(entry.path().string())) return false;
  }
  return !ec;
}

// Removes the temporary directory and what is in it unless released.
class TempDirGuard {
 public:
  explicit TempDirGuard(fs::path path) : path_(std::move(path)) {}
  ~TempDirGuard() {
    if (!released_) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  void Release() { released_ = true; }

 private:
  fs::path path_;
  bool released_ = false;
};

}  // namespace

bool IsPartitionDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::exists(fs::path(path) / kManifestName, ec);
}

namespace {

// The sniffing ReadPartition does before opening path.
void CheckFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) Errorf("{}: no such file", path);
  if (fs::is_directory(path, ec)) Errorf("{}: is a directory, not a database", path);
  if (!IsEmptyOrSqliteFile(path)) Errorf("{}: not a SQLite database", path);
}

// What the partition database at path holds, read through db (opened on path).
Partition ReadPartitionFrom(Db& db, const std::string& path) {
  Partition p;
  p.path = path;
  try {
    if (db.QueryInt("PRAGMA application_id") != kApplicationId) Errorf("not a tracesql database");
    int64_t version = db.QueryInt("PRAGMA user_version");
    if (version != kSchemaVersion) {
      Errorf("made by a tracesql of schema version {}; this one reads {} (import the trace again)", version,
             kSchemaVersion);
    }
    // One statement: each max(id) reads the last rowid of its table.
    Stmt s = db.Prepare(
        "SELECT (SELECT count(*) FROM traces), path, rank, world_size, event_count,"
        " (SELECT coalesce(max(id), 0) FROM threads), (SELECT coalesce(max(id), 0) FROM processes),"
        " (SELECT coalesce(max(id), 0) FROM flows), (SELECT coalesce(max(id), 0) FROM events) FROM traces LIMIT 1");
    if (!s.Step()) Errorf("holds 0 traces, not one");
    if (int64_t traces = s.ColumnInt(0); traces != 1) Errorf("holds {} traces, not one", traces);
    p.trace = s.ColumnText(1);
    if (!s.ColumnIsNull(2)) p.rank = s.ColumnInt(2);
    if (!s.ColumnIsNull(3)) p.world_size = s.ColumnInt(3);
    p.events = s.ColumnInt(4);
    p.threads = s.ColumnInt(5);
    p.processes = s.ColumnInt(6);
    p.flows = s.ColumnInt(7);
    if (s.ColumnInt(8) != p.events) Errorf("events do not match traces.event_count");
  } catch (const Error& e) {
    RethrowNamingDatabase(e, path);
  }
  return p;
}

// Checks that got, read from partition m's database, is what dir's manifest lists; sets m's rank
// and world_size from it.
void CheckListed(const PartitionDir& dir, Partition& m, const Partition& got) {
  if (got.trace != m.trace) {
    Errorf("{}: holds the trace {}, not {} as {} says", m.path, got.trace, m.trace, dir.manifest);
  }
  if (got.events != m.events || got.threads != m.threads || got.processes != m.processes || got.flows != m.flows) {
    Errorf("{}: its row counts are not those {} lists (replaced or changed since the import)", m.path, dir.manifest);
  }
  m.rank = got.rank;
  m.world_size = got.world_size;
}

}  // namespace

Partition ReadPartition(const std::string& path) {
  CheckFile(path);
  Db db = Db::Open(path, /*create=*/false, /*read_only=*/true);
  return ReadPartitionFrom(db, path);
}

Db OpenCheckedPartition(const PartitionDir& dir, Partition& m) {
  CheckFile(m.path);
  Db db = Db::Open(m.path, /*create=*/false, /*read_only=*/true);
  CheckListed(dir, m, ReadPartitionFrom(db, m.path));
  return db;
}

PartitionDir OpenPartitionDir(const std::string& dir_arg, bool check_partitions) {
  PartitionDir out;
  fs::path dir = Normalized(dir_arg);
  out.dir = dir.string();
  out.manifest = (dir / kManifestName).string();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) Errorf("{}: not a directory", dir_arg);
  if (!fs::exists(out.manifest, ec)) {
    Errorf("{}: no {}: not a partition directory (written by `tracesql import --partitioned`)", dir_arg, kManifestName);
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.load(out.manifest).get(root)) Errorf("{}: not a partition manifest: {}", out.manifest, simdjson::error_message(err));
  auto bad = [&](std::string_view why) { Errorf("{}: not a partition manifest: {}", out.manifest, why); };
  std::string_view format;
  int64_t version = 0, schema = 0;
  if (root["format"].get(format) || format != kManifestFormat) bad(fmt::format("no \"format\": \"{}\"", kManifestFormat));
  if (root["format_version"].get(version)) bad("no format_version");
  if (version != kManifestVersion) {
    Errorf("{}: partition format version {}; this tracesql reads version {}", out.manifest, version, kManifestVersion);
  }
  if (root["schema_version"].get(schema)) bad("no schema_version");
  simdjson::dom::array parts;
  if (root["partitions"].get(parts)) bad("no partitions array");
  for (simdjson::dom::element e : parts) {
    Partition m;
    std::string_view file, trace;
    if (e["trace_id"].get(m.trace_id) || e["file"].get(file) || e["trace"].get(trace) || e["events"].get(m.events) ||
        e["threads"].get(m.threads) || e["processes"].get(m.processes) || e["flows"].get(m.flows)) {
      bad(fmt::format("partition {} lacks trace_id, file, trace or a row count", out.parts.size() + 1));
    }
    m.file = std::string(file);
    m.trace = std::string(trace);
    if (m.file.empty() || m.file.find('/') != std::string::npos || m.file == "." || m.file == "..") {
      bad(fmt::format("partition {}: file {} is not a file name in the directory", out.parts.size() + 1, m.file));
    }
    if (m.trace_id != static_cast<int64_t>(out.parts.size()) + 1) bad("trace ids are not 1, 2, ... in order");
    m.path = (dir / m.file).string();
    out.parts.push_back(std::move(m));
  }
  if (out.parts.empty()) bad("no partitions");
  if (schema != kSchemaVersion) {
    Errorf("{}: partitions of schema version {}; this tracesql reads {} (import the traces again)", out.manifest, schema,
           kSchemaVersion);
  }
  for (const Partition& m : out.parts) {
    if (!fs::exists(m.path, ec)) Errorf("{}: missing (listed in {})", m.path, out.manifest);
  }
  if (check_partitions) {
    for (Partition& m : out.parts) OpenCheckedPartition(out, m);
  }
  return out;
}

ImportSummary ImportPartitioned(const std::vector<std::string>& traces, const std::string& dir_arg,
                                const ImportOptions& options) {
  auto t0 = Clock::now();
  auto warn = options.warn ? options.warn : [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); };
  if (traces.empty()) Errorf("no trace files given");
  fs::path dir = Normalized(dir_arg);
  if (dir.empty() || dir.filename() == "." || dir.filename() == "..") Errorf("{}: name the new partition directory", dir_arg);
  fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) Errorf("{}: cannot create directory: {} does not exist", dir_arg, parent.string());
  if (access(parent.c_str(), W_OK) != 0) Errorf("{}: cannot create directory: {} is not writable", dir_arg, parent.string());
  bool exists = fs::exists(dir, ec);
  if (exists) {
    if (!fs::is_directory(dir, ec)) Errorf("{}: exists and is not a directory", dir_arg);
    for (const auto& t : traces) {
      std::error_code e2;
      for (const auto& entry : fs::directory_iterator(dir, e2)) {
        if (SameFile(entry.path().string(), t)) Errorf("{}: holds the trace {} being imported; write elsewhere", dir_arg, t);
      }
    }
    if (!fs::is_empty(dir, ec)) {
      if (!options.force) Errorf("{}: directory exists and is not empty (use --force to replace a partition directory)", dir_arg);
      if (!HoldsOnlyPartitions(dir)) {
        Errorf("{}: exists and is not a partition directory (manifest.json and its databases only): --force replaces "
               "only one",
               dir_arg);
      }
    }
  }
  if (!options.keep_going) {
    for (const auto& t : traces) {
      if (access(t.c_str(), R_OK) != 0) Errorf("{}: cannot read: {}", t, std::strerror(errno));
    }
  }

  fs::path tmp = parent / fmt::format(".{}.tmp-{}", dir.filename().string(), getpid());
  fs::remove_all(tmp, ec);
  if (!fs::create_directory(tmp, ec)) Errorf("{}: cannot create directory {}: {}", dir_arg, tmp.string(), ec.message());
  TempDirGuard guard(tmp);
  ImportSignalScope signals;  // Ctrl-C between two traces' imports stops the import too

  // Each trace as its own import (the import pipeline, one trace at a time per thread), `jobs` at a
  // time; each import builds its database under a temporary name and renames it when complete.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = std::clamp(options.jobs > 0 ? options.jobs : std::min(cores, 8), 1, static_cast<int>(traces.size()));
  struct Slot {
    std::optional<ImportSummary> summary;
    std::exception_ptr error;
    std::vector<std::string> warnings;
  };
  std::vector<Slot> slots(traces.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    for (size_t i; !stop.load() && !ImportInterrupted() && (i = next.fetch_add(1)) < traces.size();) {
      Slot& s = slots[i];
      ImportOptions one = options;
      one.jobs = 1;
      one.keep_going = false;
      one.force = false;
      one.progress = false;
      one.warn = [&s](const std::string& w) { s.warnings.push_back(w); };
      try {
        s.summary = ImportTraces({traces[i]}, (tmp / PartFile(i)).string(), one);
      } catch (...) {
        s.error = std::current_exception();
        if (!options.keep_going) stop.store(true);  // start no other trace: the import fails
      }
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < jobs; ++k) threads.emplace_back(work);
  for (auto& t : threads) t.join();

  if (ImportInterrupted()) Errorf("{}: interrupted; nothing written", dir_arg);
  ImportSummary summary;
  summary.jobs = jobs;
  std::vector<Partition> parts;
  for (size_t i = 0; i < traces.size(); ++i) {
    Slot& s = slots[i];
    for (const auto& w : s.warnings) warn(w);
    if (s.error) {
      if (!options.keep_going || std::string(ErrorText(s.error)).find(": interrupted") != std::string::npos) {
        std::rethrow_exception(s.error);
      }
      std::string msg = ErrorText(s.error);
      warn(fmt::format("warning: {} (--keep-going: trace left out)", msg));
      summary.failed.push_back(msg);
      continue;
    }
    if (!s.summary) continue;  // not started: an earlier failure stopped the import
    Partition p = ReadPartition((tmp / PartFile(i)).string());
    p.file = PartFile(i);
    p.trace_id = static_cast<int64_t>(parts.size()) + 1;
    parts.push_back(std::move(p));
    const ImportSummary& one = *s.summary;
    summary.traces += one.traces;
    summary.events += one.events;
    summary.flows += one.flows;
    summary.json_bytes += one.json_bytes;
    summary.file_bytes += one.file_bytes;
    summary.stages.read_split += one.stages.read_split;
    summary.stages.parse += one.stages.parse;
    summary.stages.build += one.stages.build;
    summary.stages.insert += one.stages.insert;
    summary.stages.index += one.stages.index;
    summary.stages.views += one.stages.views;
  }
  for (const Slot& s : slots) {
    if (s.error && !options.keep_going) std::rethrow_exception(s.error);
  }
  if (parts.empty()) Errorf("{}: no trace imported ({} failed)", dir_arg, summary.failed.size());

  // Traces of one rank: the warning a one-database import gives (merge records them in import_stats).
  std::map<int64_t, std::vector<int64_t>> ranks;
  for (const Partition& p : parts) {
    if (p.rank) ranks[*p.rank].push_back(p.trace_id);
  }
  std::string repeated;
  for (const auto& [rank, ids] : ranks) {
    if (ids.size() < 2) continue;
    repeated += fmt::format("{}rank {}: traces", repeated.empty() ? "" : "; ", rank);
    for (size_t k = 0; k < ids.size(); ++k) repeated += fmt::format("{} {}", k ? "," : "", ids[k]);
  }
  if (!repeated.empty()) {
    warn(fmt::format("warning: {}: traces of one rank (distributedInfo): {}; cross-rank queries (collectives, "
                     "stragglers) take each rank's traces as one rank",
                     dir_arg, repeated));
  }

  WriteFileSynced((tmp / kManifestName).string(), ManifestJson(parts));
  SyncPath(tmp.string(), /*directory=*/true);
  // An existing dir (empty, or a partition directory with --force) is replaced: the checks above allow it.
  MoveIntoPlace(tmp.string(), dir.string(), /*replace=*/exists, "directory");
  guard.Release();
  SyncPath(parent.string(), /*directory=*/true);
  summary.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return summary;
}

}  // namespace tracesql
