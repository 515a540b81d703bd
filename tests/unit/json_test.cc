#include <catch2/catch.hpp>

#include "import/builder.h"

using namespace tracesql;

TEST_CASE("AppendJsonString escapes", "[json]") {
  std::string out;
  AppendJsonString(out, "a\"b\\c\nd\x01");
  CHECK(out == "\"a\\\"b\\\\c\\nd\\u0001\"");
}
