// --format trace: a result with ts and dur columns as Chrome-trace JSON (issue 25).
#include <catch2/catch.hpp>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/render.h"

using namespace tracesql;

namespace {
std::string RenderTrace(const char* sql) {
  Db db = Db::Open(":memory:", true);
  Stmt s = db.Prepare(sql);
  RenderOptions o;
  o.mode = OutputMode::kTrace;
  std::string out;
  RenderStatement(s.get(), o, out);
  return out;
}
}  // namespace

TEST_CASE("render trace: ns become µs with three decimals, exactly", "[render][trace]") {
  // 1716423322416788066 ns cannot go through a double (2^53 < 1.7e18): the text must be exact.
  std::string out = RenderTrace(
      "SELECT 1716423322416788066 AS ts, 1500 AS dur, 'k1' AS name, 'kernel' AS cat, 7 AS track, "
      "'{\"grid\": [1, 2]}' AS args, 3 AS queue "
      "UNION ALL SELECT -500, 0, NULL, NULL, 'host', NULL, NULL "
      "UNION ALL SELECT 2000, NULL, 'mark', NULL, NULL, NULL, 1.5");
  CHECK(out ==
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"name\": \"k1\", \"cat\": \"kernel\", \"pid\": \"tracesql\", \"tid\": 7, "
        "\"ts\": 1716423322416788.066, \"dur\": 1.500, \"args\": {\"grid\":[1,2], \"queue\": 3}},\n"
        "{\"ph\": \"X\", \"name\": \"row 2\", \"pid\": \"tracesql\", \"tid\": \"host\", \"ts\": -0.500, "
        "\"dur\": 0.000, \"args\": {\"queue\": null}},\n"
        "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"mark\", \"pid\": \"tracesql\", \"tid\": \"result\", "
        "\"ts\": 2.000, \"args\": {\"queue\": 1.5}}\n"
        "]}\n");
  CHECK(RenderTrace("SELECT 1 AS ts, 2 AS dur WHERE 0") == "{\"traceEvents\": []}\n");
}

TEST_CASE("render trace: a missing or bad column is a clear error", "[render][trace]") {
  CHECK_THROWS_WITH(RenderTrace("SELECT 1 AS ts, 'x' AS name"),
                    "--format trace needs a dur column (integer ns); the result has: ts, name");
  CHECK_THROWS_WITH(RenderTrace("SELECT 1 AS start, 2 AS dur"),
                    "--format trace needs a ts column (integer ns); the result has: start, dur");
  CHECK_THROWS_WITH(RenderTrace("SELECT 1.5 AS ts, 2 AS dur"),
                    "--format trace: row 1: ts is '1.5', not integer nanoseconds");
  CHECK_THROWS_WITH(RenderTrace("SELECT 1 AS ts, -2 AS dur"), "--format trace: row 1: dur is negative (-2)");
  CHECK_THROWS_WITH(RenderTrace("SELECT 1 AS ts, 2 AS dur, '[1]' AS args"),
                    "--format trace: row 1: args is not a JSON object");
}
