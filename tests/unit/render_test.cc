#include <catch2/catch.hpp>

#include "tracesql/db.h"
#include "tracesql/render.h"

using namespace tracesql;

namespace {
std::string Render(const char* sql, OutputMode mode) {
  Db db = Db::Open(":memory:", true);
  Stmt s = db.Prepare(sql);
  RenderOptions o;
  o.mode = mode;
  std::string out;
  RenderStatement(s.get(), o, out);
  return out;
}
}  // namespace

TEST_CASE("render: csv quoting, NULL and reals", "[render]") {
  CHECK(Render("SELECT 1 AS a, 'x,y' AS b, NULL AS c, 0.5 AS d, 'q\"' AS e", OutputMode::kCsv) ==
        "a,b,c,d,e\n1,\"x,y\",,0.5,\"q\"\"\"\n");
  CHECK(FormatDouble(31.030304) == "31.030304");
  CHECK(FormatDouble(1e-05) == "1e-05");
}

TEST_CASE("render: json and jsonl", "[render]") {
  CHECK(Render("SELECT 1 AS a, 'x' AS b, NULL AS c", OutputMode::kJsonl) == "{\"a\":1,\"b\":\"x\",\"c\":null}\n");
  CHECK(Render("SELECT 1 AS a UNION ALL SELECT 2", OutputMode::kJson) == "[\n{\"a\":1},\n{\"a\":2}\n]\n");
}

TEST_CASE("render: box aligns numbers right", "[render]") {
  std::string out = Render("SELECT 'ab' AS name, 5 AS n", OutputMode::kBox);
  CHECK(out == "┌──────┬───┐\n│ name │ n │\n├──────┼───┤\n│ ab   │ 5 │\n└──────┴───┘\n");
}

TEST_CASE("render: folded joins a row's values with spaces, without header or quoting", "[render]") {
  CHECK(Render("SELECT 'main;a,b \"c\"' AS stack, 42 AS value UNION ALL SELECT 'x' || char(10) || 'y', 7",
               OutputMode::kFolded) == "main;a,b \"c\" 42\nx y 7\n");
  CHECK(Render("SELECT 1 AS a WHERE 0", OutputMode::kFolded).empty());
  CHECK(ParseOutputMode("folded") == OutputMode::kFolded);
}
