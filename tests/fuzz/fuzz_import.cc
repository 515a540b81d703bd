// Importer fuzz target (libFuzzer; the same file links a replay main under gcc).
//
// Each input is written to a file and imported into a fresh database with ImportTraces, exactly as
// `tracesql import` would. A failed import must throw tracesql::Error and leave no file behind; any
// other exception, a crash or a sanitizer report is a bug. A successful import must satisfy every
// schema invariant: PRAGMA integrity_check and foreign_key_check, each tests/invariants/*.sql
// returning no rows, one op_kernels row per GPU op (once those views exist), valid UTF-8 in every
// name, and a truncation row exactly when traces.truncated is set. Small inputs (and one in eight
// others) are also imported gzip-compressed and must give the same database content (a
// differential check of input.cc).
//
// Input conventions: the bytes "\x1e\x1e" separate up to three traces imported into one database
// (ids continue across traces, stacks and arg shapes are shared). Under libFuzzer a custom mutator
// adds structure-aware edits (insert a Kineto event, swap a number for a hostile one, change a
// phase) on top of libFuzzer's byte-level mutations and the tests/fuzz/kineto.dict dictionary.
#include <simdjson.h>
#include <sqlite3.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"

namespace fs = std::filesystem;

namespace {

struct Invariant {
  std::string name, sql;
};

struct Harness {
  std::string dir;  // private work directory: inputs, output database, nothing else
  std::vector<Invariant> invariants;
};

Harness& H() {
  static Harness h;
  return h;
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_import: INVARIANT VIOLATED: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

void Setup() {
  Harness& h = H();
  if (!h.dir.empty()) return;
  const char* base = std::getenv("TQ_FUZZ_TMPDIR");
  std::string root = base ? base : (fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path().string());
  std::string tmpl = root + "/tq-fuzz-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  if (!mkdtemp(name.data())) {
    std::perror("fuzz_import: mkdtemp");
    std::abort();
  }
  h.dir = name.data();
  // Remove the work directory at exit (libFuzzer exits through exit()).
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(H().dir, ec);
  });
  const char* inv = std::getenv("TQ_INVARIANTS_DIR");
  fs::path inv_dir = inv ? fs::path(inv) : fs::path(TQ_SOURCE_DIR) / "tests" / "invariants";
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(inv_dir, ec)) {
    if (e.path().extension() == ".sql") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    h.invariants.push_back({f.filename().string(), ss.str()});
  }
  if (h.invariants.empty()) {
    std::fprintf(stderr, "fuzz_import: no invariants found in %s\n", inv_dir.string().c_str());
    std::abort();
  }
}

void WriteFile(const std::string& path, std::string_view data) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::abort();
  }
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), f) != data.size()) std::abort();
  std::fclose(f);
}

std::string Gzip(std::string_view data) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Every row of a query as text, one line per row ("|" between columns), for messages and digests.
std::string Rows(sqlite3* db, const std::string& sql, size_t max_rows, const std::string& what) {
  std::string out;
  const char* tail = sql.c_str();
  size_t rows = 0;
  while (tail && *tail) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
      Fail(what + ": cannot prepare: " + sqlite3_errmsg(db));
    }
    if (!st) continue;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (rows++ < max_rows) {
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
          if (i) out += '|';
          const unsigned char* t = sqlite3_column_text(st, i);
          out += t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i)))
                   : std::string("NULL");
        }
        out += '\n';
      }
    }
    if (rc != SQLITE_DONE) Fail(what + ": " + sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
  return out;
}

bool HasObject(sqlite3* db, const char* name) {
  std::string sql = std::string("SELECT 1 FROM sqlite_master WHERE name = '") + name + "'";
  return !Rows(db, sql, 1, "sqlite_master").empty();
}

// Files in the work directory other than the inputs and the database.
void CheckNoLeftovers(const std::vector<std::string>& allowed) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(H().dir, ec)) {
    std::string n = e.path().filename().string();
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) Fail("file left behind: " + n);
  }
}

// Checks the invariants; returns a digest of the content (for the gzip differential).
std::string CheckDatabase(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    Fail("cannot open the imported database");
  }
  std::string ic = Rows(db, "PRAGMA integrity_check", 20, "integrity_check");
  if (ic != "ok\n") Fail("integrity_check: " + ic);
  std::string fk = Rows(db, "PRAGMA foreign_key_check", 20, "foreign_key_check");
  if (!fk.empty()) Fail("foreign_key_check: " + fk);
  for (const auto& inv : H().invariants) {
    std::string rows = Rows(db, inv.sql, 10, inv.name);
    if (!rows.empty()) Fail(inv.name + " returned rows:\n" + rows);
  }
  // One row per GPU op in op_kernels, once the views exist.
  if (HasObject(db, "op_kernels")) {
    std::string dup = Rows(db, "SELECT gpu_event_id, count(*) FROM op_kernels GROUP BY gpu_event_id HAVING count(*) <> 1", 10,
                           "op_kernels");
    if (!dup.empty()) Fail("op_kernels: GPU op with more than one row:\n" + dup);
    if (HasObject(db, "gpu_ops")) {
      std::string diff = Rows(db,
                              "SELECT (SELECT count(*) FROM gpu_ops), (SELECT count(*) FROM op_kernels)"
                              " WHERE (SELECT count(*) FROM gpu_ops) <> (SELECT count(*) FROM op_kernels)",
                              10, "op_kernels vs gpu_ops");
      if (!diff.empty()) Fail("op_kernels rows differ from gpu_ops: " + diff);
    }
  }
  // Truncation is recorded in both places or neither.
  std::string trunc = Rows(db,
                           "SELECT t.id, t.truncated FROM traces t WHERE t.truncated <> EXISTS (SELECT 1 FROM import_stats s"
                           " WHERE s.trace_id = t.id AND s.name = 'truncated_at_byte')",
                           10, "truncation");
  if (!trunc.empty()) Fail("traces.truncated disagrees with import_stats: " + trunc);
  // Every stored name is valid UTF-8 (invalid input is repaired, never stored as is).
  for (const char* q : {"SELECT name FROM events", "SELECT cat FROM events", "SELECT ph FROM events",
                        "SELECT name FROM threads", "SELECT name FROM processes", "SELECT labels FROM processes",
                        "SELECT pid FROM threads", "SELECT tid FROM threads", "SELECT arg_values FROM events",
                        "SELECT key FROM arg_keys", "SELECT metadata FROM traces"}) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, q, -1, &st, nullptr) != SQLITE_OK) Fail(std::string("prepare ") + q);
    while (sqlite3_step(st) == SQLITE_ROW) {
      if (sqlite3_column_type(st, 0) != SQLITE_TEXT) continue;
      const char* t = reinterpret_cast<const char*>(sqlite3_column_blob(st, 0));
      size_t n = static_cast<size_t>(sqlite3_column_bytes(st, 0));
      if (t && !simdjson::validate_utf8(t, n)) Fail(std::string("invalid UTF-8 stored: ") + q);
    }
    sqlite3_finalize(st);
  }
  std::string digest = Rows(db,
                            "SELECT count(*), total(ts), total(dur), total(depth), total(parent_id), total(stack_id),"
                            " group_concat(name, '/'), group_concat(arg_values, '/') FROM events;"
                            "SELECT count(*), total(src_event_id), total(dst_event_id) FROM flows;"
                            "SELECT trace_id, name, value FROM import_stats ORDER BY 1, 2;"
                            "SELECT id, event_count, start_ts, end_ts, metadata, truncated, json_bytes FROM traces ORDER BY id;"
                            "SELECT count(*) FROM threads; SELECT count(*) FROM stacks; SELECT count(*) FROM arg_keys",
                            1000000, "digest");
  sqlite3_close(db);
  return digest;
}

// Imports `traces` (file contents) into dir/out.db. Returns true and the content digest on success.
bool ImportAndCheck(const std::vector<std::string_view>& traces, bool gzip, std::string* digest) {
  const std::string& dir = H().dir;
  std::vector<std::string> paths, allowed;
  for (size_t i = 0; i < traces.size(); ++i) {
    std::string name = "in" + std::to_string(i) + (gzip ? ".json.gz" : ".json");
    paths.push_back(dir + "/" + name);
    allowed.push_back(name);
    WriteFile(paths.back(), gzip ? std::string_view(Gzip(traces[i])) : traces[i]);
  }
  std::string out = dir + "/out.db";
  std::error_code ec;
  fs::remove(out, ec);
  tracesql::ImportOptions opt;
  opt.warn = [](const std::string&) {};
  bool ok = true;
  try {
    tracesql::ImportTraces(paths, out, opt);
  } catch (const tracesql::Error& e) {
    ok = false;
    if (std::string_view(e.what()).empty()) Fail("empty error message");
  }
  if (ok) {
    allowed.push_back("out.db");
    CheckNoLeftovers(allowed);
    *digest = CheckDatabase(out);
  } else {
    CheckNoLeftovers(allowed);
  }
  for (const auto& p : paths) fs::remove(p, ec);
  fs::remove(out, ec);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Setup();
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> traces;
  while (traces.size() < 2) {
    size_t sep = all.find("\x1e\x1e");
    if (sep == std::string_view::npos) break;
    traces.push_back(all.substr(0, sep));
    all.remove_prefix(sep + 2);
  }
  traces.push_back(all);
  std::string plain, zipped;
  bool ok = ImportAndCheck(traces, /*gzip=*/false, &plain);
  // The same bytes gzip-compressed must import to the same content (or fail the same way). Checked
  // for small inputs and one in eight of the others (by content, so a replay repeats it).
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  bool differential = size <= 4096 || (size <= (64 << 10) && h % 8 == 0);
  if (differential && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
    bool ok_gz = ImportAndCheck(traces, /*gzip=*/true, &zipped);
    if (ok != ok_gz) Fail(std::string("plain import ") + (ok ? "succeeded" : "failed") + " but gzip import " + (ok_gz ? "succeeded" : "failed"));
    if (ok && plain != zipped) Fail("plain and gzip imports differ:\n" + plain.substr(0, 2000) + "\n---\n" + zipped.substr(0, 2000));
  }
  return 0;
}

#ifdef TQ_WITH_LIBFUZZER
// ---------------------------------------------------------------------------------------------
// Structure-aware mutations: realistic Kineto events and hostile values, spliced at token
// boundaries so that the result usually stays JSON and reaches the builder.

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr std::string_view kEvents[] = {
    R"ev({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 3, "Sequence number": 7, "Fwd thread id": 0, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}})ev",
    R"ev({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"External id": 3, "correlation": 42, "cbid": 211}})ev",
    R"ev({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 200, "dur": 30, "args": {"External id": 3, "correlation": 42, "device": 0, "stream": 7, "grid": [1, 1, 1]}})ev",
    R"ev({"ph": "s", "id": 42, "pid": 1, "tid": 1, "ts": 110, "cat": "ac2g", "name": "ac2g"})ev",
    R"ev({"ph": "f", "id": 42, "pid": 0, "tid": 7, "ts": 200, "cat": "ac2g", "name": "ac2g", "bp": "e"})ev",
    R"ev({"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 101, "cat": "fwdbwd", "name": "fwdbwd"})ev",
    R"ev({"ph": "f", "id": 7, "pid": 1, "tid": 2, "ts": 300, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})ev",
    R"ev({"ph": "B", "name": "region", "pid": 1, "tid": 1, "ts": 90})ev",
    R"ev({"ph": "E", "name": "region", "pid": 1, "tid": 1, "ts": 400, "args": {"k": 1}})ev",
    R"ev({"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}})ev",
    R"ev({"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}})ev",
    R"ev({"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}})ev",
    R"ev({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 1, "args": {"sort_index": 3}})ev",
    R"ev({"ph": "C", "name": "memory", "pid": 1, "tid": 1, "ts": 120, "args": {"bytes": 1024}})ev",
    R"ev({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 130, "args": {"Bytes": 512, "Total Allocated": 2048, "Addr": 94305}})ev",
    R"ev({"ph": "X", "cat": "python_function", "name": "forward", "pid": 1, "tid": "1", "ts": 95, "dur": 400, "args": {"Python id": 1, "Python parent id": 0}})ev",
    R"ev({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 80, "dur": 1000})ev",
    R"ev({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 250, "dur": 3, "args": {"correlation": 43, "bytes": 64, "memory bandwidth (GB/s)": inf}})ev",
    R"ev({"ph": "X", "cat": "Operator", "name": "legacy", "pid": "25738", "tid": "25738", "ts": 1600000000000000, "dur": 2.5})ev",
    R"ev({"ph": "f", "id": 43, "pid": 0, "tid": 7, "ts": 250, "cat": "async_gpu", "name": "launch"})ev",
};

constexpr std::string_view kNumbers[] = {
    "0", "-1", "1.5", "0.001", "1e3", "-0", "1E-7", "99999999999999999999", "-9223372036854775808",
    "9223372036854775807", "9223372036854775808", "4611686018427387903", "1712195495519689.047", "1e308", "NaN",
    "Infinity", "-Infinity", "inf", "-inf", "nan", "\"12\"", "\"abc\"", "null", "true", "[]", "{}", "1419247332972.313",
};

constexpr std::string_view kStrings[] = {
    "\"X\"", "\"B\"", "\"E\"", "\"i\"", "\"C\"", "\"M\"", "\"s\"", "\"t\"", "\"f\"", "\"\"", "\"kernel\"", "\"cpu_op\"",
    "\"ac2g\"", "\"fwdbwd\"", "\"e\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\u00e9\\\"\\\\\"", "\"stream 7\"", "\"25738\"",
    "\"process_name\"", "\"thread_name\"", "\"[memory]\"", "\"ProfilerStep#2\"", "12", "null", "{}", "[1, 2]",
};

// Byte offsets of the starts of number tokens / string tokens outside strings.
void Tokens(std::string_view s, std::vector<std::pair<size_t, size_t>>& nums, std::vector<std::pair<size_t, size_t>>& strs,
            std::vector<size_t>& obj_ends) {
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += (s[j] == '\\') ? 2 : 1;
      j = std::min(j + 1, s.size());
      strs.emplace_back(i, j - i);
      i = j;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '-' || s[j] == '+')) ++j;
      nums.emplace_back(i, j - i);
      i = j;
    } else {
      if (c == '}') obj_ends.push_back(i + 1);
      ++i;
    }
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  if (size == 0 || rng() % 3 != 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string s(reinterpret_cast<char*>(data), size);
  std::vector<std::pair<size_t, size_t>> nums, strs;
  std::vector<size_t> obj_ends;
  Tokens(s, nums, strs, obj_ends);
  switch (rng() % 5) {
    case 0:  // insert an event after an object
      if (!obj_ends.empty()) {
        size_t at = obj_ends[rng() % obj_ends.size()];
        s.insert(at, std::string(", ") + std::string(kEvents[rng() % std::size(kEvents)]));
        break;
      }
      [[fallthrough]];
    case 1:  // hostile or borrowed number
      if (!nums.empty()) {
        auto [at, len] = nums[rng() % nums.size()];
        std::string rep = (rng() % 2) ? std::string(kNumbers[rng() % std::size(kNumbers)])
                                      : s.substr(nums[rng() % nums.size()].first, nums[rng() % nums.size()].second);
        s.replace(at, len, rep);
        break;
      }
      [[fallthrough]];
    case 2:  // string value swap (phases, categories, odd escapes)
      if (!strs.empty()) {
        auto [at, len] = strs[rng() % strs.size()];
        s.replace(at, len, kStrings[rng() % std::size(kStrings)]);
        break;
      }
      [[fallthrough]];
    case 3:  // duplicate an object-sized span ending at a '}'
      if (obj_ends.size() >= 2) {
        size_t a = obj_ends[rng() % obj_ends.size()], b = obj_ends[rng() % obj_ends.size()];
        if (a > b) std::swap(a, b);
        if (b - a < 4096) s.insert(b, s.substr(a, b - a));
        break;
      }
      [[fallthrough]];
    default:  // cut the file short somewhere (truncation)
      s.resize(rng() % s.size());
      break;
  }
  if (s.size() > max_size) s.resize(max_size);
  std::memcpy(data, s.data(), s.size());
  return s.size();
}
#endif  // TQ_WITH_LIBFUZZER
