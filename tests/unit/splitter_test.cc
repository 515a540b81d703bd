#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "import/input.h"
#include "import/splitter.h"
#include "temp_dir.h"
#include "tracesql/error.h"
#include "tracesql/timestamp.h"

using namespace tracesql;

TEST_CASE("ScanValue: strings, escapes and nesting", "[splitter]") {
  std::string s = R"({"a": "x}\"{", "b": [1, {"c": "\\"}]} tail)";
  size_t end = ScanValue(s.data(), 0, s.size());
  REQUIRE(end != kNeedMore);
  CHECK(s.substr(end) == " tail");
  std::string str = R"("a\\\"b" rest)";
  CHECK(ScanString(str.data(), 0, str.size()) == 8);
  std::string esc = R"("ends with backslash\\" x)";
  CHECK(esc.substr(ScanString(esc.data(), 0, esc.size())) == " x");
  std::string partial = R"({"a": [1, 2)";
  CHECK(ScanValue(partial.data(), 0, partial.size()) == kNeedMore);
  std::string scalar = "123,";
  CHECK(ScanValue(scalar.data(), 0, scalar.size()) == 3);
  std::string open_scalar = "123";
  CHECK(ScanValue(open_scalar.data(), 0, open_scalar.size()) == kNeedMore);
}

// The 64-byte block scanner (bit masks, escapes by backslash-run parity, strings by prefix XOR)
// must find exactly the end the byte-at-a-time scanner finds: random containers dense in quotes,
// backslash runs and brackets inside and outside strings, cut at every length around the 64-byte
// blocks, so escapes, strings and depth carry across block edges and into the tail.
TEST_CASE("ScanValue: the block scanner agrees with the scalar one", "[splitter]") {
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  // A random JSON-ish value: objects, arrays, strings with runs of backslashes before quotes and
  // brackets, and filler; not always valid JSON (the scanners only delimit).
  std::function<void(std::string&, int)> value = [&](std::string& out, int depth) {
    uint64_t r = next() % 10;
    if (depth < 6 && r < 4) {
      bool obj = r < 2;
      out.push_back(obj ? '{' : '[');
      int n = static_cast<int>(next() % 5);
      for (int k = 0; k < n; ++k) {
        if (k) out += ", ";
        if (obj) out += "\"k\": ";
        value(out, depth + 1);
      }
      out.push_back(obj ? '}' : ']');
    } else if (r < 8) {
      out.push_back('"');
      int n = static_cast<int>(next() % 40);
      for (int k = 0; k < n; ++k) {
        uint64_t c = next() % 12;
        if (c == 0) {
          out.append(static_cast<size_t>(1 + next() % 4) * 2, '\\');  // an even run: escapes nothing
        } else if (c == 1) {
          out += "\\\"";
        } else if (c == 2) {
          out.append(static_cast<size_t>(1 + next() % 3) * 2 + 1, '\\');
          out.push_back("\"{}[]n"[next() % 6]);
        } else if (c < 5) {
          out.push_back("{}[]"[next() % 4]);
        } else {
          out.push_back(static_cast<char>('a' + next() % 26));
        }
      }
      out.push_back('"');
    } else {
      out += std::to_string(next() % 100000);
    }
  };
  int compared = 0, complete = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string v = next() % 2 ? "{\"a\": " : "[";
    int n = static_cast<int>(1 + next() % 6);
    for (int k = 0; k < n; ++k) {
      if (k) v += ", ";
      value(v, 1);
    }
    v += v[0] == '{' ? "}" : "]";
    std::string text = std::string(next() % 70, ' ') + v + ", {\"next\": 1}";
    size_t start = text.find_first_not_of(' ');
    size_t want = ScanValueScalar(text.data(), start, text.size());
    REQUIRE(want == start + v.size());
    for (size_t cut = start + 1; cut <= text.size(); cut += 1 + next() % 9) {
      size_t got = ScanValue(text.data(), start, cut), ref = ScanValueScalar(text.data(), start, cut);
      if (got != ref) FAIL("cut " << cut << " of: " << text << " block " << got << " scalar " << ref);
      ++compared;
      complete += got != kNeedMore;
    }
  }
  CHECK(compared > 50000);
  CHECK(complete > 3000);
}

namespace {
SplitResult Split(const std::string& content, std::vector<std::string>* events = nullptr) {
  tracesql::testing::TempDir dir("tq_splitter");  // removed however Run ends, a throw included
  dir.Write("trace.json", content);
  InputStream in(dir / "trace.json");
  auto r = Splitter::Run(
      in,
      [&](Batch&& b) {
        if (events) {
          for (size_t i = 0; i < b.event_offsets.size(); ++i) {
            size_t start = b.event_offsets[i];
            size_t end = ScanValue(b.text.data(), start, b.text.size());
            events->push_back(b.text.substr(start, end - start));
          }
        }
        CHECK(b.text.front() == '[');
        CHECK(b.text.back() == ']');
      },
      [](int64_t) {});
  return r;
}
}  // namespace

TEST_CASE("Splitter: header keys before and after traceEvents", "[splitter]") {
  std::vector<std::string> evs;
  auto r = Split(R"({"schemaVersion": 1, "traceEvents": [{"ph":"X","name":"a]"} , {"ph":"i"}], "baseTimeNanoseconds": 1751410836000000000})", &evs);
  CHECK(r.root_shape == "object");
  CHECK(r.events == 2);
  REQUIRE(evs.size() == 2);
  CHECK(evs[0] == R"({"ph":"X","name":"a]"})");
  REQUIRE(r.header.size() == 2);
  CHECK(r.header[0].first == "schemaVersion");
  CHECK(r.header[1].first == "baseTimeNanoseconds");
  CHECK(r.header[1].second == "1751410836000000000");
  CHECK_FALSE(r.truncated);
}

TEST_CASE("Splitter: bare array root", "[splitter]") {
  auto r = Split("  [ {\"ph\":\"X\"},\n{\"ph\":\"X\"} ]\n");
  CHECK(r.root_shape == "array");
  CHECK(r.events == 2);
}

TEST_CASE("Splitter: truncated file keeps complete events", "[splitter]") {
  std::string text = R"({"traceEvents": [{"ph":"X"}, {"ph":"X"}, {"ph":"X", "na)";
  auto r = Split(text);
  CHECK(r.truncated);
  CHECK(r.events == 2);
  CHECK(r.truncated_at == static_cast<int64_t>(text.find("{\"ph\":\"X\", \"na")));
}

TEST_CASE("Splitter: malformed input names the byte offset", "[splitter]") {
  CHECK_THROWS_WITH(Split("hello"), Catch::Contains("byte 0") && Catch::Contains("not a JSON trace"));
  CHECK_THROWS_WITH(Split(""), Catch::Contains("empty file"));
  CHECK_THROWS_WITH(Split(R"({"traceEvents": [1, x]})"), Catch::Contains("byte 20") && Catch::Contains("expected '{'"));
  CHECK_THROWS_WITH(Split(R"({"traceEvents": []} x)"), Catch::Contains("unexpected data"));
  CHECK_THROWS_WITH(Split(R"({"traceEvents": {}})"), Catch::Contains("not an array"));
}

TEST_CASE("Splitter: elements that are not objects are skipped and counted", "[splitter]") {
  std::vector<std::string> evs;
  auto r = Split(R"({"traceEvents": [1, {"ph":"X"}, "s", [1, {"a": 2}], null, {"ph":"i"}, -1.5e3, NaN]})", &evs);
  CHECK(r.events == 2);
  CHECK(r.non_object_events == 6);
  REQUIRE(evs.size() == 2);
  CHECK(evs[1] == R"({"ph":"i"})");
}

TEST_CASE("Splitter: events larger than one read chunk", "[splitter]") {
  std::string big(Splitter::kChunk + 1000, 'x');
  std::string text = "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"" + big + "\"},{\"ph\":\"i\"}]}";
  std::vector<std::string> evs;
  auto r = Split(text, &evs);
  CHECK(r.events == 2);
  REQUIRE(evs.size() == 2);
  CHECK(evs[0].size() == big.size() + 20);
  CHECK(evs[1] == R"({"ph":"i"})");
}

// The one-pass readers against the general way (ClassifyScalar + ParseInt64 / MicrosToNanos): on
// every token they accept they must agree, and they must refuse what is not valid JSON.
TEST_CASE("ShortJsonInt / ShortMicros agree with the general parsers", "[splitter]") {
  std::vector<std::string> toks = {"0", "-0", "7", "-7", "00", "01", "-01", "1.", ".5", "-", "", "1e3", "1E3",
                                   "12.34", "5.1", "0.001", "-0.5", "1.2345", "123456789012345678",
                                   "1234567890123456789", "999999999999999999", "-999999999999999999",
                                   "123456789012345.678", "1234567890123456.789", "1712195495519689.047",
                                   "1.000", "1.0000", "+1", "1a", "NaN", "true", "9223372036854775807"};
  std::mt19937_64 rng(11);
  const char alphabet[] = "0123456789.-e";
  for (int i = 0; i < 200000; ++i) {
    std::string t(1 + rng() % 22, '0');
    for (char& c : t) c = rng() % 8 ? static_cast<char>('0' + rng() % 10) : alphabet[rng() % 13];
    toks.push_back(t);
  }
  size_t ints = 0, micros = 0;
  for (const std::string& t : toks) {
    INFO(t);
    const ScalarKind kind = ClassifyScalar(t);
    int64_t v = 0;
    if (ShortJsonInt(t, v)) {
      ++ints;
      REQUIRE(kind == ScalarKind::kInteger);
      REQUIRE(ParseInt64(t) == std::optional<int64_t>(v));
    }
    if (ShortMicros(t, v)) {
      ++micros;
      REQUIRE((kind == ScalarKind::kInteger || kind == ScalarKind::kNumber));
      REQUIRE(MicrosToNanos(t) == std::optional<int64_t>(v));
    }
  }
  CHECK(ints > 1000);  // both ways were compared often
  CHECK(micros > 1000);
  int64_t v = 0;
  CHECK(ShortMicros("5.1", v));
  CHECK(v == 5100);
  CHECK(ShortMicros("-0.001", v));
  CHECK(v == -1);
  CHECK(!ShortMicros("1.2345", v));  // a fourth decimal: the general way rounds it
  CHECK(!ShortJsonInt("1234567890123456789", v));  // 19 digits: the general way checks the range
}
