#include <catch2/catch.hpp>

#include "import/splitter.h"

using namespace tracesql;

TEST_CASE("AppendJsonString escapes", "[json]") {
  std::string out;
  AppendJsonString(out, "a\"b\\c\nd\x01");
  CHECK(out == "\"a\\\"b\\\\c\\nd\\u0001\"");
}

// MinifyJsonValue: whitespace out, every scalar checked (plain integers take a fast path that must
// agree with the JSON grammar), non-finite literals become strings.
TEST_CASE("MinifyJsonValue: minified, validated scalars", "[json]") {
  auto minify = [](std::string_view in) -> std::string {
    std::string out;
    int64_t non_finite = 0;
    if (!MinifyJsonValue(out, in, &non_finite)) return "<invalid>";
    return out;
  };
  CHECK(minify("[[128, 64], [ -3 ,0], []]") == "[[128,64],[-3,0],[]]");
  CHECK(minify(" [ 1 ] ") == "[1]");
  CHECK(minify("[-0, 0, 10]") == "[-0,0,10]");
  CHECK(minify("[1.5, -2e3, 0.25E+1]") == "[1.5,-2e3,0.25E+1]");
  CHECK(minify("{\"a\": [1, \"x y\"], \"b\": null}") == "{\"a\":[1,\"x y\"],\"b\":null}");
  CHECK(minify("[NaN, -Infinity]") == "[\"NaN\",\"-Infinity\"]");
  CHECK(minify("123") == "123");
  for (const char* bad : {"[01]", "[00]", "[-]", "[-01]", "[1 2]", "[12:3]", "[123abc]", "[1,]", "[+1]", "[1.]",
                          "[.5]", "{1: 2}", "[1}", "[tru]", "12 3"}) {
    INFO(bad);
    CHECK(minify(bad) == "<invalid>");
  }
}
