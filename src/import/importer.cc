// The import pipeline: for each trace, a reader thread inflates and splits the file into batches of
// whole events (input.h, splitter.h), worker threads parse them (parser.h) and one thread adds
// their events to the TraceBuilder in file order (builder.h); the builder computes nesting, stacks
// and flows, and the writer writes the rows (writer.h, analysis.h). Several traces are built at
// once (--jobs), each with interners of its own, and written one at a time in command-line order,
// each moved to the import's ids first (remap.h). Everything goes in one transaction into a
// temporary database that is renamed into place only when complete.
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "import/analysis.h"
#include "import/builder.h"
#include "import/input.h"
#include "import/parser.h"
#include "import/remap.h"
#include "import/splitter.h"
#include "import/writer.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/import.h"

namespace tracesql {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Ctrl-C / SIGTERM: the first signal asks the import to stop (checked between batches, and by
// SQLite's progress handler inside long statements); a second one removes the temporary database
// and exits at once. g_kicking marks the signals the importer sends its own reader thread.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_kicking{0};  // readers being kicked (imports may run at once)
char g_temp_path[4096];

extern "C" void OnSignal(int) {
  if (g_interrupted.exchange(true) && g_kicking.load() == 0) {
    if (g_temp_path[0]) unlink(g_temp_path);
    const char msg[] = "tracesql: interrupted again: stopped, no database written\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

// Set when a parallel import fails: the traces being built stop as if interrupted.
std::atomic<bool> g_abandon{false};

bool Stopping() { return g_interrupted.load() || g_abandon.load(); }

void CheckInterrupted() {
  if (Stopping()) throw Error("interrupted");
}

// Hands the memory that freed blocks leave in malloc's arenas back to the system: the parse
// workers' buffers, freed once the events are in, would otherwise stay resident (glibc keeps them
// in the exited threads' arenas) while the builder's arrays grow to the import's peak.
// Not under AddressSanitizer: its allocator owns malloc, and glibc's malloc_trim would first set up
// glibc's unused arenas from whichever import thread gets there, racing the others (a crash).
#if defined(__SANITIZE_ADDRESS__)
#define TQ_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TQ_ADDRESS_SANITIZER 1
#endif
#endif
void ReleaseFreedMemory() {
#if defined(__GLIBC__) && !defined(TQ_ADDRESS_SANITIZER)
  malloc_trim(0);
#endif
}

// The reader thread's way out when the parsers cancel the queue.
struct Cancelled {};

class Progress {
 public:
  Progress(bool enabled, std::string label, int64_t total) : enabled_(enabled), label_(std::move(label)), total_(total) {}
  void Update(int64_t done) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    double frac = total_ > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total_)) : 0;
    int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r%s [%s%s] %3d%% %.1f/%.1f MB", label_.c_str(), std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(width - filled), ' ').c_str(), static_cast<int>(frac * 100),
                 static_cast<double>(done) / 1e6, static_cast<double>(total_) / 1e6);
    std::fflush(stderr);
  }
  void Clear() {
    if (enabled_ && drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  std::string label_;
  int64_t total_;
  bool drawn_ = false;
  Clock::time_point last_;
};

// Installs OnSignal for SIGINT and SIGTERM (without SA_RESTART, so a blocking read is interrupted)
// and tells it which temporary file a second signal must remove. Imports running at once on
// several threads (a partitioned import: ImportPartitioned) share one installation: the first
// guard installs the handlers, the last one restores them; a second signal removes the temporary
// file of the import that started last.
struct SignalGuard {
  static inline std::mutex mu;
  static inline int active = 0;
  static inline struct sigaction old_int {}, old_term {};
  static void Acquire() {
    std::lock_guard lock(mu);
    if (active++ == 0) {
      g_interrupted.store(false);
      g_kicking.store(0);
      struct sigaction sa {};
      sa.sa_handler = OnSignal;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, &old_int);
      sigaction(SIGTERM, &sa, &old_term);
    }
  }
  static void Release() {
    std::lock_guard lock(mu);
    if (--active == 0) {
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
      g_temp_path[0] = '\0';
    }
  }
  explicit SignalGuard(const std::string& temp_path) {
    Acquire();
    std::lock_guard lock(mu);
    if (temp_path.size() < sizeof g_temp_path) std::memcpy(g_temp_path, temp_path.c_str(), temp_path.size() + 1);
  }
  ~SignalGuard() { Release(); }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
};

// Joins the reader thread. When interrupted, the reader may be blocked reading a pipe that never
// delivers more data: it is sent SIGINT until its read fails with EINTR and it returns.
void JoinReader(std::thread& reader, const std::atomic<bool>& done) {
  if (g_interrupted.load()) {
    ++g_kicking;
    while (!done.load()) {
      pthread_kill(reader.native_handle(), SIGINT);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    --g_kicking;
  }
  reader.join();
}

// A trace read, parsed and built (Finish() has run), to be written.
struct BuiltTrace {
  std::unique_ptr<TraceBuilder> builder;
  TraceFile file;
  double read_seconds = 0, parse_seconds = 0, build_seconds = 0;
};

// Reads, splits and parses one trace into a builder with `ids`, then builds it. Warnings go to warn.
BuiltTrace BuildTrace(const std::string& path, const std::string& dir, Interners& ids, const ImportOptions& options,
                      int parse_workers, bool progress_bar, const std::function<void(const std::string&)>& warn) {
  BuiltTrace out;
  auto tp = Clock::now();
  InputStream in(path);
  out.builder = std::make_unique<TraceBuilder>(path, dir, ids.strings, ids.stacks, ids.shapes, ids.input_shapes);
  TraceBuilder& builder = *out.builder;
  // Room for the events up front (a generous guess from the size: ~128 bytes of JSON per event,
  // gzip ~8:1). Untouched capacity costs no memory; growing by doubling would hold the old and
  // the new array at once, the import's peak.
  builder.Reserve(static_cast<size_t>(std::min<int64_t>(in.file_size() * (in.compressed() ? 8 : 1) / 128,
                                                        int64_t{1} << 31)));
  Progress progress(progress_bar, fs::path(path).filename().string(), in.file_size());

  BatchQueue queue(4);
  SplitResult split;
  std::exception_ptr reader_error;
  std::atomic<bool> reader_done{false};
  std::thread reader([&] {
    auto tr = Clock::now();
    try {
      uint64_t seq = 0;
      split = Splitter::Run(
          in, [&](Batch&& b) { if (!queue.Push(SeqBatch{seq++, std::move(b)})) throw Cancelled{}; },
          [&](int64_t done) { progress.Update(done); });
    } catch (const Cancelled&) {
    } catch (...) {
      reader_error = std::current_exception();
    }
    out.read_seconds = Since(tr);
    queue.Close();
    reader_done.store(true);
  });
  {
    // Parsed on worker threads, added here in file order. Destroyed once the events are in:
    // simdjson's buffers are not needed while building and inserting, when the builder's
    // arrays are largest.
    ParallelParser parsers(queue, path, in.compressed(), parse_workers, Stopping);
    try {
      while (parsers.AddNext(builder)) continue;  // every batch, in file order
      CheckInterrupted();
    } catch (...) {
      queue.Cancel();
      parsers.Stop();
      JoinReader(reader, reader_done);
      progress.Clear();
      throw;
    }
  }
  reader.join();
  ReleaseFreedMemory();
  progress.Clear();
  if (reader_error) std::rethrow_exception(reader_error);
  out.parse_seconds = Since(tp);

  if (split.events == 0 && split.truncated) {
    Errorf("{}: byte {}: file ends before the first complete trace event", path, split.truncated_at);
  }
  if (!split.saw_trace_events) Errorf("{}: no traceEvents array in the JSON object", path);
  if (split.events == 0) {
    Errorf("{}: no trace events (traceEvents {})", path,
           split.non_object_events + split.oversized_items > 0 ? "holds no usable event objects" : "is empty");
  }
  if (split.truncated) {
    // The complete trace events are more than the events rows when some are metadata (M), flow
    // (s, t, f) or end (E) events, which fill other tables or complete a B event's row.
    const auto rows = static_cast<int64_t>(builder.trace().events.size());
    std::string msg = fmt::format("{}: byte {}{}: file is truncated inside the {}; imported the {} complete {}events before it",
                                  path, split.truncated_at, in.compressed() ? " of the decompressed JSON" : "",
                                  split.truncated_what, split.events, rows == split.events ? "" : "trace ");
    if (rows != split.events) {
      msg += fmt::format(": {} events, the other {} metadata, flow and end (E) events", rows, split.events - rows);
    }
    if (options.strict) Errorf("{} (--strict)", msg.substr(0, msg.find("; imported")));
    warn("warning: " + msg);
    builder.stats().Set(StatId::truncated_at_byte, split.truncated_at);
  }
  if (split.non_object_events) builder.stats().Add(StatId::non_object_events, split.non_object_events);
  if (split.oversized_items) builder.stats().Add(StatId::oversized_items, split.oversized_items);
  out.file = TraceFile{ReadHeader(split, path, builder.stats()), split.root_shape, in.file_size(), split.json_bytes,
                       in.compressed(), split.truncated};

  auto tb = Clock::now();
  builder.Finish();
  out.build_seconds = Since(tb);
  CheckInterrupted();
  return out;
}

// Builds traces on `jobs` threads, each with interners of its own, and hands them out in order
// (Take(0), Take(1), ...). At most `jobs` traces are in flight, from the start of their build
// until the writer Release()s them: memory is bounded by the traces in flight, not their number.
// Threads take the traces in order, so the one the writer waits for is always being built (or
// done). Destroying the pipeline abandons the traces being built (g_abandon stops their parsers).
class BuildPipeline {
 public:
  struct Result {
    std::unique_ptr<Interners> ids;  // the trace's own interners
    std::optional<BuiltTrace> built;
    std::exception_ptr error;        // or why it could not be built
  };
  using Build = std::function<BuiltTrace(size_t index, Interners& ids, const std::function<void(const std::string&)>& warn)>;

  BuildPipeline(size_t traces, int jobs, Build build) : slots_(traces), jobs_(jobs), build_(std::move(build)) {
    g_abandon.store(false);
    for (int k = 0; k < jobs; ++k) threads_.emplace_back([this] { Work(); });
  }
  ~BuildPipeline() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    g_abandon.store(true);
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    g_abandon.store(false);
  }
  BuildPipeline(const BuildPipeline&) = delete;
  BuildPipeline& operator=(const BuildPipeline&) = delete;

  // Waits until trace i is built (or failed); its warnings, in order, go to warn.
  Result Take(size_t i, const std::function<void(const std::string&)>& warn) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return slots_[i].done; });
    Slot& s = slots_[i];
    for (const auto& w : s.warnings) warn(w);
    return Result{std::move(s.ids), std::move(s.built), s.error};
  }
  // The trace taken last is written (and freed): the next one may start.
  void Release() {
    {
      std::lock_guard lock(mu_);
      --in_flight_;
    }
    cv_.notify_all();
  }

 private:
  struct Slot {
    std::unique_ptr<Interners> ids;
    std::optional<BuiltTrace> built;
    std::exception_ptr error;
    std::vector<std::string> warnings;
    bool done = false;
  };
  void Work() {
    for (;;) {
      size_t i;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || next_ == slots_.size() || in_flight_ < jobs_; });
        if (stop_ || next_ == slots_.size()) return;
        i = next_++;
        ++in_flight_;
      }
      Slot& s = slots_[i];  // this thread's alone until done
      s.ids = std::make_unique<Interners>();
      try {
        s.built = build_(i, *s.ids, [&s](const std::string& w) { s.warnings.push_back(w); });
      } catch (...) {
        s.built.reset();
        s.error = std::current_exception();
      }
      {
        std::lock_guard lock(mu_);
        s.done = true;
      }
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  size_t next_ = 0;
  int in_flight_ = 0;
  const int jobs_;
  bool stop_ = false;
  Build build_;
  std::vector<std::thread> threads_;
};

// The message of an import error.
std::string ErrorText(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
}

}  // namespace

ImportSignalScope::ImportSignalScope() { SignalGuard::Acquire(); }
ImportSignalScope::~ImportSignalScope() { SignalGuard::Release(); }
bool ImportInterrupted() { return g_interrupted.load(); }

ImportSummary ImportTraces(const std::vector<std::string>& traces, const std::string& db_path,
                           const ImportOptions& options) {
  auto t0 = Clock::now();
  ImportSummary summary;
  auto warn = options.warn ? options.warn : [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); };
  if (traces.empty()) Errorf("no trace files given");

  // Where the database goes.
  fs::path out(db_path);
  fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) Errorf("{}: cannot create database: directory {} does not exist", db_path, dir.string());
  for (const auto& t : traces) {
    if (SameFile(t, db_path)) Errorf("{}: is the trace {} being imported; write the database to another file", db_path, t);
  }
  if (fs::exists(out, ec)) {
    if (fs::is_directory(out, ec)) Errorf("{}: cannot create database: is a directory", db_path);
    if (!options.force) Errorf("{}: database already exists (use --force to replace it)", db_path);
    // --force replaces a database (ours or another program's), never a file of another kind.
    if (!IsEmptyOrSqliteFile(db_path)) Errorf("{}: exists and is not a SQLite database: --force replaces only a database", db_path);
  }
  if (access(dir.c_str(), W_OK) != 0) Errorf("{}: cannot create database: directory {} is not writable", db_path, dir.string());
  // Fail early on unreadable inputs, before any work (--keep-going: when they are built).
  if (!options.keep_going) {
    for (const auto& t : traces) InputStream::CheckReadable(t);
  }

  std::string tmp = (dir / fmt::format(".{}.tmp-{}", out.filename().string(), getpid())).string();
  fs::remove(tmp, ec);
  TempDbGuard guard(tmp);  // (the scratch files, arg spills and pages, are unlinked once created)
  SignalGuard signals(tmp);
  // Opens the temporary database: created here, and opened again once the pages are placed
  // into its file (ImportPages::Place).
  auto open_db = [&](bool create, int cache_kib) {
    Db d = Db::Open(tmp, create);
    // Lets Ctrl-C stop a long statement (an index over millions of rows) with SQLITE_INTERRUPT.
    sqlite3_progress_handler(d.get(), 10000, [](void*) -> int { return g_interrupted.load() ? 1 : 0; }, nullptr);
    d.Exec(fmt::format(
        "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
        " PRAGMA cache_size = -{}; PRAGMA temp_store = FILE; PRAGMA threads = 2;",
        cache_kib));
    if (const char* max_pages = std::getenv("TRACESQL_TEST_MAX_PAGES")) {
      d.Exec(fmt::format("PRAGMA max_page_count = {}", std::atoll(max_pages)));
    }
    return d;
  };
  // An 8 MB page cache while the traces are inserted (appends need little; memory peaks then), a
  // larger one for the indexes and views below.
  Db db = open_db(/*create=*/true, 8192);
  try {
    CreateSchema(db);
    ComputedViews computed_views = CreateComputedTables(db, options.materialize);
    ComputedTables computed;
    computed.op_kernel_links = computed_views.Has("op_kernel_links");
    computed.idle_gaps = computed_views.Has("idle_gaps");
    computed.stream_idle_gaps = computed_views.Has("stream_idle_gaps");
    computed.autograd_pairs = computed_views.Has("autograd_pairs");
    computed.gpu_segments = computed_views.Has("gpu_segments");
    computed.memory_devices = computed_views.Has("memory_devices");
    computed.memory_levels = computed_views.Has("memory_levels");
    computed.steps = computed_views.Has("steps");
    computed.op_gpu_totals = computed_views.Has("op_gpu_totals");
    computed.stream_queue = computed_views.Has("stream_queue");
    GpuOpNames gpu_op_names;
    if (computed_views.Has("gpu_op_names")) computed.gpu_op_names = &gpu_op_names;
    db.Exec("BEGIN");
    ImportPages pages(db, dir.string(), db_path, computed);
    Interners ids;
    int64_t trace_id = 0;
    std::map<int64_t, std::vector<int64_t>> ranks;  // distributedInfo rank -> its traces' ids
    // Writes a built trace whose ids are the import's.
    auto write = [&](BuiltTrace& b) {
      ++trace_id;
      Trace& trace = b.builder->trace();
      if (const HeaderInfo& h = b.file.header; h.has_rank) {
        std::vector<int64_t>& same = ranks[h.rank];
        if (!same.empty()) b.builder->stats().Set(StatId::duplicate_rank, same.front());
        same.push_back(trace_id);
      }
      auto ti = Clock::now();
      WriteCounts c = WriteTrace(trace, b.file, trace_id, db, pages, computed);
      for (const char* table : c.sql_tables) computed_views.sql_traces[table].push_back(trace_id);
      summary.stages.insert += Since(ti);
      summary.stages.read_split += b.read_seconds;
      summary.stages.parse += b.parse_seconds;
      summary.stages.build += b.build_seconds;
      summary.events += c.events;
      summary.flows += c.flows;
      summary.json_bytes += b.file.json_bytes;
      summary.file_bytes += b.file.file_bytes;
      ++summary.traces;
      CheckInterrupted();
    };
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Default: the cores, at most kDefaultJobs: past that the one writer bounds the import (see
    // bench/README.md) and more traces in flight would only hold memory while they wait for it.
    constexpr int kDefaultJobs = 8;
    const int jobs = std::clamp(options.jobs > 0 ? options.jobs : std::min(cores, kDefaultJobs), 1,
                                static_cast<int>(traces.size()));
    summary.jobs = jobs;
    if (jobs == 1 && !options.keep_going) {
      // One trace at a time, built with the import's interners.
      for (const auto& path : traces) {
        BuiltTrace b = BuildTrace(path, dir.string(), ids, options, ParseWorkers(), options.progress, warn);
        write(b);
      }
    } else {
      // Built `jobs` at a time with interners of their own (their parse workers share the cores),
      // written in order by this thread, each moved to the import's ids first.
      const int workers = std::clamp(cores / jobs, 1, ParseWorkers());
      BuildPipeline pipeline(traces.size(), jobs, [&](size_t i, Interners& own, const auto& trace_warn) {
        return BuildTrace(traces[i], dir.string(), own, options, workers, /*progress_bar=*/false, trace_warn);
      });
      for (size_t i = 0; i < traces.size(); ++i) {
        BuildPipeline::Result r = pipeline.Take(i, warn);
        if (r.error) {
          if (!options.keep_going || g_interrupted.load()) std::rethrow_exception(r.error);
          std::string msg = ErrorText(r.error);
          warn(fmt::format("warning: {} (--keep-going: trace left out)", msg));
          summary.failed.push_back(msg);
        } else {
          auto tr = Clock::now();
          Interners& own = *r.ids;
          // The first trace written keeps its ids; the others are moved to the import's, and the
          // import's interners are moved into the objects the trace refers to while it is written
          // (moving the containers keeps their strings in place).
          if (!ids.empty()) {
            RemapToImportIds(r.built->builder->trace(), own, ids);
            std::swap(own, ids);
          }
          summary.stages.insert += Since(tr);
          write(*r.built);
          ids = std::move(own);
        }
        r = {};  // the trace's memory goes before the next one starts
        pipeline.Release();
        if (options.progress) {
          std::fprintf(stderr, "\r\033[K%zu/%zu traces", i + 1, traces.size());
          std::fflush(stderr);
        }
      }
      if (options.progress) std::fprintf(stderr, "\r\033[K");
      if (summary.traces == 0) Errorf("{}: no trace imported ({} failed)", db_path, summary.failed.size());
    }
    std::string repeated;
    for (const auto& [rank, ids_of_rank] : ranks) {
      if (ids_of_rank.size() < 2) continue;
      repeated += fmt::format("{}rank {}: traces", repeated.empty() ? "" : "; ", rank);
      for (size_t k = 0; k < ids_of_rank.size(); ++k) repeated += fmt::format("{} {}", k ? "," : "", ids_of_rank[k]);
    }
    if (!repeated.empty()) {
      warn(fmt::format("warning: {}: traces of one rank (distributedInfo): {}; cross-rank queries (collectives, stragglers) "
                       "take each rank's traces as one rank (import_stats duplicate_rank)",
                       db_path, repeated));
    }
    auto tx = Clock::now();
    {
      // The builders are gone: a larger cache for the index builds and the views costs no peak memory.
      db.Exec("PRAGMA cache_size = -65536");
      // The paged tables are still empty for SQLite: their indexes are created empty, then filled
      // with them when the pages are placed. The stacks (once, for all traces: their columns sum
      // over them) are made into pages then, on the second thread.
      CreateIndexes(db);
      pages.Place(
          db, tmp, [&] { WriteStacks(ids.stacks, ids.strings, pages); },
          [&] {
            Db d = open_db(/*create=*/false, 65536);
            d.Exec("BEGIN");
            return d;
          });
      if (computed.gpu_op_names) gpu_op_names.Write(db, ids.strings);
    }
    summary.stages.index = Since(tx);
    auto tv = Clock::now();
    summary.stages.view_files = CreateViews(db, options.materialize, &computed_views);
    {
      Stmt s = db.Prepare("INSERT INTO tracesql_meta (key, value) VALUES (?, ?)");
      auto put = [&](const char* k, const std::string& v) {
        s.BindText(1, k);
        s.BindText(2, v);
        s.Run();
      };
      put("tracesql_version", TRACESQL_VERSION);
      put("schema_version", std::to_string(kSchemaVersion));
      put("sqlite_version", sqlite3_libversion());
    }
    summary.stages.views = Since(tv);
    db.Exec("COMMIT");
    db.Exec("PRAGMA journal_mode = DELETE");
    db.Close();
    // The data reaches the disk before the file gets its final name (a crash or power loss leaves
    // the old database or the new one, never a partial one under the name).
    if (!SyncPath(tmp, /*directory=*/false)) Errorf("{}: cannot write database: {}", db_path, std::strerror(errno));
    CheckInterrupted();
  } catch (const Error& e) {
    db.Close();
    if (g_interrupted.load()) Errorf("{}: interrupted; no database written", db_path);
    std::string msg = e.what();
    // SQLite's and the spill file's out-of-space errors name the database being written.
    for (const char* io : {"database or disk is full", "disk I/O error", "No space left on device", "Disk quota exceeded"}) {
      if (msg.find(io) != std::string::npos) Errorf("{}: cannot write database: {}", db_path, io);
    }
    throw;
  }
  MoveIntoPlace(tmp, db_path, options.force, "database");
  guard.Release();
  SyncPath(dir.string(), /*directory=*/true);
  summary.seconds = Since(t0);
  return summary;
}

}  // namespace tracesql
