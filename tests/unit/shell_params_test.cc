// Named parameters: -p key=value, .param set, .run NAME k=v (issue 4).
#include <catch2/catch.hpp>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/params.h"

using namespace tracesql;

TEST_CASE("params: values bind as integer, real or text", "[params]") {
  CHECK(ClassifyParamValue("20") == ParamKind::kInteger);
  CHECK(ClassifyParamValue("-7") == ParamKind::kInteger);
  CHECK(ClassifyParamValue("+7") == ParamKind::kInteger);
  CHECK(ClassifyParamValue("9223372036854775807") == ParamKind::kInteger);
  CHECK(ClassifyParamValue("9223372036854775808") == ParamKind::kReal);  // as SQLite reads the literal
  CHECK(ClassifyParamValue("0.5") == ParamKind::kReal);
  CHECK(ClassifyParamValue(".5") == ParamKind::kReal);
  CHECK(ClassifyParamValue("1e3") == ParamKind::kReal);
  CHECK(ClassifyParamValue("1e") == ParamKind::kText);
  CHECK(ClassifyParamValue("0x10") == ParamKind::kText);
  CHECK(ClassifyParamValue("inf") == ParamKind::kText);
  CHECK(ClassifyParamValue("") == ParamKind::kText);
  CHECK(ClassifyParamValue("aten::mm") == ParamKind::kText);
  CHECK(ClassifyParamValue("'42'") == ParamKind::kText);
}

TEST_CASE("params: key=value parsing and its errors", "[params]") {
  CHECK(ParseParamAssignment("limit=10") == std::make_pair(std::string("limit"), std::string("10")));
  CHECK(ParseParamAssignment(":name=a=b") == std::make_pair(std::string("name"), std::string("a=b")));
  CHECK(ParseParamAssignment("x=") == std::make_pair(std::string("x"), std::string("")));
  CHECK_THROWS_WITH(ParseParamAssignment("limit"), "bad parameter 'limit': expected key=value");
  CHECK_THROWS_WITH(ParseParamAssignment("=5"), Catch::Contains("the name must be"));
  CHECK_THROWS_WITH(ParseParamAssignment("2x=5"), Catch::Contains("the name must be"));
  CHECK_THROWS_WITH(ParseParamAssignment("a-b=5"), Catch::Contains("the name must be"));
}

TEST_CASE("params: binding by name; missing ones stay NULL", "[params]") {
  Db db = Db::Open(":memory:", true);
  Stmt s = db.Prepare("SELECT typeof(:a), typeof(@b), typeof($c), :d, typeof(:missing), ?");
  CHECK(BindParams(s.get(), Params{{"a", "1"}, {"b", "1.5"}, {"c", "x"}, {"d", "'7'"}}) ==
        std::vector<std::string>{"$c = 'x'"});  // bound as text without quotes: named in errors
  REQUIRE(s.Step());
  CHECK(s.ColumnText(0) == "integer");
  CHECK(s.ColumnText(1) == "real");
  CHECK(s.ColumnText(2) == "text");
  CHECK(s.ColumnText(3) == "7");
  CHECK(s.ColumnText(4) == "null");
  CHECK(s.ColumnIsNull(5));
}

TEST_CASE("params: the names a SQL text uses", "[params]") {
  CHECK(ReferencedParams("SELECT ':x', \":y\", :z -- :c\n/* :d */ FROM t WHERE a = @w OR b = $v LIMIT :z") ==
        std::set<std::string>{"z", "w", "v"});
  CHECK(ReferencedParams("SELECT 1").empty());
  CHECK_THROWS_WITH(CheckParamsKnown(Params{{"limt", "1"}}, {"limit", "name"}, "q"),
                    "q has no parameter :limt (it takes :limit, :name)");
  CHECK_THROWS_WITH(CheckParamsKnown(Params{{"x", "1"}}, {}, "q"), "q has no parameter :x (it takes none)");
  CHECK_NOTHROW(CheckParamsKnown(Params{{"limit", "1"}}, {"limit"}, "q"));
}
