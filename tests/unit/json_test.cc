#include <catch2/catch.hpp>

#include "import/builder.h"

using namespace tracesql;

TEST_CASE("AppendMinified removes whitespace outside strings only", "[json]") {
  std::string out;
  AppendMinified(out, "{ \"a b\" : [ 1, 2 ],\n  \"c\\\" d\": \"x  y\" }");
  CHECK(out == "{\"a b\":[1,2],\"c\\\" d\":\"x  y\"}");
}

TEST_CASE("AppendJsonString escapes", "[json]") {
  std::string out;
  AppendJsonString(out, "a\"b\\c\nd\x01");
  CHECK(out == "\"a\\\"b\\\\c\\nd\\u0001\"");
}
