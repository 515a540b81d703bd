// Advise rules: header parsing, the bundled rules' shape, user rules shadowing, and the engine on a
// database without GPU work (every rule runs, nothing is found).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "tracesql/advise.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "temp_dir.h"

using namespace tracesql;
using tracesql::testing::TempDir;

TEST_CASE("advise: rule header keys, continuation lines, uses, when and params", "[advise]") {
  RuleFile r;
  r.path = "x.sql";
  ParseRuleHeader(
      "-- title: A title\n"
      "-- detects: first line\n"
      "--   second line\n"
      "-- evidence: ids\n"
      "-- advice: do this\n"
      "-- time lost: the sum\n"
      "--   of the gaps\n"
      "-- anchor: HTA\n"
      "-- when: (SELECT 1)\n"
      "-- uses: sync_points limit=-1 min_dur=5\n"
      "-- uses: steps\n"
      "-- param :min_share 0.05 \xE2\x80\x94 a share\n"
      "-- a free comment\n"
      "--   is not a continuation after a free comment\n"
      "SELECT 1\n"
      "-- title: after the SQL\n",
      &r);
  CHECK(r.title == "A title");
  CHECK(r.detects == "first line second line");
  CHECK(r.evidence == "ids");
  CHECK(r.advice == "do this");
  CHECK(r.time_lost == "the sum of the gaps");
  CHECK(r.anchor == "HTA");
  CHECK(r.when == "(SELECT 1)");
  REQUIRE(r.uses.size() == 2);
  CHECK(r.uses[0].name == "sync_points");
  CHECK(r.uses[0].params == Params{{"limit", "-1"}, {"min_dur", "5"}});
  CHECK(r.uses[1].name == "steps");
  CHECK(r.uses[1].params.empty());
  REQUIRE(r.params.size() == 1);
  CHECK(r.params[0].name == "min_share");
  CHECK(r.params[0].default_value == "0.05");
}

TEST_CASE("advise: every bundled rule has a complete header and names itself", "[advise]") {
  std::vector<RuleFile> rules = ListRules({});
  REQUIRE(rules.size() >= 11);
  for (const auto& r : rules) {
    INFO(r.name);
    CHECK(r.builtin);
    CHECK(!r.title.empty());
    CHECK(!r.detects.empty());
    CHECK(!r.evidence.empty());
    CHECK(!r.advice.empty());
    CHECK(!r.time_lost.empty());
    CHECK(!r.anchor.empty());
    CHECK(r.text.find("'" + r.name + "' AS rule") != std::string::npos);
    for (const auto& p : r.params) CHECK(!p.default_value.empty());
  }
}

TEST_CASE("advise: a user rule shadows the bundled one; a new one is added", "[advise]") {
  TempDir dir("tq_rules");
  std::ofstream(dir / "sync_calls.sql") << "-- title: mine\nSELECT 1\n";
  std::ofstream(dir / "extra.sql") << "-- title: extra\nSELECT 1\n";
  std::vector<RuleFile> rules = ListRules({dir.path.string()});
  std::set<std::string> names;
  for (const auto& r : rules) {
    names.insert(r.name);
    if (r.name == "sync_calls") {
      CHECK(!r.builtin);
      CHECK(r.shadows_builtin);
      CHECK(r.title == "mine");
      CHECK(r.Source() == dir / "sync_calls.sql");
    }
    if (r.name == "host_bound_idle") CHECK(r.Source() == "builtin:rules/host_bound_idle.sql");
  }
  CHECK(names.count("extra") == 1);
}

TEST_CASE("advise: every rule runs on a trace without GPU work and finds nothing", "[advise]") {
  TempDir dir("tq_advise");
  std::ofstream(dir / "t.json") << R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 10}]})";
  ImportOptions opt;
  opt.progress = false;
  ImportTraces({dir / "t.json"}, dir / "t.db", opt);
  Db db = Db::Open(dir / "t.db", /*create=*/false);
  AdviseResult result = Advise(db.get(), AdviseOptions{});
  CHECK(result.findings.empty());
  CHECK(result.rules.size() == ListRules({}).size());
  for (const auto& r : result.rules) CHECK(r.findings == 0);

  AdviseOptions bad;
  bad.params["no_such"] = "1";
  CHECK_THROWS_WITH(Advise(db.get(), bad), Catch::Contains("no rule takes the parameter :no_such"));
}
