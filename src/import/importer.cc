// The import pipeline: a reader thread inflates and splits the file into batches of whole events
// while this thread parses them with simdjson On-Demand and feeds the TraceBuilder; then nesting,
// flows and rows are written in one transaction into a temporary database that is renamed into
// place only when complete.
#include <simdjson.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "import/builder.h"
#include "import/input.h"
#include "import/splitter.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "tracesql/timestamp.h"

namespace tracesql {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::atomic<bool> g_interrupted{false};
extern "C" void OnSignal(int) { g_interrupted.store(true); }

void CheckInterrupted() {
  if (g_interrupted.load()) throw Error("interrupted");
}

// Bounded single-producer / single-consumer queue of batches.
class BatchQueue {
 public:
  explicit BatchQueue(size_t cap) : cap_(cap) {}
  // Returns false when the consumer has gone away.
  bool Push(Batch&& b) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return q_.size() < cap_ || cancelled_; });
    if (cancelled_) return false;
    q_.push_back(std::move(b));
    cv_.notify_all();
    return true;
  }
  // Returns false at the end of the stream.
  bool Pop(Batch& b) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty() || done_; });
    if (q_.empty()) return false;
    b = std::move(q_.front());
    q_.pop_front();
    cv_.notify_all();
    return true;
  }
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    cv_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  size_t cap_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> q_;
  bool done_ = false, cancelled_ = false;
};

struct Cancelled {};

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Normalises a pid/tid value: integers stay, numeric strings become integers, other text stays.
IdValue ReadId(simdjson::ondemand::value v, Interner& strings, Stats& stats) {
  IdValue out;
  if (v.type() == simdjson::ondemand::json_type::string) {
    std::string_view s = v.get_string();
    if (auto i = ParseInt64(s); i && !s.empty() && (s[0] != '-' || s.size() > 1) && !(s.size() > 1 && s[0] == '0')) {
      out.i = *i;
      stats.Add(StatId::numeric_string_ids);
      return out;
    }
    out.is_text = true;
    out.text = strings.Intern(s);
    return out;
  }
  std::string_view tok = TrimRight(v.raw_json_token());
  if (auto i = ParseInt64(tok)) {
    out.i = *i;
    return out;
  }
  // Floats, big integers, booleans...: keep the literal text.
  if (tok.find_first_of(".eE") == std::string_view::npos && !tok.empty() && (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9'))) {
    stats.Add(StatId::big_integers);
  }
  out.is_text = true;
  out.text = strings.Intern(tok);
  return out;
}

int PromotedIndex(std::string_view key) {
  switch (key.size()) {
    case 6:
      if (key == "device") return kDevice;
      if (key == "stream") return kStream;
      break;
    case 9:
      if (key == "Python id") return kPythonId;
      break;
    case 11:
      if (key == "External id" || key == "external id") return kExternalId;
      if (key == "correlation") return kCorrelation;
      break;
    case 13:
      if (key == "Fwd thread id") return kFwdThreadId;
      break;
    case 15:
      if (key == "Sequence number") return kSeqNum;
      break;
    case 16:
      if (key == "Python parent id") return kPythonParentId;
      break;
    default:
      break;
  }
  return -1;
}

// Decodes the args object: values as a minified JSON array into `out`, the keys into `sig`,
// promoted values and metadata args into e.
void ReadArgs(simdjson::ondemand::object obj, RawEvent& e, std::string& out, std::string& sig, Stats& stats) {
  using simdjson::ondemand::json_type;
  out.clear();
  sig.clear();
  out.push_back('[');
  bool first = true;
  for (auto field : obj) {
    std::string_view key = field.unescaped_key();
    if (!first) out.push_back(',');
    first = false;
    uint32_t klen = static_cast<uint32_t>(key.size());
    sig.append(reinterpret_cast<const char*>(&klen), 4);
    sig.append(key);
    simdjson::ondemand::value v = field.value();
    switch (v.type()) {
      case json_type::object: {
        simdjson::ondemand::object o = v.get_object();
        AppendMinified(out, o.raw_json());
        break;
      }
      case json_type::array: {
        simdjson::ondemand::array a = v.get_array();
        AppendMinified(out, a.raw_json());
        break;
      }
      case json_type::number: {
        std::string_view tok = TrimRight(v.raw_json_token());
        bool is_int = tok.find_first_of(".eE") == std::string_view::npos;
        std::optional<int64_t> iv;
        if (is_int) iv = ParseInt64(tok);
        if (is_int && !iv) {
          // Beyond int64: keep the exact digits as a JSON string.
          stats.Add(StatId::big_integers);
          out.push_back('"');
          out.append(tok);
          out.push_back('"');
          break;
        }
        out.append(tok);
        if (iv) {
          int k = PromotedIndex(key);
          if (k >= 0) {
            e.mask |= static_cast<uint8_t>(1u << k);
            e.promoted[k] = *iv;
          }
          if (key == "sort_index") {
            e.has_meta_sort = true;
            e.meta_sort = *iv;
          }
        }
        break;
      }
      case json_type::string: {
        std::string_view tok = TrimRight(v.raw_json_token());
        out.append(tok);
        if (key == "name" || key == "labels") {
          std::string_view s = v.get_string();
          e.meta_name.assign(s);
        }
        break;
      }
      default: {
        std::string_view tok = TrimRight(v.raw_json_token());
        out.append(tok);
        break;
      }
    }
  }
  out.push_back(']');
  e.args = out;
  e.arg_sig = sig;
}

int64_t ReadTime(simdjson::ondemand::value v, Stats& stats) {
  std::string_view tok;
  if (v.type() == simdjson::ondemand::json_type::string) {
    tok = v.get_string();
  } else {
    tok = TrimRight(v.raw_json_token());
  }
  if (auto ns = MicrosToNanos(tok)) return *ns;
  stats.Add(StatId::bad_timestamps);
  return kNullTs;
}

class EventParser {
 public:
  EventParser(TraceBuilder& builder, const std::string& path, bool compressed)
      : builder_(builder), path_(path), where_(compressed ? " of the decompressed JSON" : "") {}

  void ParseBatch(Batch& batch) {
    size_t k = 0;
    try {
      simdjson::ondemand::document doc = parser_.iterate(batch.text.data(), batch.text.size(), batch.text.capacity());
      simdjson::ondemand::array arr = doc.get_array();
      for (auto element : arr) {
        simdjson::ondemand::object obj = element.get_object();
        ParseEvent(obj, batch.json_offset + batch.event_offsets[k] - 1);
        ++k;
      }
    } catch (const simdjson::simdjson_error& err) {
      int64_t at = batch.json_offset + (k < batch.event_offsets.size() ? batch.event_offsets[k] : 1) - 1;
      Errorf("{}: byte {}{}: malformed trace event: {}", path_, at, where_, simdjson::error_message(err.error()));
    }
  }

 private:
  void ParseEvent(simdjson::ondemand::object& obj, int64_t offset) {
    RawEvent e;
    Stats& stats = builder_.stats();
    Interner& strings = builder_.strings();
    bool has_ph = false;
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      simdjson::ondemand::value v = field.value();
      switch (key.size()) {
        case 2:
          if (key == "ph") {
            e.ph = v.get_string();  // valid until the next batch is parsed
            has_ph = true;
            continue;
          }
          if (key == "ts") {
            e.ts = ReadTime(v, stats);
            continue;
          }
          if (key == "id") {
            e.has_id = true;
            e.id = ReadId(v, strings, stats);
            continue;
          }
          if (key == "bp") {
            std::string_view bp = v.get_string();
            e.bp_enclosing = bp == "e";
            continue;
          }
          break;
        case 3:
          if (key == "cat") {
            if (v.is_null()) continue;
            e.cat = v.get_string();
            e.has_cat = true;
            continue;
          }
          if (key == "pid") {
            e.pid = ReadId(v, strings, stats);
            continue;
          }
          if (key == "tid") {
            e.tid = ReadId(v, strings, stats);
            continue;
          }
          if (key == "dur") {
            e.dur = ReadTime(v, stats);
            continue;
          }
          break;
        case 4:
          if (key == "name") {
            e.name = v.get_string();
            continue;
          }
          if (key == "args") {
            if (v.type() == simdjson::ondemand::json_type::object) {
              ReadArgs(v.get_object(), e, args_, sig_, stats);
            } else {
              // Not an object (never seen in real traces): kept as one arg with an empty key.
              std::string_view raw = TrimRight(v.raw_json_token());
              if (v.type() == simdjson::ondemand::json_type::array) {
                simdjson::ondemand::array a = v.get_array();
                raw = a.raw_json();
              }
              args_.assign("[");
              AppendMinified(args_, raw);
              args_.push_back(']');
              sig_.assign(4, '\0');
              e.args = args_;
              e.arg_sig = sig_;
            }
            continue;
          }
          break;
        case 1:
          if (key == "s") {
            (void)v.raw_json_token();
            continue;
          }
          break;
        default:
          break;
      }
      // Unknown key: skip its value (still validated by simdjson).
      stats.Add(StatId::unknown_event_keys);
      if (v.type() == simdjson::ondemand::json_type::object) {
        simdjson::ondemand::object o = v.get_object();
        (void)o.raw_json();
      } else if (v.type() == simdjson::ondemand::json_type::array) {
        simdjson::ondemand::array a = v.get_array();
        (void)a.raw_json();
      } else {
        (void)v.raw_json_token();
      }
    }
    if (!has_ph) e.ph = std::string_view();
    builder_.AddEvent(e, offset);
  }

  TraceBuilder& builder_;
  const std::string& path_;
  const char* where_;
  simdjson::ondemand::parser parser_;
  std::string args_, sig_;
};

// Header values: validated and decoded with the DOM parser.
HeaderInfo ReadHeader(const SplitResult& split, const std::string& path) {
  HeaderInfo h;
  simdjson::dom::parser parser;
  std::string meta = "{";
  bool first = true;
  for (const auto& [key, raw] : split.header) {
    simdjson::dom::element el;
    auto err = parser.parse(raw).get(el);
    if (err) Errorf("{}: malformed JSON in top-level key \"{}\": {}", path, key, simdjson::error_message(err));
    if (!first) meta.push_back(',');
    first = false;
    AppendJsonString(meta, key);
    meta.push_back(':');
    AppendMinified(meta, raw);
    if (key == "baseTimeNanoseconds") {
      std::string_view tok = TrimRight(raw);
      if (auto v = ParseInt64(tok)) {
        h.has_base = true;
        h.base_time_ns = *v;
      } else if (el.is_string()) {
        if (auto v2 = ParseInt64(el.get_string().value())) {
          h.has_base = true;
          h.base_time_ns = *v2;
        }
      }
    } else if (key == "distributedInfo" && el.is_object()) {
      int64_t v;
      if (!el["rank"].get_int64().get(v)) {
        h.has_rank = true;
        h.rank = v;
      }
      if (!el["world_size"].get_int64().get(v)) {
        h.has_world = true;
        h.world_size = v;
      }
    } else if (key == "deviceProperties" && el.is_array()) {
      for (simdjson::dom::element d : el.get_array()) {
        if (!d.is_object()) continue;
        HeaderInfo::Device dev;
        int64_t v;
        std::string_view s;
        if (!d["id"].get_int64().get(v)) dev.has_id = true, dev.id = v;
        if (!d["name"].get_string().get(s)) dev.name = std::string(s);
        if (!d["computeMajor"].get_int64().get(v)) dev.has_major = true, dev.major = v;
        if (!d["computeMinor"].get_int64().get(v)) dev.has_minor = true, dev.minor = v;
        if (!d["totalGlobalMem"].get_int64().get(v)) dev.has_mem = true, dev.mem = v;
        if (!d["numSms"].get_int64().get(v)) dev.has_sms = true, dev.sms = v;
        dev.properties = simdjson::minify(d);
        h.devices.push_back(std::move(dev));
      }
    }
  }
  meta.push_back('}');
  h.metadata = std::move(meta);
  return h;
}

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

// Removes the temporary database (and its journal) unless released.
class TempDbGuard {
 public:
  explicit TempDbGuard(std::string path) : path_(std::move(path)) {}
  ~TempDbGuard() {
    if (!released_) {
      std::error_code ec;
      fs::remove(path_, ec);
      fs::remove(path_ + "-journal", ec);
      fs::remove(path_ + "-wal", ec);
      fs::remove(path_ + "-shm", ec);
    }
  }
  void Release() { released_ = true; }

 private:
  std::string path_;
  bool released_ = false;
};

struct SignalGuard {
  struct sigaction old_int {}, old_term {};
  SignalGuard() {
    g_interrupted.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

}  // namespace

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
  if (fs::exists(out, ec)) {
    if (fs::is_directory(out, ec)) Errorf("{}: cannot create database: is a directory", db_path);
    if (!options.force) Errorf("{}: database already exists (use --force to replace it)", db_path);
  }
  if (access(dir.c_str(), W_OK) != 0) Errorf("{}: cannot create database: directory {} is not writable", db_path, dir.string());
  // Fail early on unreadable inputs, before any work.
  for (const auto& t : traces) InputStream probe(t);

  std::string tmp = (dir / fmt::format(".{}.tmp-{}", out.filename().string(), getpid())).string();
  fs::remove(tmp, ec);
  TempDbGuard guard(tmp);
  SignalGuard signals;
  Db db = Db::Open(tmp, /*create=*/true);
  db.Exec(
      "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
      " PRAGMA cache_size = -32768; PRAGMA temp_store = FILE; PRAGMA threads = 2;");
  if (const char* max_pages = std::getenv("TRACESQL_TEST_MAX_PAGES")) {
    db.Exec(fmt::format("PRAGMA max_page_count = {}", std::atoll(max_pages)));
  }
  try {
    CreateSchema(db);
    db.Exec("BEGIN");
    Interner strings;
    StackInterner stacks;
    ArgShapes shapes;
    int64_t trace_id = 0;
    for (const auto& path : traces) {
      ++trace_id;
      auto tp = Clock::now();
      InputStream in(path);
      TraceBuilder builder(path, dir.string(), strings, stacks, shapes);
      EventParser parser(builder, path, in.compressed());
      Progress progress(options.progress, fs::path(path).filename().string(), in.file_size());

      BatchQueue queue(4);
      SplitResult split;
      std::exception_ptr reader_error;
      double read_seconds = 0;
      std::thread reader([&] {
        auto tr = Clock::now();
        try {
          split = Splitter::Run(
              in, [&](Batch&& b) { if (!queue.Push(std::move(b))) throw Cancelled{}; },
              [&](int64_t done) { progress.Update(done); });
        } catch (const Cancelled&) {
        } catch (...) {
          reader_error = std::current_exception();
        }
        read_seconds = Since(tr);
        queue.Done();
      });
      try {
        Batch batch;
        while (queue.Pop(batch)) {
          CheckInterrupted();
          parser.ParseBatch(batch);
        }
      } catch (...) {
        queue.Cancel();
        reader.join();
        progress.Clear();
        throw;
      }
      reader.join();
      progress.Clear();
      if (reader_error) std::rethrow_exception(reader_error);
      summary.stages.read_split += read_seconds;
      summary.stages.parse += Since(tp);

      if (!split.saw_trace_events) Errorf("{}: no traceEvents array in the JSON object", path);
      if (split.events == 0) {
        if (split.truncated) Errorf("{}: byte {}: file ends before the first complete trace event", path, split.truncated_at);
        Errorf("{}: no trace events (traceEvents is empty)", path);
      }
      if (split.truncated) {
        std::string msg = fmt::format("{}: byte {}{}: file is truncated inside the {}; imported the {} complete events before it",
                                      path, split.truncated_at, in.compressed() ? " of the decompressed JSON" : "",
                                      split.truncated_what, split.events);
        if (options.strict) Errorf("{} (--strict)", msg.substr(0, msg.find("; imported")));
        warn("warning: " + msg);
        builder.stats().Set(StatId::truncated_at_byte, split.truncated_at);
      }
      HeaderInfo header = ReadHeader(split, path);

      auto tb = Clock::now();
      builder.Finish();
      summary.stages.build += Since(tb);
      CheckInterrupted();
      auto ti = Clock::now();
      WriteCounts c = builder.Write(db, trace_id, header, split.root_shape, in.file_size(), split.json_bytes,
                                    in.compressed(), split.truncated);
      summary.stages.insert += Since(ti);
      summary.events += c.events;
      summary.flows += c.flows;
      summary.json_bytes += split.json_bytes;
      summary.file_bytes += in.file_size();
      ++summary.traces;
      CheckInterrupted();
    }
    auto tx = Clock::now();
    CreateIndexes(db);
    summary.stages.index = Since(tx);
    auto tv = Clock::now();
    CreateViews(db, options.materialize);
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
  } catch (const Error& e) {
    db.Close();
    std::string msg = e.what();
    for (const char* io : {"database or disk is full", "disk I/O error"}) {
      if (msg.find(io) != std::string::npos) Errorf("{}: cannot write database: {}", db_path, io);
    }
    throw;
  }
  if (std::rename(tmp.c_str(), db_path.c_str()) != 0) {
    Errorf("{}: cannot move the finished database into place: {}", db_path, std::strerror(errno));
  }
  guard.Release();
  summary.seconds = Since(t0);
  return summary;
}

}  // namespace tracesql
