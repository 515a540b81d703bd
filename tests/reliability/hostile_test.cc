// Hostile values (issue 6, part 4): each kind of odd or malicious input gets one defined behaviour
// (stored, clamped, skipped or a clean error), always counted in import_stats. Every case imports
// through ImportTraces, exactly as `tracesql import` does, then reads the database back.
#include <catch2/catch.hpp>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"

namespace fs = std::filesystem;
using namespace tracesql;

namespace {

// Peak RSS allowed for importing the 256 MiB gzip bomb (sanitizers add their own shadow memory).
#if defined(__SANITIZE_ADDRESS__)
constexpr long kMaxBombRssKb = 600 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr long kMaxBombRssKb = 600 * 1024;
#else
constexpr long kMaxBombRssKb = 200 * 1024;
#endif
#else
constexpr long kMaxBombRssKb = 200 * 1024;
#endif

class Scratch {
 public:
  Scratch() {
    char tmpl[] = "/tmp/tq_hostile_XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dir_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, const std::string& content) {
    std::string p = dir_ + "/" + name;
    FILE* f = std::fopen(p.c_str(), "wb");
    REQUIRE(f);
    REQUIRE(std::fwrite(content.data(), 1, content.size(), f) == content.size());
    std::fclose(f);
    return p;
  }
  // Imports `text` and opens the database; warnings are collected.
  Db Import(const std::string& text, const std::string& name = "trace.json") {
    std::string trace = Write(name, text);
    std::string db = dir_ + "/t.db";
    std::error_code ec;
    fs::remove(db, ec);
    ImportOptions opt;
    opt.warn = [&](const std::string& w) { warnings.push_back(w); };
    ImportTraces({trace}, db, opt);
    return Db::Open(db, false, true);
  }
  // Imports `text`, which must fail: returns the message; nothing may be left but the trace.
  std::string ImportError(const std::string& text) {
    std::string trace = Write("bad.json", text);
    std::string db = dir_ + "/bad.db";
    ImportOptions opt;
    opt.warn = [](const std::string&) {};
    std::string msg;
    try {
      ImportTraces({trace}, db, opt);
    } catch (const Error& e) {
      msg = e.what();
    }
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      std::string n = e.path().filename().string();
      if (n != "bad.json" && n != "trace.json" && n != "trace.json.gz" && n != "t.db") {
        FAIL("left behind: " << n);
      }
      ++files;
    }
    (void)files;
    fs::remove(trace);
    return msg;
  }
  const std::string& dir() const { return dir_; }
  std::vector<std::string> warnings;

 private:
  std::string dir_;
};

// First column of the first row as text ("NULL" for NULL, "<none>" without rows).
std::string One(Db& db, const std::string& sql) {
  Stmt s = db.Prepare(sql);
  if (!s.Step()) return "<none>";
  if (s.ColumnIsNull(0)) return "NULL";
  return s.ColumnText(0);
}

int64_t Stat(Db& db, const std::string& name) {
  return db.QueryInt("SELECT coalesce((SELECT value FROM import_stats WHERE name = '" + name + "'), 0)");
}

// Every stored args array must be valid JSON (SQLite's json_valid), whatever the input held.
void CheckArgsValid(Db& db) {
  CHECK(One(db, "SELECT count(*) FROM events WHERE arg_values IS NOT NULL AND NOT json_valid(arg_values)") == "0");
  CHECK(One(db, "SELECT count(*) FROM traces WHERE NOT json_valid(metadata)") == "0");
  CHECK(One(db, "PRAGMA integrity_check") == "ok");
}

std::string Trace(const std::string& events, const std::string& header = "") {
  return "{" + header + (header.empty() ? "" : ", ") + "\"traceEvents\": [" + events + "]}";
}

std::string X(const std::string& name, const std::string& rest) {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, )" + rest + "}";
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

TEST_CASE("hostile: NaN and Infinity literals are stored as strings, times as NULL", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(
      X("a", R"("ts": 1, "dur": 2, "args": {"x": NaN, "y": [1, Infinity, -Infinity], "z": -inf, "n": nan})") + ", " +
          X("b", R"("ts": NaN, "dur": Infinity)") + ", " + R"({"ph": "i", "name": "c", "pid": NaN, "tid": 1, "ts": 5})",
      R"("metadata": {"loss": NaN, "lr": [Infinity]})"));
  CHECK(One(db, "SELECT arg_values FROM events WHERE name = 'a'") == R"(["NaN",[1,"Infinity","-Infinity"],"-inf","nan"])");
  CHECK(One(db, "SELECT value FROM args JOIN events e ON e.id = args.event_id WHERE e.name = 'a' AND key = 'x'") == "NaN");
  CHECK(One(db, "SELECT ts IS NULL AND dur IS NULL FROM events WHERE name = 'b'") == "1");
  CHECK(One(db, "SELECT pid FROM events WHERE name = 'c'") == "NaN");
  CHECK(One(db, "SELECT json_extract(metadata, '$.metadata.loss') FROM traces") == "NaN");
  CHECK(Stat(db, "non_finite_numbers") == 10);
  CHECK(Stat(db, "bad_timestamps") == 2);
  CheckArgsValid(db);
}

TEST_CASE("hostile: inf bandwidth written by older Kineto", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(
      R"J({"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 10, "dur": 3,
          "args": {"device": 0, "stream": 7, "correlation": 12, "bytes": 4, "memory bandwidth (GB/s)": inf}})J"));
  CHECK(One(db, "SELECT value || '/' || value_type FROM args WHERE key = 'memory bandwidth (GB/s)'") == "inf/text");
  CHECK(One(db, "SELECT correlation FROM events") == "12");
  CHECK(Stat(db, "non_finite_numbers") == 1);
  CheckArgsValid(db);
}

TEST_CASE("hostile: numbers written as strings", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(X("a", R"("ts": "1.5", "dur": "2", "args": {"bytes": "1024", "correlation": "7"})") + ", " +
                         R"({"ph": "X", "name": "b", "pid": "25738", "tid": "25738", "ts": 3, "dur": "x"})" + ", " +
                         R"({"ph": "s", "id": "12", "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 1})"));
  CHECK(One(db, "SELECT ts || ',' || dur FROM events WHERE name = 'a'") == "1500,2000");
  CHECK(One(db, "SELECT typeof(pid) || ',' || tid FROM events WHERE name = 'b'") == "integer,25738");
  CHECK(One(db, "SELECT dur FROM events WHERE name = 'b'") == "NULL");
  // String arg values stay strings; only JSON integers are promoted.
  CHECK(One(db, "SELECT value_type FROM args WHERE key = 'bytes'") == "text");
  CHECK(One(db, "SELECT correlation FROM events WHERE name = 'a'") == "NULL");
  CHECK(One(db, "SELECT typeof(flow_id) FROM flows") == "integer");
  CHECK(Stat(db, "numeric_string_ids") == 3);  // pid and tid of b, the flow id
  CHECK(Stat(db, "bad_timestamps") == 1);
  CheckArgsValid(db);
}

TEST_CASE("hostile: 20-digit integers", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(
      X("a", R"("ts": 12345678901234567890, "dur": 1, "args": {"Comms Id": 10159970886766084423, "neg": -99999999999999999999})") +
      ", " + R"({"ph": "X", "name": "b", "pid": 99999999999999999999, "tid": 1, "ts": 1, "dur": 1})" + ", " +
      R"({"ph": "f", "id": 18446744073709551616, "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 1, "bp": "e"})"));
  CHECK(One(db, "SELECT ts FROM events WHERE name = 'a'") == "NULL");
  CHECK(One(db, "SELECT value || '/' || value_type FROM args WHERE key = 'Comms Id'") == "10159970886766084423/text");
  CHECK(One(db, "SELECT value FROM args WHERE key = 'neg'") == "-99999999999999999999");
  CHECK(One(db, "SELECT typeof(pid) || ',' || pid FROM events WHERE name = 'b'") == "text,99999999999999999999");
  CHECK(One(db, "SELECT flow_id FROM flows") == "18446744073709551616");
  CHECK(Stat(db, "big_integers") == 4);
  CHECK(Stat(db, "bad_timestamps") == 1);
  CheckArgsValid(db);
}

TEST_CASE("hostile: negative and huge dur, ts far in the future", "[hostile]") {
  Scratch w;
  // 2^62 ns is about 146 years: times beyond +-(2^62 - 1) ns are NULL; so is a dur whose end is.
  Db db = w.Import(Trace(X("neg", R"("ts": 10, "dur": -5)") + ", " + X("huge_ok", R"("ts": 1, "dur": 4000000000000000)") +
                         ", " + X("huge_end", R"("ts": 1000000000000000, "dur": 4000000000000000)") + ", " +
                         X("far", R"("ts": 9000000000000000, "dur": 1)") + ", " +
                         X("year_2096", R"("ts": 4000000000000000, "dur": 1)") + ", " +
                         X("e300", R"("ts": 1e300, "dur": 1)")));
  CHECK(One(db, "SELECT dur FROM events WHERE name = 'neg'") == "-5000");
  CHECK(One(db, "SELECT dur FROM events WHERE name = 'huge_ok'") == "4000000000000000000");
  CHECK(One(db, "SELECT ts || ',' || coalesce(dur, 'NULL') FROM events WHERE name = 'huge_end'") ==
        "1000000000000000000,NULL");
  CHECK(One(db, "SELECT ts FROM events WHERE name = 'far'") == "NULL");
  CHECK(One(db, "SELECT ts FROM events WHERE name = 'year_2096'") == "4000000000000000000");
  CHECK(One(db, "SELECT ts FROM events WHERE name = 'e300'") == "NULL");
  CHECK(Stat(db, "negative_durations") == 1);
  CHECK(Stat(db, "bad_timestamps") == 3);
  // A huge baseTimeNanoseconds is ignored (counted), so ts + base never overflows.
  Db db2 = w.Import(Trace(X("a", R"("ts": 4000000000000000, "dur": 1)"), R"("baseTimeNanoseconds": 9000000000000000000)"));
  CHECK(One(db2, "SELECT base_time_ns IS NULL FROM traces") == "1");
  CHECK(One(db2, "SELECT ts FROM events") == "4000000000000000000");
  CHECK(Stat(db2, "bad_timestamps") == 1);
  // The largest legal base plus the largest legal end still fits in int64.
  Db db3 = w.Import(Trace(X("a", R"("ts": 4611686018427387.903, "dur": 0)"), R"("baseTimeNanoseconds": 4611686018427387903)"));
  CHECK(One(db3, "SELECT ts FROM events") == "9223372036854775806");
}

TEST_CASE("hostile: a 1 MB name", "[hostile]") {
  Scratch w;
  std::string name(1 << 20, 'n');
  name[12345] = 'X';
  Db db = w.Import(Trace(X(name, R"("ts": 1, "dur": 1)") + ", " + X(name, R"("ts": 2, "dur": 1)")));
  CHECK(One(db, "SELECT length(name) || ',' || instr(name, 'X') FROM events LIMIT 1") == "1048576,12346");
  CHECK(One(db, "SELECT count(DISTINCT name) FROM events") == "1");
  CHECK(One(db, "SELECT count(*) FROM stacks") == "1");
}

TEST_CASE("hostile: invalid UTF-8, raw control characters and lone surrogates are repaired", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(X("ok", R"("ts": 1, "dur": 1)") + ", " + X("bad\xff\xfe", "\"ts\": 2, \"dur\": 1, \"args\": {\"k\xc3\": \"v\x80\"}") +
                             ", " + X("tab\there", R"("ts": 3, "dur": 1)") + ", " + X("sur\\ud800x", R"("ts": 4, "dur": 1)") +
                             ", " + X("pair\\ud83d\\ude00", R"("ts": 5, "dur": 1)"),
                         "\"host\xff\": \"n\xc3\x28\""));
  CHECK(One(db, "SELECT count(*) FROM events") == "5");
  CHECK(One(db, "SELECT name FROM events WHERE ts = 2000") == "bad\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(One(db, "SELECT key FROM arg_keys") == "k\xef\xbf\xbd");
  CHECK(One(db, "SELECT json_extract(arg_values, '$[0]') FROM events WHERE ts = 2000") == "v\xef\xbf\xbd");
  CHECK(One(db, "SELECT name FROM events WHERE ts = 3000") == "tab\there");
  CHECK(One(db, "SELECT name FROM events WHERE ts = 4000") == "sur\xef\xbf\xbdx");
  CHECK(One(db, "SELECT name FROM events WHERE ts = 5000") == "pair\xf0\x9f\x98\x80");
  CHECK(One(db, "SELECT metadata FROM traces") == "{\"host\xef\xbf\xbd\":\"n\xef\xbf\xbd(\"}");
  CHECK(Stat(db, "invalid_strings") == 4);  // three events and the header
  CheckArgsValid(db);
}

TEST_CASE("hostile: NUL escapes are stored as is and counted", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(X("a\\u0000b", R"("ts": 1, "dur": 1, "args": {"s": "x\u0000y"})")));
  CHECK(One(db, "SELECT length(CAST(name AS BLOB)) FROM events") == "3");
  CHECK(One(db, "SELECT hex(name) FROM events") == "610062");
  CHECK(One(db, "SELECT arg_values FROM events") == R"(["x\u0000y"])");
  CHECK(Stat(db, "nul_characters") == 1);
  CheckArgsValid(db);
}

TEST_CASE("hostile: args nested 10 000 levels", "[hostile]") {
  Scratch w;
  std::string deep = std::string(10000, '[') + std::string(10000, ']');
  std::string deep_obj;
  for (int i = 0; i < 10000; ++i) deep_obj += "{\"a\":";
  deep_obj += "1" + std::string(10000, '}');
  Db db = w.Import(Trace(X("deep", R"("ts": 1, "dur": 1, "args": {"ok": [[1]], "deep": )" + deep + ", \"obj\": " + deep_obj + "}") +
                             ", " + X("after", R"("ts": 2, "dur": 1)"),
                         "\"meta\": " + deep));
  CHECK(One(db, "SELECT count(*) FROM events") == "2");
  CHECK(One(db, "SELECT value FROM args WHERE key = 'ok'") == "[[1]]");
  // Deeper than SQLite's JSON functions accept: stored as a JSON string holding the exact text.
  CHECK(One(db, "SELECT value_type FROM args WHERE key = 'deep'") == "text");
  CHECK(One(db, "SELECT value = '" + deep + "' FROM args WHERE key = 'deep'") == "1");
  CHECK(One(db, "SELECT length(value) FROM args WHERE key = 'obj'") == std::to_string(deep_obj.size()));
  CHECK(One(db, "SELECT json_extract(metadata, '$.meta') = '" + deep + "' FROM traces") == "1");
  CHECK(Stat(db, "too_deep_values") == 3);
  CheckArgsValid(db);
}

TEST_CASE("hostile: an element-count claim allocates nothing; a gzip bomb is skipped with bounded memory", "[hostile]") {
  Scratch w;
  // Values that claim huge sizes are just numbers.
  Db db = w.Import(Trace(X("claim", R"("ts": 1, "dur": 1, "args": {"Input Dims": [[1000000000, 1000000000]], "numel": 1e18})")));
  CHECK(One(db, "SELECT value FROM args WHERE key = 'Input Dims'") == "[[1000000000,1000000000]]");
  // A tiny gzip file (concatenated members) holding one event with a 2^27-element array
  // (256 MiB of JSON): over kMaxItemBytes, so it is skipped as it streams by.
  std::string zeros;
  for (int i = 0; i < (1 << 20); ++i) zeros += "0,";
  std::string zmember = Gzip(zeros);
  std::string bomb = Gzip(R"({"traceEvents": [{"ph": "X", "name": "bomb", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"a": [)");
  for (int i = 0; i < 128; ++i) bomb += zmember;
  bomb += Gzip("0]}}, " + X("after", R"("ts": 2, "dur": 1)") + "]}");
  CHECK(bomb.size() < 400000);
  std::string path = w.Write("bomb.json.gz", bomb);
  std::string out = w.dir() + "/bomb.db";
  // `tracesql import` in a child process, so its peak memory can be measured.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    execl(TQ_TRACESQL_BIN, TQ_TRACESQL_BIN, "import", "-q", path.c_str(), "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  REQUIRE(wait4(child, &status, 0, &ru) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  INFO("peak RSS of the import: " << ru.ru_maxrss / 1024 << " MB");
  CHECK(ru.ru_maxrss < kMaxBombRssKb);
  Db b = Db::Open(out, false, true);
  CHECK(One(b, "SELECT group_concat(name) FROM events") == "after");
  CHECK(Stat(b, "oversized_items") == 1);
  CHECK(One(b, "SELECT json_bytes > 268435456 FROM traces") == "1");
}

TEST_CASE("hostile: duplicate keys: the last value wins", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(R"({"ph": "i", "ph": "X", "name": "first", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
                            "args": {"k": 1, "correlation": 5, "k": "two", "correlation": 6, "x": 0}})"
                         ", " R"({"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 7, "correlation": "s"}})",
                         R"("rank": 1, "distributedInfo": {"rank": 3}, "distributedInfo": {"rank": 4, "world_size": 8})"));
  CHECK(One(db, "SELECT ph || name FROM events WHERE correlation = 6") == "Xa");
  // correlation's value is in its column, not repeated in arg_values (arg_keys.path NULL)
  CHECK(One(db, "SELECT arg_values FROM events WHERE name = 'a'") == R"(["two",0])");
  CHECK(One(db, "SELECT group_concat(key || '=' || value || ':' || value_type) FROM args JOIN events e"
                " ON e.id = args.event_id WHERE e.name = 'a'") == "k=two:text,correlation=6:integer,x=0:integer");
  CHECK(One(db, "SELECT args FROM event_args JOIN events e ON e.id = event_id WHERE e.name = 'a'") ==
        R"({"k":"two","correlation":6,"x":0})");
  CHECK(One(db, "SELECT group_concat(key) FROM (SELECT key FROM arg_keys k JOIN events e ON e.arg_shape_id = k.shape_id"
                " WHERE e.name = 'a' ORDER BY idx)") == "k,correlation,x");
  CHECK(One(db, "SELECT coalesce(correlation, 'NULL') FROM events WHERE name = 'b'") == "NULL");
  CHECK(One(db, "SELECT rank || '/' || world_size FROM traces") == "4/8");
  CHECK(One(db, "SELECT json_extract(metadata, '$.distributedInfo.rank') FROM traces") == "4");
  CHECK(Stat(db, "duplicate_keys") == 6);  // ph, name, k, correlation, correlation (b), distributedInfo
  CheckArgsValid(db);
}

TEST_CASE("hostile: traceEvents that is not an array is a clean error", "[hostile]") {
  Scratch w;
  CHECK_THAT(w.ImportError(R"({"traceEvents": {"ph": "X"}})"), Catch::Contains("bad.json: byte 16: traceEvents is not an array"));
  CHECK_THAT(w.ImportError(R"({"traceEvents": null})"), Catch::Contains("traceEvents is not an array"));
  CHECK_THAT(w.ImportError(R"({"traceEvents": "[]"})"), Catch::Contains("traceEvents is not an array"));
}

TEST_CASE("hostile: events that are not objects are skipped and counted", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(std::string("1, \"x\", null, [1, {\"ph\": \"X\"}], ") + X("a", R"("ts": 1, "dur": 1)") +
                         ", true, -2.5e3, NaN, " + X("b", R"("ts": 2, "dur": 1)") + ", {}"));
  CHECK(One(db, "SELECT group_concat(name) FROM events WHERE name IS NOT NULL AND name <> ''") == "a,b");
  CHECK(Stat(db, "non_object_events") == 7);
  // Only non-objects: nothing to import.
  CHECK_THAT(w.ImportError(R"({"traceEvents": [1, 2, 3]})"), Catch::Contains("no trace events"));
  // Not JSON at all is still a syntax error, with its byte offset.
  CHECK_THAT(w.ImportError(R"({"traceEvents": [{"ph": "X"}, X]})"), Catch::Contains("byte 30: malformed trace event: expected '{'"));
}

TEST_CASE("hostile: fields of the wrong JSON type", "[hostile]") {
  Scratch w;
  Db db = w.Import(Trace(R"({"ph": 1, "name": 42, "cat": {"a": [1]}, "pid": [1], "tid": true, "ts": {}, "dur": [], "bp": 5, "id": null})"));
  CHECK(One(db, "SELECT ph || '|' || name || '|' || cat || '|' || pid || '|' || tid FROM events") == R"(1|42|{"a":[1]}|[1]|true)");
  CHECK(One(db, "SELECT ts IS NULL AND dur IS NULL FROM events") == "1");
  CHECK(Stat(db, "wrong_types") == 5);  // ph, name, cat, pid, bp
  CHECK(Stat(db, "unknown_phases") == 1);
  CHECK(Stat(db, "bad_timestamps") == 2);
}

TEST_CASE("hostile: invalid JSON inside an event is an error naming the event", "[hostile]") {
  Scratch w;
  std::string good = X("a", R"("ts": 1, "dur": 1)");
  std::string bad = X("b", R"("ts": 2, "dur": 1, "args": {"Input Dims": [[1, 2], [3 4]]})");
  std::string msg = w.ImportError(Trace(good + ", " + bad));
  CHECK_THAT(msg, Catch::Contains("bad.json: byte " + std::to_string(Trace(good + ", " + bad).find(bad)) + ": malformed trace event"));
  CHECK_THAT(w.ImportError(Trace(X("c", R"("ts": 1, "dur": 1, "args": {"v": tru})"))), Catch::Contains("invalid JSON value 'tru'"));
  CHECK_THAT(w.ImportError(Trace(X("c", R"("ts": 1.2.3, "dur": 1)"))), Catch::Contains("invalid JSON value '1.2.3'"));
  CHECK_THAT(w.ImportError(Trace(X("c\\x", R"("ts": 1, "dur": 1)"))), Catch::Contains("malformed trace event"));
}
