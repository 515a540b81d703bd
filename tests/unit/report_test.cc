#include <sqlite3.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>

#include "temp_dir.h"
#include "tracesql/combine.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "tracesql/report.h"

using namespace tracesql;

namespace {
std::string TinyDatabase(const testing::TempDir& dir) {
  std::string trace = dir / "t.json", db = dir / "t.db";
  std::ofstream(trace) << R"json({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "void ns::gemm<float>(float*)", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
     "args": {"device": 0, "stream": 7}}]})json";
  ImportTraces({trace}, db, ImportOptions{});
  return db;
}
}  // namespace

TEST_CASE("report: findings are embedded when given, escaped for the script element", "[report]") {
  testing::TempDir dir;
  std::string db = TinyDatabase(dir);
  ReportOptions ro;
  ro.db_label = db;
  ro.threads = 2;
  std::string plain = BuildReportHtml(db, ro);
  CHECK(plain.find("\"findings\":") == std::string::npos);
  CHECK(plain.find("\"kernels\":{\"key\":\"kernels\",\"query\":\"top_kernels\"") != std::string::npos);
  CHECK(plain.find("[\"void ns::gemm\\u003cfloat\\u003e(float*)\",\"gemm\",1,2000,2000,2000,100.0]") !=
        std::string::npos);
  ro.findings = ReportOptions::Findings{
      "SELECT 1 AS trace_id, 'idle_host' AS rule, 'high' AS severity, 12345 AS time_lost_ns, "
      "'</script><b>x' AS title, '{}' AS evidence, 'overlap' AS advice",
      "tracesql advise DB", {}, {}};
  std::string html = BuildReportHtml(db, ro);
  CHECK(html.find("\"findings\":{\"key\":\"findings\",\"query\":\"advise\",\"command\":\"tracesql advise DB\","
                  "\"columns\":[\"trace_id\",\"rule\",\"severity\",\"time_lost_ns\",\"title\",\"evidence\",\"advice\"],"
                  "\"rows\":[[1,\"idle_host\",\"high\",12345,\"\\u003c/script\\u003e\\u003cb\\u003ex\",") !=
        std::string::npos);
  CHECK(html.find("</script><b>") == std::string::npos);
  // prepare runs on the connection that then runs the findings' statement.
  ro.findings = ReportOptions::Findings{
      "SELECT * FROM temp.made_by_prepare", "tracesql advise DB", [](sqlite3* conn) {
        REQUIRE(sqlite3_exec(conn,
                             "CREATE TEMP TABLE made_by_prepare AS SELECT 2 AS trace_id, 'r' AS rule, 'low' AS severity,"
                             " 7 AS time_lost_ns, 't' AS title, 'e' AS evidence, 'a' AS advice",
                             nullptr, nullptr, nullptr) == SQLITE_OK);
        return std::map<std::string, std::string>{};
      }, {}};
  CHECK(BuildReportHtml(db, ro).find("\"rows\":[[2,\"r\",\"low\",7,\"t\",\"e\",\"a\"]]") != std::string::npos);
  // A failing statement is shown as failed, not as an empty result.
  ro.findings->sql = "SELECT * FROM no_such_table";
  html = BuildReportHtml(db, ro);
  CHECK(html.find("\"rows\":[],\"error\":\"no such table: no_such_table\"") != std::string::npos);
}

TEST_CASE("report: datasets shared with the findings' prepare read the table it made", "[report]") {
  testing::TempDir dir;
  std::string db = TinyDatabase(dir);
  ReportOptions ro;
  ro.db_label = db;
  ro.threads = 3;
  // prepare computed comm_overlap (a stand-in table with its own rows) but not memory_peak: the page's
  // "comm" dataset is read from the table, marked as the advisor's; "memory_peak" runs its query.
  ro.findings = ReportOptions::Findings{
      "SELECT * FROM temp.advise_findings", "tracesql advise DB",
      [](sqlite3* conn) {
        REQUIRE(sqlite3_exec(conn,
                             "CREATE TEMP TABLE advise_findings (trace_id, rule, severity, time_lost_ns, title, evidence,"
                             " advice); CREATE TEMP TABLE kept_comm (trace_id, exposed_ns);"
                             " INSERT INTO kept_comm VALUES (2, 5), (1, 7.5), (3, 'x')",
                             nullptr, nullptr, nullptr) == SQLITE_OK);
        return std::map<std::string, std::string>{{"comm", "kept_comm"}};
      },
      {"comm", "memory_peak"}};
  std::string html = BuildReportHtml(db, ro);
  CHECK(html.find("\"comm\":{\"key\":\"comm\",\"query\":\"comm_overlap\",\"command\":\"tracesql run " + db +
                  " comm_overlap -p per_step=0\",\"source\":\"advise\",\"columns\":[\"trace_id\",\"exposed_ns\"],"
                  "\"rows\":[[2,5],[1,7.5],[3,\"x\"]]}") != std::string::npos);
  CHECK(html.find("\"memory_peak\":{\"key\":\"memory_peak\",\"query\":\"memory_peak\",\"command\":\"tracesql run " +
                  db + " memory_peak\",\"columns\":[\"trace_id\"") != std::string::npos);
}

TEST_CASE("report: a partition directory's page reads each combinable dataset from its combining step", "[report]") {
  // The runner stands for cli::RunJobInto: its combining step here is one row naming the query.
  Db memory = Db::Open(":memory:", /*create=*/true);
  std::vector<std::string> asked;
  auto run = [&](const QueryFile& q, const Params&, const CombineStep& step) {
    asked.push_back(q.name);
    if (q.name == "memory_peak") throw Error("part-00002.db: cannot read it");
    step(memory.get(), "SELECT :x AS query", SqlSource{"test", 1}, Params{{"x", q.name}});
  };
  ReportOptions ro;
  ro.db_label = "my job/";
  std::string html = BuildJobReportHtml(run, ro);
  for (const ReportDataset& d : ReportDatasets()) {
    INFO(d.key);
    bool combines = CombiningSql(d.query).has_value();
    CHECK((std::find(asked.begin(), asked.end(), d.query) != asked.end()) == combines);
    std::string command = "\"command\":\"tracesql run 'my job/' " + d.query;
    CHECK(html.find("\"" + d.key + "\":{\"key\":\"" + d.key + "\",\"query\":\"" + d.query + "\"," + command) !=
          std::string::npos);
    if (!combines) {
      CHECK(html.find("\"unavailable\":\"" + d.query + " does not combine over partitions yet (no queries/combine/" +
                      d.query + ".sql): merge them first (tracesql merge 'my job/' -o job.db)") != std::string::npos);
    } else if (d.query != "memory_peak") {
      CHECK(html.find("\"columns\":[\"query\"],\"rows\":[[\"" + d.query + "\"]]") != std::string::npos);
    }
  }
  CHECK(html.find("\"error\":\"part-00002.db: cannot read it\"") != std::string::npos);
  CHECK(html.find("\"findings\":{\"key\":\"findings\",\"query\":\"advise\"") != std::string::npos);
  CHECK(html.find("\"unavailable\":\"the advisor's rules read one database") != std::string::npos);
  CHECK(html.find("<title>tracesql report: my job</title>") != std::string::npos);
}

TEST_CASE("report: the short_names table holds each GPU op name's short name", "[report][names]") {
  testing::TempDir dir;
  Db db = Db::Open(TinyDatabase(dir), false);
  Stmt s = db.Prepare("SELECT name, short_name FROM short_names");
  REQUIRE(s.Step());
  CHECK(s.ColumnText(0) == "void ns::gemm<float>(float*)");
  CHECK(s.ColumnText(1) == "gemm");
  CHECK_FALSE(s.Step());
}

TEST_CASE("report: an existing file is refused without force, never an input", "[report]") {
  testing::TempDir dir;
  std::string out = dir / "r.html";
  std::ofstream(out) << "mine";
  CHECK_THROWS_WITH(WriteReportFile("<html>", out, false, {}), Catch::Contains("exists (use --force"));
  CHECK_THROWS_WITH(WriteReportFile("<html>", out, true, {out}), Catch::Contains("is an input of this report"));
  WriteReportFile("<html>", out, true, {});
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "<html>");
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("report: the per-device series shrink with the devices, down to a floor", "[report][devices]") {
  auto param = [](const std::vector<ReportDataset>& all, const std::string& key, const std::string& name) {
    for (const ReportDataset& d : all) {
      if (d.key != key) continue;
      for (const auto& [k, v] : d.params) {
        if (k == name) return v;
      }
    }
    return std::string("(none)");
  };
  // Up to 16 devices: the parameters of ReportDatasets(), without "devices" (worst_devices: every
  // device is drawn) unless the devices are not known; every other dataset never changes.
  for (int64_t devices : {0, 1, 16}) {
    auto all = ReportDatasetsFor(devices);
    std::vector<ReportDataset> want;
    for (const ReportDataset& d : ReportDatasets()) {
      if (devices == 0 || d.key != "devices") want.push_back(d);
    }
    REQUIRE(all.size() == want.size());
    for (size_t i = 0; i < all.size(); ++i) CHECK((all[i].key == want[i].key && all[i].params == want[i].params));
  }
  auto twenty = ReportDatasetsFor(20);
  CHECK(param(twenty, "devices", "limit") == "16");
  CHECK(twenty.size() == ReportDatasets().size());
  CHECK(param(twenty, "util", "buckets") == "160");
  CHECK(param(twenty, "memory", "points") == "320");
  CHECK(param(twenty, "coll_ranks", "top") == "80");
  CHECK(param(twenty, "kernels", "limit") == "20");
  auto many = ReportDatasetsFor(256);
  CHECK(param(many, "util", "buckets") == "16");
  CHECK(param(many, "memory", "points") == "25");
  CHECK(param(many, "coll_ranks", "top") == "10");
  auto huge = ReportDatasetsFor(100000);
  CHECK(param(huge, "util", "buckets") == "16");
  CHECK(param(huge, "memory", "points") == "25");
  CHECK(param(huge, "coll_ranks", "top") == "10");
}
