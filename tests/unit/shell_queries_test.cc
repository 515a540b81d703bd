// Saved queries: header parsing, bundled queries, user directories and shadowing (issue 4).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tracesql/error.h"
#include "tracesql/queries.h"
#include "tracesql/render.h"
#include "tracesql/sql_bundle.h"
#include "temp_dir.h"

using namespace tracesql;
namespace fs = std::filesystem;

using tracesql::testing::TempDir;

TEST_CASE("queries: header lines give description and parameters", "[queries]") {
  QueryFile q;
  ParseQueryHeader(
      "-- name: top\n"
      "-- description: Kernels with the largest total time.\n"
      "-- param :limit 20 \xE2\x80\x94 number of rows\n"
      "-- param :name 'a b' - a quoted default\n"
      "-- param :trace_id \xE2\x80\x94 no default\n"
      "-- format: folded\n"
      "-- a free comment line\n"
      "\n"
      "SELECT 1;\n"
      "-- param :late 1 \xE2\x80\x94 after the SQL: not a header line\n",
      &q);
  CHECK(q.description == "Kernels with the largest total time.");
  REQUIRE(q.params.size() == 3);
  CHECK(q.params[0].name == "limit");
  CHECK(q.params[0].default_value == "20");
  CHECK(q.params[0].meaning == "number of rows");
  CHECK(q.params[1].default_value == "'a b'");
  CHECK(q.params[1].meaning == "a quoted default");
  CHECK(q.params[2].name == "trace_id");
  CHECK(q.params[2].default_value.empty());
  CHECK(q.params[2].meaning == "no default");
  CHECK(q.format == "folded");
}

TEST_CASE("queries: a param line may declare the values it takes", "[queries]") {
  QueryFile q;
  q.name = "q";
  ParseQueryHeader(
      "-- param :limit 20 (integer) \xE2\x80\x94 number of rows\n"
      "-- param :cut NULL (number) - ns\n"
      "-- param :sort total {total | count|avg} \xE2\x80\x94 order\n"
      "-- param :flag {0|1} -- no default\n"
      "-- param :unit 5 (ns) threshold\n"
      "-- param :odd x {} \xE2\x80\x94 not a list\n",
      &q);
  REQUIRE(q.params.size() == 6);
  CHECK(q.params[0].default_value == "20");
  CHECK(q.params[0].kind == QueryParamDoc::Kind::kInteger);
  CHECK(q.params[0].meaning == "number of rows");
  CHECK(q.params[1].kind == QueryParamDoc::Kind::kNumber);
  CHECK(q.params[1].meaning == "ns");
  CHECK(q.params[2].kind == QueryParamDoc::Kind::kChoice);
  CHECK(q.params[2].choices == std::vector<std::string>{"total", "count", "avg"});
  CHECK(q.params[2].default_value == "total");
  CHECK(q.params[2].meaning == "order");
  CHECK(q.params[3].default_value.empty());
  CHECK(q.params[3].choices == std::vector<std::string>{"0", "1"});
  CHECK(q.params[3].meaning == "no default");
  // Anything else after the default is the meaning, as before kinds existed.
  CHECK(q.params[4].kind == QueryParamDoc::Kind::kAny);
  CHECK(q.params[4].meaning == "(ns) threshold");
  CHECK(q.params[5].kind == QueryParamDoc::Kind::kAny);
  CHECK(q.params[5].meaning == "{} \xE2\x80\x94 not a list");

  auto check = [&](const char* name, const char* value) { CheckParamValues(q, Params{{name, value}}); };
  CHECK_NOTHROW(check("limit", "-1"));
  CHECK_NOTHROW(check("cut", "2.5e3"));
  CHECK_NOTHROW(check("cut", "7"));
  CHECK_NOTHROW(check("sort", "count"));
  CHECK_NOTHROW(check("sort", "'avg'"));
  CHECK_NOTHROW(check("flag", "1"));
  CHECK_NOTHROW(check("unit", "anything"));
  CHECK_NOTHROW(check("undeclared", "x"));
  CHECK_THROWS_WITH(check("limit", "abc"), "q: :limit cannot be abc (expected an integer)");
  CHECK_THROWS_WITH(check("limit", "1.5"), "q: :limit cannot be 1.5 (expected an integer)");
  CHECK_THROWS_WITH(check("limit", "'3'"), "q: :limit cannot be '3' (expected an integer)");
  CHECK_THROWS_WITH(check("cut", "x"), "q: :cut cannot be x (expected a number)");
  CHECK_THROWS_WITH(check("sort", "bogus"), "q: :sort cannot be bogus (expected one of total, count, avg)");
  CHECK_THROWS_WITH(check("sort", ""), "q: :sort cannot be '' (expected one of total, count, avg)");
  CHECK_THROWS_WITH(check("flag", "2"), "q: :flag cannot be 2 (expected one of 0, 1)");
}

TEST_CASE("queries: a misspelt name finds the query it was meant to be", "[queries]") {
  CHECK(ClosestQueryName("op_sumary", {}) == "op_summary");       // a letter dropped
  CHECK(ClosestQueryName("top_kernles", {}) == "top_kernels");    // two letters swapped
  CHECK(ClosestQueryName("TOP_OPS", {}) == "top_ops");            // case
  CHECK(ClosestQueryName("temporal", {}) == "temporal_breakdown");  // the one query it starts
  CHECK(ClosestQueryName("kernel", {}).empty());                  // starts two: no guess
  CHECK(ClosestQueryName("xyz", {}).empty());
  CHECK(ClosestQueryName("", {}).empty());
}

TEST_CASE("queries: every bundled query has a header naming it", "[queries]") {
  auto files = EmbeddedFilesUnder("queries/");
  REQUIRE(files.size() >= 5);
  for (const char* want : {"top_kernels", "top_ops", "idle_summary", "steps", "launch_delays"}) {
    auto q = FindQuery(want, {});
    REQUIRE(q);
    CHECK(q->builtin);
    CHECK(q->Source() == std::string("builtin:") + want);
    CHECK(q->text.rfind(std::string("-- name: ") + want + "\n", 0) == 0);
    CHECK(!q->description.empty());
  }
  // A query's own format (used by `tracesql run` without --format) is an output mode.
  for (const auto& q : ListQueries({})) {
    INFO(q.name);
    if (!q.format.empty()) CHECK(ParseOutputMode(q.format));
  }
  CHECK(FindQuery("flamegraph", {})->format == "folded");
}

TEST_CASE("queries: user directories are searched in order and shadow the bundle", "[queries]") {
  TempDir a("tq_queries"), b("tq_queries");
  a.Write("top_kernels.sql", "-- description: mine\nSELECT 1;\n");
  a.Write("notes.txt", "not a query");
  b.Write("top_kernels.sql", "-- description: second\nSELECT 2;\n");
  b.Write("extra.sql", "-- description: extra\nSELECT 3;\n");
  std::vector<std::string> dirs = {a.path.string(), b.path.string(), (a.path / "missing").string()};
  auto q = FindQuery("top_kernels", dirs);
  REQUIRE(q);
  CHECK(!q->builtin);
  CHECK(q->description == "mine");
  CHECK(q->shadows_builtin);
  CHECK(q->Source() == (a.path / "top_kernels.sql").string());
  CHECK(FindQuery("extra", dirs)->description == "extra");
  CHECK(!FindQuery("nosuch", dirs));
  auto all = ListQueries(dirs);
  int top = 0;
  bool extra = false, notes = false;
  for (const auto& x : all) {
    if (x.name == "top_kernels") {
      ++top;
      CHECK(x.description == "mine");
      CHECK(x.shadows_builtin);
    }
    extra |= x.name == "extra";
    notes |= x.name == "notes";
  }
  CHECK(top == 1);
  CHECK(extra);
  CHECK(!notes);
  CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.name < r.name; }));
  // An explicit path is read as is.
  auto p = FindQuery((b.path / "extra.sql").string(), {});
  REQUIRE(p);
  CHECK(p->name == "extra");
  CHECK_THROWS_WITH(FindQuery("/nonexistent/q.sql", {}), Catch::Contains("no such query file"));
}

TEST_CASE("queries: TRACESQL_QUERIES and XDG_CONFIG_HOME", "[queries]") {
  const char* old_home = std::getenv("HOME");
  std::string saved_home = old_home ? old_home : "";
  setenv("TRACESQL_QUERIES", "/one:/two::/three", 1);
  setenv("XDG_CONFIG_HOME", "/xdg", 1);
  auto dirs = UserQueryDirs({"/cli"});
  CHECK(dirs == std::vector<std::string>{"/cli", "/one", "/two", "/three", "/xdg/tracesql/queries"});
  unsetenv("TRACESQL_QUERIES");
  unsetenv("XDG_CONFIG_HOME");
  setenv("HOME", "/home/u", 1);
  CHECK(UserQueryDirs({}) == std::vector<std::string>{"/home/u/.config/tracesql/queries"});
  if (old_home) {
    setenv("HOME", saved_home.c_str(), 1);
  } else {
    unsetenv("HOME");
  }
}
