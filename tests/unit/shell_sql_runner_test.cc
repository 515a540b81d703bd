// Running SQL text: statements in order, errors with file and line (issue 4).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>

#include "tracesql/db.h"
#include "tracesql/sql_runner.h"

using namespace tracesql;

namespace {
// Runs sql with output to a temporary file; returns what was written.
std::string Exec(Db& db, const std::string& sql, const Params& params = {}, bool separate = true) {
  std::FILE* f = std::tmpfile();
  ExecOptions eo;
  eo.render.mode = OutputMode::kCsv;
  eo.out = f;
  eo.params = &params;
  eo.separate_results = separate;
  try {
    ExecuteSql(db.get(), sql, SqlSource{"q.sql", 1}, eo);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}
}  // namespace

TEST_CASE("sql runner: every statement runs; result sets are separated", "[shell]") {
  Db db = Db::Open(":memory:", true);
  CHECK(Exec(db, "SELECT 1 AS a; CREATE TABLE t(x); INSERT INTO t VALUES (2); -- done\nSELECT x FROM t;") ==
        "a\n1\n\nx\n2\n");
  CHECK(Exec(db, "SELECT :n AS n", Params{{"n", "5"}}) == "n\n5\n");
  CHECK(Exec(db, "  -- only a comment\n  ").empty());
}

TEST_CASE("sql runner: errors name the file and the line", "[shell]") {
  Db db = Db::Open(":memory:", true);
  try {
    Exec(db, "SELECT 1;\n\nSELECT\n  nosuch\nFROM (SELECT 1);\n");
    FAIL("no error");
  } catch (const SqlError& e) {
    CHECK(e.kind() == SqlError::Kind::kParse);
    CHECK(e.line() == 4);  // the line SQLite points at, not the statement's first line
    CHECK(std::string(e.what()) == "parse error near line 4 of q.sql: no such column: nosuch");
    CHECK(e.Located() == "Parse error near line 4 of q.sql: no such column: nosuch");
  }
  try {
    Exec(db, "SELECT 1;\n-- comment\n  SELECT abs(-9223372036854775807 - 1);");
    FAIL("no error");
  } catch (const SqlError& e) {
    CHECK(e.kind() == SqlError::Kind::kRuntime);
    CHECK(std::string(e.what()) == "runtime error near line 3 of q.sql: integer overflow");
  }
  CHECK(PositionOf("ab\ncd\nef", 4, 10).line == 11);
  CHECK(PositionOf("ab\ncd\nef", 4, 10).column == 2);
}

TEST_CASE("sql runner: small text tables use the same renderer", "[shell]") {
  std::FILE* f = std::tmpfile();
  RenderOptions o;
  o.mode = OutputMode::kJsonl;
  RenderTextTable({"name", "quote\"d"}, {{std::string("a"), std::nullopt}, {std::string("b"), std::string("c")}}, o, f);
  std::rewind(f);
  char buf[256] = {};
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  CHECK(std::string(buf, n) == "{\"name\":\"a\",\"quote\\\"d\":null}\n{\"name\":\"b\",\"quote\\\"d\":\"c\"}\n");
}
