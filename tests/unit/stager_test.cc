// Stager (src/import/row_writer.h): tables written on a second thread into a staging database and
// copied in with their index entries.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "import/row_writer.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "temp_dir.h"

using namespace tracesql;
using tracesql::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A database being built as the importer builds it: journal off, one open transaction.
Db Building(const std::string& path) {
  Db db = Db::Open(path, /*create=*/true);
  db.Exec("PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA locking_mode = EXCLUSIVE;");
  db.Exec(
      "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT);"
      "CREATE INDEX t_k ON t(k);"
      "CREATE TABLE u (a, b);"
      "CREATE INDEX u_b ON u(b) WHERE b IS NOT NULL;");
  db.Exec("BEGIN");
  return db;
}

}  // namespace

TEST_CASE("Stager: rows and index entries are copied in, ids and order kept", "[stager]") {
  TempDir dir("tq_stager");
  Db db = Building(dir / "db");
  db.Exec("INSERT INTO t VALUES (1, 7, 'before'); INSERT INTO u VALUES ('first', NULL)");
  std::string stage = dir / "db-stage";
  {
    Stager stager(db, stage, {"t", "u"}, [](Db& s) {
      Stmt t = s.Prepare("INSERT INTO t VALUES (?, ?, ?)");
      for (int i = 2; i <= 5000; ++i) {
        t.BindInt(1, i);
        t.BindInt(2, (i * 7919) % 101);
        t.BindTextCopy(3, "v" + std::to_string(i));
        t.Run();
      }
      s.Exec("INSERT INTO u VALUES ('x', 3), ('y', NULL), ('z', 1)");
    });
    db.Exec("INSERT INTO t VALUES (5001, 1, 'meanwhile')");  // the main thread goes on
    stager.Finish(db);
  }
  CHECK_FALSE(fs::exists(stage));
  CHECK(db.QueryInt("SELECT count(*) FROM t") == 5001);
  CHECK(db.QueryInt("SELECT count(*) FROM t WHERE v = 'v' || id") == 4999);
  // u has no rowid alias: the copied rows get the next rowids, in their order.
  CHECK(db.QueryInt("SELECT group_concat(rowid || a, ',') = '1first,2x,3y,4z' FROM u") == 1);
  // The index entries came along: the index answers like the table.
  CHECK(db.QueryInt("SELECT count(*) FROM t INDEXED BY t_k WHERE k = 50") ==
        db.QueryInt("SELECT count(*) FROM t NOT INDEXED WHERE k = 50"));
  CHECK(db.QueryInt("SELECT count(*) FROM u INDEXED BY u_b WHERE b > 0") == 2);
  db.Exec("COMMIT");
  Stmt check = db.Prepare("PRAGMA integrity_check");
  REQUIRE(check.Step());
  CHECK(check.ColumnText(0) == "ok");
}

TEST_CASE("Stager: an error on the staging thread comes out of Finish", "[stager]") {
  TempDir dir("tq_stager");
  Db db = Building(dir / "db");
  std::string stage = dir / "db-stage";
  Stager stager(db, stage, {"t"}, [](Db& s) { s.Exec("INSERT INTO t VALUES (1, NULL, 'k is NOT NULL')"); });
  CHECK_THROWS_WITH(stager.Finish(db), Catch::Contains("NOT NULL"));
  CHECK(db.QueryInt("SELECT count(*) FROM t") == 0);
}

TEST_CASE("Stager: destroyed without Finish, it interrupts the staging thread", "[stager]") {
  TempDir dir("tq_stager");
  Db db = Building(dir / "db");
  std::string stage = dir / "db-stage";
  std::atomic<bool> started{false};
  auto t0 = std::chrono::steady_clock::now();
  {
    // A statement that would run for minutes: only the progress handler's interrupt ends it.
    Stager stager(db, stage, {"t"}, [&](Db& s) {
      started.store(true);
      s.Exec(
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000000)"
          " INSERT INTO t (k) SELECT i FROM n");
    });
    while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }  // the main thread failed here (as if it threw)
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  CHECK(db.QueryInt("SELECT count(*) FROM t") == 0);
}

TEST_CASE("Stager: a table that does not exist is an internal error", "[stager]") {
  TempDir dir("tq_stager");
  Db db = Building(dir / "db");
  CHECK_THROWS_WITH(Stager(db, dir / "db-stage", {"nope"}, [](Db&) {}), Catch::Contains("no table nope"));
  CHECK_THROWS_WITH(Stager(db, "", {"t"}, [](Db&) {}), Catch::Contains("no staging database path"));
}
