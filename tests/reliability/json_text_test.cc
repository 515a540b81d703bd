// Unit tests of the JSON text helpers behind the importer's defined behaviour for hostile input
// (issue 6): scalar classification, the validating minifier, string repair, and the splitter's
// streaming of items larger than a read chunk.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "import/input.h"
#include "import/splitter.h"
#include "tracesql/error.h"

using namespace tracesql;

TEST_CASE("json_text: ClassifyScalar follows the JSON number grammar", "[json_text]") {
  CHECK(ClassifyScalar("0") == ScalarKind::kInteger);
  CHECK(ClassifyScalar("-12") == ScalarKind::kInteger);
  CHECK(ClassifyScalar("10159970886766084423") == ScalarKind::kInteger);
  CHECK(ClassifyScalar("1.5") == ScalarKind::kNumber);
  CHECK(ClassifyScalar("-0.0e+3") == ScalarKind::kNumber);
  CHECK(ClassifyScalar("1E-7") == ScalarKind::kNumber);
  CHECK(ClassifyScalar("true") == ScalarKind::kLiteral);
  CHECK(ClassifyScalar("null") == ScalarKind::kLiteral);
  for (const char* nf : {"NaN", "nan", "-nan", "Infinity", "-Infinity", "inf", "-inf", "+inf", "INF"}) {
    CHECK(ClassifyScalar(nf) == ScalarKind::kNonFinite);
  }
  for (const char* bad : {"", "-", "01", "1.", ".5", "1.2.3", "1e", "tru", "nul", "True", "0x10", "1_000", "--1", "+1",
                          "infinite", "NaNa"}) {
    INFO(bad);
    CHECK(ClassifyScalar(bad) == ScalarKind::kInvalid);
  }
}

TEST_CASE("json_text: MinifyJsonValue validates, minifies and quotes non-finite literals", "[json_text]") {
  auto minify = [](std::string_view in, int64_t* nf = nullptr, size_t* depth = nullptr) {
    std::string out;
    if (!MinifyJsonValue(out, in, nf, depth)) return std::string("<invalid>");
    return out;
  };
  CHECK(minify(R"( [ [1, 2], {"a b" : "x y", "c": [ ]} ] )") == R"([[1,2],{"a b":"x y","c":[]}])");
  CHECK(minify(R"("\u00e9\"\\\/\b\f\n\r\t")") == R"("\u00e9\"\\\/\b\f\n\r\t")");
  int64_t nf = 0;
  CHECK(minify("[1, NaN, -Infinity, inf]", &nf) == R"([1,"NaN","-Infinity","inf"])");
  CHECK(nf == 3);
  size_t depth = 0;
  CHECK(minify("[[[{\"a\": [1]}]]]", nullptr, &depth) == "[[[{\"a\":[1]}]]]");
  CHECK(depth == 5);
  // Not JSON: every one of these must be refused (never stored as is).
  for (const char* bad : {"[1 2]", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "[tru]", "[1.2.3]",
                          "[\"\\x\"]", "[\"\\u12\"]", "[\"abc]", "[1]]", "[[1]", "{\"a\":1]", "1 2", "", "[", "\"a\nb\"",
                          "[C\"-1\"]", "{\"a\":1}{}", ":", "[1:2]"}) {
    INFO(bad);
    CHECK(minify(bad) == "<invalid>");
  }
  // Depth is bounded only by memory (no recursion).
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  depth = 0;
  CHECK(minify(deep, nullptr, &depth) == deep);
  CHECK(depth == 100000);
}

TEST_CASE("json_text: RepairJsonStrings fixes strings only", "[json_text]") {
  std::string s = "{\"a\xff\": \"x\xc3\x28y\", \"b\": \"t\tab\", \"c\": \"\\ud800 \\udc00 \\ud83d\\ude00\", \"d\": 1}";
  CHECK(RepairJsonStrings(s));
  CHECK(s == "{\"a\xef\xbf\xbd\": \"x\xef\xbf\xbd(y\", \"b\": \"t\\u0009ab\", \"c\": \"\\ufffd \\ufffd \\ud83d\\ude00\", \"d\": 1}");
  std::string ok = "{\"\xc3\xa9\": \"\xf0\x9f\x98\x80\", \"e\": \"\\u0000\"}";
  std::string copy = ok;
  CHECK_FALSE(RepairJsonStrings(copy));
  CHECK(copy == ok);
  // Overlong encodings and encoded surrogates are invalid UTF-8.
  std::string overlong = "\"\xc0\xaf \xe0\x80\xaf \xed\xa0\x80\"";
  CHECK(RepairJsonStrings(overlong));
  CHECK(overlong.find('\xc0') == std::string::npos);
  CHECK(overlong.find('\xed') == std::string::npos);
}

namespace {

std::string WriteTemp(const std::string& content) {
  char name[] = "/tmp/tq_json_text_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  FILE* f = fdopen(fd, "wb");
  REQUIRE(std::fwrite(content.data(), 1, content.size(), f) == content.size());
  std::fclose(f);
  return name;
}

SplitResult SplitFile(const std::string& content, int64_t* batches_bytes = nullptr) {
  std::string path = WriteTemp(content);
  InputStream in(path);
  int64_t bytes = 0;
  auto r = Splitter::Run(in, [&](Batch&& b) { bytes += static_cast<int64_t>(b.text.size()); }, [](int64_t) {});
  std::remove(path.c_str());
  if (batches_bytes) *batches_bytes = bytes;
  return r;
}

}  // namespace

TEST_CASE("json_text: items over kMaxItemBytes are skipped as they stream by", "[json_text]") {
  // One event of 65 MiB (a huge args array), then a normal one; a huge top-level value too.
  std::string huge;
  huge.reserve(Splitter::kMaxItemBytes + (2 << 20));
  huge += R"({"ph":"X","name":"big","args":{"a":[)";
  while (huge.size() < Splitter::kMaxItemBytes + (1 << 20)) huge += "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,";
  huge += "0]}}";
  std::string text = "{\"traceEvents\": [" + huge + ", {\"ph\":\"i\",\"name\":\"after\"}], \"big\": \"" +
                     std::string(Splitter::kMaxItemBytes + 10, 'x') + "\", \"small\": 1}";
  int64_t bytes = 0;
  auto r = SplitFile(text, &bytes);
  CHECK(r.events == 1);
  CHECK(r.oversized_items == 2);
  REQUIRE(r.header.size() == 1);
  CHECK(r.header[0].first == "small");
  CHECK(bytes < 1000);  // the skipped event never reached a batch
  CHECK_FALSE(r.truncated);
}

TEST_CASE("json_text: an event split over many reads is scanned once, escapes included", "[json_text]") {
  // A 20 MiB name made of escaped quotes and backslashes: every read boundary falls somewhere in it.
  std::string name;
  while (name.size() < (20 << 20)) name += R"(a\"b\\c\\\"d)";
  std::string text = R"({"traceEvents": [{"ph":"X","name":")" + name + R"("}, {"ph":"i"}]})";
  auto r = SplitFile(text);
  CHECK(r.events == 2);
  CHECK_FALSE(r.truncated);
  // Cut inside the long name: truncated at the start of that event.
  auto t = SplitFile(text.substr(0, text.size() / 2));
  CHECK(t.truncated);
  CHECK(t.events == 0);
  CHECK(t.truncated_at == static_cast<int64_t>(text.find("{\"ph\":\"X\"")));
}
