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
#include "tracesql/params.h"
#include "tracesql/queries.h"
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

namespace {
// Every row of the statement, each value as "type:text".
std::vector<std::vector<std::string>> AllRows(sqlite3* db, const std::string& sql, const Params& params) {
  Stmt s(db, sql);
  BindParams(s.get(), params);
  std::vector<std::vector<std::string>> out;
  while (s.Step()) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(s.get()); ++i) {
      row.push_back(std::to_string(sqlite3_column_type(s.get(), i)) + ":" + s.ColumnText(i));
    }
    out.push_back(std::move(row));
  }
  return out;
}
}  // namespace

TEST_CASE("advise: the uses results chosen by keep are left in tables equal to the query's rows", "[advise]") {
  TempDir dir("tq_advise_keep");
  for (int rank = 0; rank < 2; ++rank) {
    std::ofstream(dir / ("r" + std::to_string(rank) + ".json")) << R"({"distributedInfo": {"rank": )" << rank
        << R"(}, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 100, "args": {"stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,
     "ts": )" << 50 + 10 * rank << R"(, "dur": 100, "args": {"stream": 20, "Collective name": "allreduce",
     "dtype": "Float", "In msg nelems": 1000, "Process Group Name": "0", "Group size": 2}}]})";
  }
  ImportOptions opt;
  opt.progress = false;
  ImportTraces({dir / "r0.json", dir / "r1.json"}, dir / "t.db", opt);
  Db db = Db::Open(dir / "t.db", /*create=*/false);
  AdviseOptions ao;
  ao.keep = [](const UsedQuery& u) { return u.name == "comm_overlap" || u.name == "collectives"; };
  AdviseResult result = Advise(db.get(), ao);
  REQUIRE(result.kept.size() == 2);
  std::set<std::string> names;
  for (const KeptQuery& k : result.kept) {
    names.insert(k.query.name);
    auto q = FindQuery(k.query.name, {});
    REQUIRE(q);
    auto want = AllRows(db.get(), q->text, k.query.params);
    CHECK_FALSE(want.empty());
    CHECK(AllRows(db.get(), "SELECT * FROM temp." + k.table + " ORDER BY rowid", {}) == want);
  }
  CHECK(names == std::set<std::string>{"comm_overlap", "collectives"});
  CHECK(AllRows(db.get(), "SELECT query, params FROM temp.advise_kept ORDER BY query", {}) ==
        std::vector<std::vector<std::string>>{{"3:collectives", "3:limit=-1"}, {"3:comm_overlap", "3:per_step=0"}});
  // The next Advise drops them.
  std::string first = result.kept.front().table;
  CHECK(Advise(db.get(), AdviseOptions{}).kept.empty());
  CHECK(AllRows(db.get(), "SELECT count(*) FROM sqlite_temp_master WHERE name = '" + first + "'", {}) ==
        std::vector<std::vector<std::string>>{{"1:0"}});
  CHECK(AllRows(db.get(), "SELECT count(*) FROM temp.advise_kept", {}) == std::vector<std::vector<std::string>>{{"1:0"}});
}
