// btree::TableWriter / IndexWriter / PlaceTrees (src/btree/btree_writer.h): pages written without
// SQLite must read back through SQLite as the rows and index entries INSERT would have stored,
// and pass PRAGMA integrity_check (page structure, key order, each row's index entries).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <sqlite3.h>

#include "btree/btree_writer.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "temp_dir.h"

using namespace tracesql;
using tracesql::testing::TempDir;

namespace {

struct Row {
  int64_t id;
  int64_t a;
  bool b_null;
  std::string b;
  bool c_null;
  int64_t c;
};

// An import-like database: the table and its indexes created empty by SQLite, committed and closed.
void CreateEmpty(const std::string& path, int page_size) {
  Db db = Db::Open(path, /*create=*/true);
  db.Exec(fmt::format("PRAGMA page_size = {}; PRAGMA journal_mode = OFF;", page_size));
  db.Exec(
      "CREATE TABLE before (x);"
      "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c);"
      "CREATE TABLE after (y);"
      "CREATE INDEX t_a ON t(a, c);"
      "CREATE INDEX t_c ON t(c) WHERE c IS NOT NULL;"
      "INSERT INTO before VALUES ('kept'); INSERT INTO after VALUES (42);");
  db.Close();
}

uint32_t RootPage(const std::string& path, const char* name) {
  Db db = Db::Open(path, false);
  Stmt s = db.Prepare("SELECT rootpage FROM sqlite_schema WHERE name = ?");
  s.BindText(1, name);
  REQUIRE(s.Step());
  return static_cast<uint32_t>(s.ColumnInt(0));
}

// The table and index t_a in one spill, index t_c in a second one sharing its file (as the
// importer's two threads do). Returns PlaceTrees()'s answer: whether the spills' file became the
// database (adopt false: copied, as where the file system cannot).
bool Write(const std::string& dir, const std::string& path, int page_size, const std::vector<Row>& rows,
           int64_t max_pages = std::numeric_limits<int64_t>::max(), uint64_t pending_byte = 0x40000000,
           bool adopt = true) {
  uint32_t root_t = RootPage(path, "t"), root_a = RootPage(path, "t_a"), root_c = RootPage(path, "t_c");
  btree::PageSpill spill(dir, static_cast<uint32_t>(page_size), path);
  btree::PageSpill second(spill);
  btree::TableWriter table(spill);
  btree::IndexWriter index_a(spill), index_c(second);
  btree::Record rec;
  for (const Row& r : rows) {
    rec.Clear();
    rec.Null().Int(r.a);
    if (r.b_null) rec.Null(); else rec.Text(r.b);
    if (r.c_null) rec.Null(); else rec.Int(r.c);
    table.Append(r.id, rec.Encode());
  }
  // Index keys in SQLite's order: NULL before any integer, then the rowid.
  std::vector<std::tuple<int64_t, bool, int64_t, int64_t>> ka;
  std::vector<std::pair<int64_t, int64_t>> kc;
  for (const Row& r : rows) {
    ka.emplace_back(r.a, !r.c_null, r.c_null ? 0 : r.c, r.id);
    if (!r.c_null) kc.emplace_back(r.c, r.id);
  }
  std::sort(ka.begin(), ka.end());
  std::sort(kc.begin(), kc.end());
  for (const auto& [a, has_c, c, id] : ka) {
    rec.Clear();
    rec.Int(a);
    if (has_c) rec.Int(c); else rec.Null();
    index_a.Append(rec.Int(id).Encode());
  }
  for (const auto& [c, id] : kc) {
    rec.Clear();
    index_c.Append(rec.Int(c).Int(id).Encode());
  }
  return btree::PlaceTrees(path, {&spill, &second}, {{&table, root_t}, {&index_a, root_a}, {&index_c, root_c}},
                           max_pages, pending_byte, adopt);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Whether the file system of dir can move file ranges (fallocate's INSERT_RANGE/COLLAPSE_RANGE)
// and has O_TMPFILE: where the spills' file must become the database.
bool CanAdopt(const std::string& dir) {
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) != 0) return false;
  if (fs.f_type != 0xEF53 && fs.f_type != 0x58465342) return false;  // ext4, XFS
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  return true;
}

std::vector<Row> MakeRows(size_t n, uint32_t seed, size_t max_text) {
  std::mt19937_64 rng(seed);
  const int64_t specials[] = {0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32769, 8388607, 8388608,
                              2147483647, 2147483648LL, -2147483649LL, 0x7fffffffffffLL, 0x800000000000LL,
                              std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  std::vector<Row> rows;
  int64_t id = -5;  // negative rowids too
  for (size_t i = 0; i < n; ++i) {
    Row r;
    id += 1 + static_cast<int64_t>(rng() % 3);
    r.id = id;
    r.a = rng() % 4 == 0 ? specials[rng() % std::size(specials)] : static_cast<int64_t>(rng() % 1000) - 500;
    r.b_null = rng() % 7 == 0;
    size_t len = rng() % 10 == 0 ? rng() % max_text : rng() % 40;
    for (size_t k = 0; k < len; ++k) r.b.push_back(static_cast<char>('a' + (k * 7 + i) % 26));
    r.c_null = rng() % 3 == 0;
    r.c = specials[rng() % std::size(specials)];
    rows.push_back(std::move(r));
  }
  return rows;
}

void Check(const std::string& path, const std::vector<Row>& rows) {
  Db db = Db::Open(path, false);
  Stmt ic = db.Prepare("PRAGMA integrity_check");
  REQUIRE(ic.Step());
  CHECK(ic.ColumnText(0) == "ok");
  CHECK(!ic.Step());
  Stmt s = db.Prepare("SELECT id, a, b, c, typeof(a), typeof(b), typeof(c) FROM t ORDER BY id");
  size_t i = 0;
  while (s.Step()) {
    REQUIRE(i < rows.size());
    const Row& r = rows[i++];
    CHECK(s.ColumnInt(0) == r.id);
    CHECK(s.ColumnInt(1) == r.a);
    CHECK(s.ColumnText(4) == "integer");
    CHECK(s.ColumnText(5) == (r.b_null ? "null" : "text"));
    if (!r.b_null) CHECK(s.ColumnText(2) == r.b);
    CHECK(s.ColumnText(6) == (r.c_null ? "null" : "integer"));
    if (!r.c_null) CHECK(s.ColumnInt(3) == r.c);
  }
  CHECK(i == rows.size());
  // The indexes answer as the table does.
  int64_t by_index = db.QueryInt("SELECT count(*) FROM t INDEXED BY t_a WHERE a BETWEEN -100 AND 100");
  int64_t expect = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.a >= -100 && r.a <= 100; });
  CHECK(by_index == expect);
  CHECK(db.QueryInt("SELECT count(*) FROM t INDEXED BY t_c WHERE c IS NOT NULL AND c > 0") ==
        std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.c_null && r.c > 0; }));
  // The tables SQLite wrote around them are untouched, and SQLite can go on writing.
  CHECK(db.QueryInt("SELECT count(*) FROM before WHERE x = 'kept'") == 1);
  CHECK(db.QueryInt("SELECT y FROM after") == 42);
  db.Exec("INSERT INTO after VALUES (43); INSERT INTO t (a, b, c) VALUES (1, 'new', 2)");
  Stmt ic2 = db.Prepare("PRAGMA integrity_check");
  REQUIRE(ic2.Step());
  CHECK(ic2.ColumnText(0) == "ok");
}

}  // namespace

TEST_CASE("btree: varints as SQLite writes them", "[btree]") {
  uint8_t buf[9];
  CHECK(btree::PutVarint(buf, 0) == 1);
  CHECK(buf[0] == 0);
  CHECK(btree::PutVarint(buf, 127) == 1);
  CHECK(btree::PutVarint(buf, 128) == 2);
  CHECK((buf[0] == 0x81 && buf[1] == 0x00));
  CHECK(btree::PutVarint(buf, 16383) == 2);
  CHECK(btree::PutVarint(buf, 16384) == 3);
  CHECK(btree::PutVarint(buf, uint64_t{1} << 56) == 9);
  CHECK(btree::PutVarint(buf, ~uint64_t{0}) == 9);
  CHECK((buf[0] == 0xff && buf[8] == 0xff));
  CHECK(btree::VarintLen((uint64_t{1} << 56) - 1) == 8);
}

TEST_CASE("btree: records use SQLite's serial types", "[btree]") {
  btree::Record r;
  r.Clear();
  std::string_view e = r.Null().Int(0).Int(1).Int(-1).Int(200).Text("hi").Encode();
  // header: size 7, types 0, 8, 9, 1, 2, 17; body: ff, 00 c8, "hi"
  const uint8_t want[] = {7, 0, 8, 9, 1, 2, 17, 0xff, 0x00, 0xc8, 'h', 'i'};
  REQUIRE(e.size() == sizeof want);
  for (size_t i = 0; i < sizeof want; ++i) CHECK(static_cast<uint8_t>(e[i]) == want[i]);
}

TEST_CASE("btree: tables and indexes of every depth read back through SQLite", "[btree]") {
  TempDir dir("tq_btree");
  const bool can_adopt = CanAdopt(dir.path.string());
  if (!can_adopt) WARN("temporary directory is not ext4/XFS with O_TMPFILE: pages are only copied here");
  struct Case {
    int page_size;
    size_t rows;
    size_t max_text;
  };
  // 512-byte pages make deep trees and long overflow chains out of a few thousand rows.
  for (const Case& c : {Case{512, 0, 10}, Case{512, 1, 10}, Case{512, 1, 3000}, Case{512, 7, 100},
                        Case{512, 6000, 3000}, Case{1024, 20000, 200}, Case{4096, 1, 10}, Case{4096, 5000, 9000},
                        Case{16384, 30000, 40000}, Case{65536, 3000, 200000}}) {
    INFO("page size " << c.page_size << ", rows " << c.rows);
    std::vector<Row> rows = MakeRows(c.rows, static_cast<uint32_t>(c.rows + c.page_size), c.max_text);
    // The same pages, placed both ways: the spills' file made the database, or copied into it.
    std::string adopted = dir / fmt::format("t{}_{}_{}.db", c.page_size, c.rows, c.max_text);
    std::string copied = dir / fmt::format("t{}_{}_{}_copied.db", c.page_size, c.rows, c.max_text);
    CreateEmpty(adopted, c.page_size);
    CreateEmpty(copied, c.page_size);
    struct stat before {};
    REQUIRE(stat(adopted.c_str(), &before) == 0);
    // Pages of less than a file-system block, or no pages spilled (a tree of one leaf): copied.
    CHECK(Write(dir.path.string(), adopted, c.page_size, rows) == (can_adopt && c.page_size >= 4096 && c.rows > 1));
    CHECK(!Write(dir.path.string(), copied, c.page_size, rows, std::numeric_limits<int64_t>::max(), 0x40000000,
                 /*adopt=*/false));
    CHECK(ReadFile(adopted) == ReadFile(copied));
    struct stat after {};
    REQUIRE(stat(adopted.c_str(), &after) == 0);
    CHECK((after.st_mode & 07777) == (before.st_mode & 07777));  // the permissions SQLite gave it
    Check(adopted, rows);
    Check(copied, rows);
  }
  // Nothing left beside the databases (the spills' file had a name only to be renamed).
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) {
    INFO(e.path());
    CHECK(e.path().extension() == ".db");
    ++files;
  }
  CHECK(files == 20);
}

TEST_CASE("btree: an index whose last entry does not fit its last leaf", "[btree]") {
  // Entries of one size fill each leaf with the same count, so some row count ends every index on
  // an entry that starts a leaf of its own: every count up to past three leaves of 512 bytes.
  TempDir dir("tq_btree_last");
  for (size_t n = 1; n <= 160; ++n) {
    INFO("rows " << n);
    std::vector<Row> rows;
    for (size_t i = 0; i < n; ++i) {
      int64_t k = static_cast<int64_t>(i);
      rows.push_back({1000 + k, 10 + k % 50, false, "x", false, 100000 + k});
    }
    std::string path = dir / fmt::format("n{}.db", n);
    CreateEmpty(path, 512);
    Write(dir.path.string(), path, 512, rows);
    Check(path, rows);
  }
}

TEST_CASE("btree: a name left by an import killed while placing does not stop the next", "[btree]") {
  TempDir dir("tq_btree_stale");
  if (!CanAdopt(dir.path.string())) {
    WARN("temporary directory is not ext4/XFS with O_TMPFILE: not tested");
    return;
  }
  std::string path = dir / "t.db";
  CreateEmpty(path, 4096);
  dir.Write("t.db-pages", "stale");  // the name the spills' file is linked under before the rename
  std::vector<Row> rows = MakeRows(3000, 8, 100);
  CHECK(Write(dir.path.string(), path, 4096, rows));
  CHECK(!std::filesystem::exists(dir / "t.db-pages"));
  Check(path, rows);
}

TEST_CASE("btree: no page goes where SQLite's lock byte is", "[btree]") {
  // The lock page is at 1 GB; SQLite's test control moves it to 64 KB (page 129 of 512 bytes, 17 of
  // 4096), so that a few MB of pages cross it: the spill is copied in two pieces around it (or a
  // page is inserted there when the spills' file becomes the database), and every child pointer,
  // overflow chain and interior page skips it.
  TempDir dir("tq_btree_lock");
  constexpr int kPending = 0x10000;
  int old = sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, kPending);
  if (old != 0x40000000) {  // a library built without test controls (SQLITE_UNTESTABLE)
    WARN("sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE) unavailable: lock page not tested");
    return;
  }
  struct Restore {
    int old;
    ~Restore() { sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, old); }
  } restore{old};
  for (int page_size : {512, 4096}) {
    for (size_t rows : {300u, 3000u}) {  // the lock page among the leaves, or reached by interior pages
      for (bool adopt : {true, false}) {
        INFO("page size " << page_size << ", rows " << rows << ", adopt " << adopt);
        std::string path = dir / fmt::format("lock{}_{}_{}.db", page_size, rows, adopt);
        CreateEmpty(path, page_size);
        std::vector<Row> data = MakeRows(rows, 99, 3000);
        Write(dir.path.string(), path, page_size, data, std::numeric_limits<int64_t>::max(), kPending, adopt);
        Check(path, data);
      }
    }
  }
}

TEST_CASE("btree: a limit on file sizes gives the second spill a file of its own", "[btree]") {
  // The second spill's pages start 4 TiB into the shared (sparse) file: under `ulimit -f` a write
  // there would raise SIGXFSZ (the test dies if it does), so the spill takes a file of its own when
  // made, and the pages are copied. (A file system that cannot hold such a file: faults.py, on an
  // ext4 of 1 KB blocks.)
  TempDir dir("tq_btree_fsize");
  struct rlimit old {};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  struct Restore {
    rlimit old;
    ~Restore() { setrlimit(RLIMIT_FSIZE, &old); }
  } restore{old};
  std::vector<Row> rows = MakeRows(5000, 5, 9000);
  std::string path = dir / "limit.db";
  CreateEmpty(path, 4096);
  struct rlimit small = old;
  small.rlim_cur = rlim_t{256} << 20;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  CHECK(!Write(dir.path.string(), path, 4096, rows));
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
  Check(path, rows);
}

TEST_CASE("btree: pages are copied where the file system cannot move ranges (tmpfs)", "[btree]") {
  struct statfs fs {};
  if (statfs("/dev/shm", &fs) != 0 || fs.f_type != 0x01021994) {  // TMPFS_MAGIC
    WARN("no tmpfs at /dev/shm: not tested");
    return;
  }
  TempDir dir("tq_btree_tmpfs", "/dev/shm");
  std::vector<Row> rows = MakeRows(5000, 6, 9000);
  std::string path = dir / "t.db";
  CreateEmpty(path, 4096);
  CHECK(!Write(dir.path.string(), path, 4096, rows));
  Check(path, rows);
}

TEST_CASE("btree: the page limit is kept, as SQLite's max_page_count", "[btree]") {
  TempDir dir("tq_btree_full");
  std::string path = dir / "full.db";
  CreateEmpty(path, 512);
  std::vector<Row> rows = MakeRows(2000, 7, 100);
  REQUIRE_THROWS_WITH(Write(dir.path.string(), path, 512, rows, 20), Catch::Contains("database or disk is full"));
}

TEST_CASE("btree: rows out of rowid order are refused", "[btree]") {
  TempDir dir("tq_btree_order");
  btree::PageSpill spill(dir.path.string(), 4096, "x.db");
  btree::TableWriter table(spill);
  btree::Record rec;
  table.Append(5, rec.Int(1).Encode());
  REQUIRE_THROWS_WITH(table.Append(5, rec.Encode()), Catch::Contains("internal error"));
}

namespace {

// Rows for PagedTable: `p` (rowid table, an implicit rowid's gaps, a partial index on text) and `w`
// (WITHOUT ROWID, rows given out of key order, an index whose entries end with the key column b
// it lacks), written both through INSERT and as pages.
const char* kPagedSchema =
    "CREATE TABLE p (id INTEGER PRIMARY KEY, k INT NOT NULL, t TEXT, b);"
    "CREATE TABLE q (x, y TEXT);"
    "CREATE TABLE w (a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;"
    "CREATE INDEX p_k ON p(k);"
    "CREATE INDEX p_tb ON p(t, b) WHERE t = 'x' AND b IS NOT NULL;"
    "CREATE INDEX q_y ON q(y, x);"
    "CREATE INDEX w_ca ON w(c, a);";

struct PagedRow {
  int64_t id, k;
  std::string t;  // "" = NULL
  bool b_null;
  int64_t b;
};

void Dump(const std::string& path, std::string& out) {
  Db db = Db::Open(path, false);
  for (const char* sql : {"SELECT id, k, quote(t), quote(b) FROM p ORDER BY rowid",
                          "SELECT rowid, quote(x), hex(y), typeof(y) FROM q ORDER BY rowid",
                          "SELECT a, b, quote(c) FROM w",
                          "SELECT id FROM p INDEXED BY p_k WHERE k > 100 ORDER BY k, id",
                          "SELECT id, hex(t) FROM p INDEXED BY p_tb WHERE t = 'x' AND b IS NOT NULL AND b > -5",
                          "SELECT rowid, hex(y) FROM q INDEXED BY q_y WHERE y > '5' ORDER BY y, x",
                          "SELECT c, a, b FROM w INDEXED BY w_ca WHERE c > 'ccccccccc' ORDER BY c, a",
                          "PRAGMA integrity_check"}) {
    Stmt s = db.Prepare(sql);
    int n = sqlite3_column_count(s.get());
    while (s.Step()) {
      for (int c = 0; c < n; ++c) out += (c ? "|" : "") + s.ColumnText(c);
      out += '\n';
    }
    out += "--\n";
  }
}

}  // namespace

TEST_CASE("btree: PagedTable stores rows and index entries as INSERT does", "[btree]") {
  TempDir dir("tq_paged");
  std::mt19937_64 rng(42);
  std::vector<PagedRow> rows;
  int64_t id = 0;
  for (int i = 0; i < 70000; ++i) {  // p_k's keys pass kRunBytes: several runs to merge
    id += 1 + static_cast<int64_t>(rng() % 4);
    std::string t;
    switch (rng() % 5) {
      case 0: break;
      case 1: t = "x"; break;
      case 2: t = std::string("x\0y", 3); break;
      default: t = "v" + std::to_string(rng() % 100);
    }
    rows.push_back({id, static_cast<int64_t>(rng() % 2000) - 1000, t, rng() % 3 == 0, static_cast<int64_t>(rng() % 20) - 10});
  }
  std::vector<std::pair<int64_t, int64_t>> wkeys;
  for (int64_t a = 0; a < 300; ++a) {
    for (int64_t b = -2; b < 3; ++b) wkeys.emplace_back(a * 7919 % 1000 - 500, b);
  }
  std::shuffle(wkeys.begin(), wkeys.end(), rng);

  // Through SQLite.
  std::string ref = dir / "ref.db";
  {
    Db db = Db::Open(ref, true);
    db.Exec("PRAGMA page_size = 4096");
    db.Exec(kPagedSchema);
    db.Exec("BEGIN");
    Stmt p = db.Prepare("INSERT INTO p VALUES (?,?,?,?)");
    for (const PagedRow& r : rows) {
      p.BindInt(1, r.id);
      p.BindInt(2, r.k);
      if (r.t.empty()) p.BindNull(3); else p.BindText(3, r.t);
      if (r.b_null) p.BindNull(4); else p.BindInt(4, r.b);
      p.Run();
    }
    Stmt q = db.Prepare("INSERT INTO q (y) VALUES (?)");
    for (int i = 0; i < 500; ++i) {
      // An integer into a TEXT column is stored as its text; text with NUL bytes sorts by them.
      if (i % 3) q.BindInt(1, i * 37 % 101); else q.BindTextCopy(1, std::string(i % 2 ? "6\0a" : "6\0", i % 2 ? 3 : 2));
      q.Run();
    }
    Stmt w = db.Prepare("INSERT INTO w VALUES (?,?,?)");
    for (const auto& [a, b] : wkeys) {
      w.BindInt(1, a);
      w.BindInt(2, b);
      w.BindTextCopy(3, std::string(static_cast<size_t>(a % 7 + 7), 'c'));
      w.Run();
    }
    db.Exec("COMMIT");
  }
  // As pages.
  std::string out = dir / "out.db";
  {
    Db db = Db::Open(out, true);
    db.Exec("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF");
    db.Exec(kPagedSchema);
    btree::PageSpill spill(dir.path.string(), 4096, out);
    btree::RunSpill runs(dir.path.string(), out);
    btree::PagedTable p(db, "p", spill, runs), q(db, "q", spill, runs), w(db, "w", spill, runs);
    CHECK(p.indexes() == 2);
    CHECK(w.indexes() == 1);
    std::vector<int> at = p.Positions("k, t, id, b");
    REQUIRE(at == std::vector<int>{1, 2, 0, 3});
    REQUIRE_THROWS_WITH(p.Positions("t, id"), Catch::Contains("column k left out"));
    std::vector<btree::Value> v(4);
    for (const PagedRow& r : rows) {
      v[0] = {btree::Value::kInt, r.id, {}};
      v[1] = {btree::Value::kInt, r.k, {}};
      v[2] = r.t.empty() ? btree::Value{} : btree::Value{btree::Value::kText, 0, r.t};
      v[3] = r.b_null ? btree::Value{} : btree::Value{btree::Value::kInt, r.b, {}};
      p.Add(v.data());
    }
    const std::string nul_a("6\0a", 3), nul("6\0", 2);
    for (int i = 0; i < 500; ++i) {
      v[0] = {};
      v[1] = i % 3 ? btree::Value{btree::Value::kInt, i * 37 % 101, {}} : btree::Value{btree::Value::kText, 0, i % 2 ? nul_a : nul};
      q.Add(v.data());
    }
    std::vector<std::string> texts;
    for (const auto& [a, b] : wkeys) texts.emplace_back(static_cast<size_t>(a % 7 + 7), 'c');
    for (size_t i = 0; i < wkeys.size(); ++i) {
      v[0] = {btree::Value::kInt, wkeys[i].first, {}};
      v[1] = {btree::Value::kInt, wkeys[i].second, {}};
      v[2] = {btree::Value::kText, 0, texts[i]};
      w.Add(v.data());
    }
    std::vector<std::pair<btree::TreeWriter*, uint32_t>> trees;
    p.Finish(trees);
    q.Finish(trees);
    w.Finish(trees);
    CHECK(trees.size() == 7);  // p and its two indexes, q and its index, w and its index
    db.Close();
    btree::PlaceTrees(out, {&spill}, trees, std::numeric_limits<int64_t>::max());
  }
  std::string want, got;
  Dump(ref, want);
  Dump(out, got);
  CHECK(want.find("ok\n--\n") != std::string::npos);
  CHECK(got == want);

  // Rows out of rowid order, NULL in a NOT NULL column: internal errors, not a corrupt table.
  Db db = Db::Open(dir / "bad.db", true);
  db.Exec(kPagedSchema);
  btree::PageSpill spill(dir.path.string(), static_cast<uint32_t>(db.QueryInt("PRAGMA page_size")), "bad.db");
  btree::RunSpill runs(dir.path.string(), "bad.db");
  btree::PagedTable p(db, "p", spill, runs);
  std::vector<btree::Value> v{{btree::Value::kInt, 5, {}}, {btree::Value::kInt, 1, {}}, {}, {}};
  p.Add(v.data());
  REQUIRE_THROWS_WITH(p.Add(v.data()), Catch::Contains("internal error"));
  v[0].i = 6;
  v[1] = {};
  REQUIRE_THROWS_WITH(p.Add(v.data()), Catch::Contains("NULL in p.k"));
}

TEST_CASE("btree: PagedTable with REAL values in index keys (AllowReals) stores them as INSERT does", "[btree]") {
  TempDir dir("tq_paged_reals");
  const char* schema =
      "CREATE TABLE r (id INTEGER PRIMARY KEY, x, y, z);"
      "CREATE TABLE v (a INTEGER NOT NULL, b, PRIMARY KEY (a)) WITHOUT ROWID;"
      "CREATE INDEX r_xy ON r(x, y);"
      "CREATE INDEX v_b ON v(b);";
  // Integers and REALs of equal and neighbouring values (about 2^53, where doubles are sparse),
  // text and NULL in one column; a BLOB in a column of no index.
  std::vector<btree::Value> xs;
  std::vector<std::string> texts{"a", "", "b\x01"};
  for (int64_t i : {int64_t{-3}, int64_t{0}, int64_t{3}, int64_t{9007199254740993}, int64_t{9007199254740992},
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    xs.push_back({btree::Value::kInt, i, {}});
  }
  for (double d : {-3.0, -2.5, 0.5, 3.0, 3.25, 9007199254740992.0, 1e300, -1e300}) {
    int64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    xs.push_back({btree::Value::kReal, bits, {}});
  }
  for (const std::string& t : texts) xs.push_back({btree::Value::kText, 0, t});
  xs.push_back({});
  std::mt19937_64 rng(7);
  std::vector<std::pair<size_t, size_t>> picks;
  for (int i = 0; i < 3000; ++i) picks.emplace_back(rng() % xs.size(), rng() % xs.size());
  const std::string blob("\x00\x01\x02", 3);
  auto bind = [](Stmt& s, int k, const btree::Value& v) {
    double d;
    switch (v.type) {
      case btree::Value::kNull: s.BindNull(k); break;
      case btree::Value::kInt: s.BindInt(k, v.i); break;
      case btree::Value::kReal: std::memcpy(&d, &v.i, sizeof d); s.BindDouble(k, d); break;
      default: s.BindTextCopy(k, v.s);
    }
  };
  std::string ref = dir / "ref.db", out = dir / "out.db";
  {
    Db db = Db::Open(ref, true);
    db.Exec(schema);
    db.Exec("BEGIN");
    Stmt r = db.Prepare("INSERT INTO r (id, x, y, z) VALUES (?,?,?,?)");
    Stmt v = db.Prepare("INSERT INTO v (a, b) VALUES (?,?)");
    for (size_t i = 0; i < picks.size(); ++i) {
      r.BindInt(1, static_cast<int64_t>(i) + 1);
      bind(r, 2, xs[picks[i].first]);
      bind(r, 3, xs[picks[i].second]);
      REQUIRE(sqlite3_bind_blob(r.get(), 4, blob.data(), 3, SQLITE_STATIC) == SQLITE_OK);
      r.Run();
      v.BindInt(1, static_cast<int64_t>(i * 7919 % picks.size()));
      bind(v, 2, xs[picks[i].first]);
      v.Run();
    }
    db.Exec("COMMIT");
  }
  {
    Db db = Db::Open(out, true);
    db.Exec("PRAGMA journal_mode = OFF");
    db.Exec(schema);
    btree::PageSpill spill(dir.path.string(), static_cast<uint32_t>(db.QueryInt("PRAGMA page_size")), out);
    btree::RunSpill runs(dir.path.string(), out);
    btree::PagedTable r(db, "r", spill, runs), v(db, "v", spill, runs);
    std::vector<btree::Value> row(4);
    REQUIRE_THROWS_WITH(r.Add(std::vector<btree::Value>{{btree::Value::kInt, 1, {}}, xs[7], {}, {}}.data()),
                        Catch::Contains("a REAL or BLOB in r.x"));
    btree::PagedTable r2(db, "r", spill, runs);
    r2.AllowReals();
    v.AllowReals();
    for (size_t i = 0; i < picks.size(); ++i) {
      row[0] = {btree::Value::kInt, static_cast<int64_t>(i) + 1, {}};
      row[1] = xs[picks[i].first];
      row[2] = xs[picks[i].second];
      row[3] = {btree::Value::kBlob, 0, blob};
      r2.Add(row.data());
      std::vector<btree::Value> vrow{{btree::Value::kInt, static_cast<int64_t>(i * 7919 % picks.size()), {}},
                                     xs[picks[i].first]};
      v.Add(vrow.data());
    }
    std::vector<std::pair<btree::TreeWriter*, uint32_t>> trees;
    r2.Finish(trees);
    v.Finish(trees);
    db.Close();
    btree::PlaceTrees(out, {&spill}, trees, std::numeric_limits<int64_t>::max());
  }
  auto dump = [](const std::string& path) {
    std::string text;
    Db db = Db::Open(path, false);
    for (const char* sql : {"SELECT id, quote(x), typeof(x), quote(y), typeof(y), hex(z) FROM r ORDER BY rowid",
                            "SELECT a, quote(b), typeof(b) FROM v",
                            "SELECT id, quote(x), quote(y) FROM r INDEXED BY r_xy WHERE x > -1e301 ORDER BY x, y",
                            "SELECT a, quote(b) FROM v INDEXED BY v_b WHERE b >= 0 ORDER BY b",
                            "PRAGMA integrity_check"}) {
      Stmt s = db.Prepare(sql);
      int n = sqlite3_column_count(s.get());
      while (s.Step()) {
        for (int c = 0; c < n; ++c) text += (c ? "|" : "") + s.ColumnText(c);
        text += '\n';
      }
      text += "--\n";
    }
    return text;
  };
  std::string want = dump(ref), got = dump(out);
  CHECK(want.find("ok\n--\n") != std::string::npos);
  CHECK(want.find("real") != std::string::npos);
  CHECK(got == want);
}

TEST_CASE("btree: TableReader reads a table's rows as SQLite does", "[btree]") {
  TempDir dir("tq_table_reader");
  std::string path = dir / "in.db";
  // Every serial type, text past a page (overflow chains), and enough rows for interior levels;
  // page size 1024 so the tree is deep.
  std::mt19937_64 rng(3);
  {
    Db db = Db::Open(path, true);
    db.Exec("PRAGMA page_size = 1024; CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT, c); CREATE TABLE u (x, y)");
    db.Exec("BEGIN");
    Stmt t = db.Prepare("INSERT INTO t VALUES (?,?,?,?)");
    Stmt u = db.Prepare("INSERT INTO u VALUES (?,?)");
    int64_t id = -50;
    for (int i = 0; i < 20000; ++i) {
      id += 1 + static_cast<int64_t>(rng() % 3);
      t.BindInt(1, id);
      int64_t shift = 1 + static_cast<int64_t>(rng() % 63);  // 1..63: every magnitude of a positive int64
      int64_t v = static_cast<int64_t>(rng() >> shift) * (rng() % 2 ? 1 : -1);
      switch (rng() % 5) {
        case 0: t.BindNull(2); break;
        case 1: t.BindInt(2, v); break;
        case 2: t.BindInt(2, static_cast<int64_t>(rng() % 2)); break;
        case 3: t.BindDouble(2, static_cast<double>(v) / 7.0); break;
        default: REQUIRE(sqlite3_bind_blob(t.get(), 2, "\x01\x00\x02", 3, SQLITE_STATIC) == SQLITE_OK);
      }
      t.BindTextCopy(3, std::string(rng() % 50 == 0 ? 3000 + rng() % 5000 : rng() % 40, static_cast<char>('a' + i % 26)));
      if (rng() % 4) t.BindInt(4, i); else t.BindNull(4);
      t.Run();
      if (i % 10 == 0) {
        u.BindInt(1, i);
        u.BindTextCopy(2, std::to_string(i));
        u.Run();
      }
    }
    db.Exec("COMMIT");
  }
  Db db = Db::Open(path, false, true);
  for (const char* table : {"t", "u"}) {
    std::string want, got;
    Stmt s = db.Prepare(fmt::format("SELECT rowid, * FROM {} ORDER BY rowid", table));
    int n = sqlite3_column_count(s.get());
    while (s.Step()) {
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(s.get(), c)) {
          case SQLITE_NULL: want += "N"; break;
          case SQLITE_INTEGER: want += "I" + std::to_string(sqlite3_column_int64(s.get(), c)); break;
          case SQLITE_FLOAT: want += fmt::format("R{}", sqlite3_column_double(s.get(), c)); break;
          case SQLITE_TEXT: want += "T" + s.ColumnText(c); break;
          default: want += "B" + std::string(static_cast<const char*>(sqlite3_column_blob(s.get(), c)),
                                             static_cast<size_t>(sqlite3_column_bytes(s.get(), c)));
        }
        want += '|';
      }
      want += '\n';
    }
    btree::TableReader reader(path, static_cast<uint32_t>(db.QueryInt(
                                        fmt::format("SELECT rootpage FROM sqlite_schema WHERE name = '{}'", table))));
    std::vector<btree::Value> row(static_cast<size_t>(n - 1));
    int64_t rowid = 0;
    bool ipk = std::string(table) == "t";
    while (reader.Next(&rowid, row)) {
      got += "I" + std::to_string(rowid) + "|";
      if (ipk) row[0] = {btree::Value::kInt, rowid, {}};
      for (const btree::Value& v : row) {
        double d;
        switch (v.type) {
          case btree::Value::kNull: got += "N"; break;
          case btree::Value::kInt: got += "I" + std::to_string(v.i); break;
          case btree::Value::kReal: std::memcpy(&d, &v.i, sizeof d); got += fmt::format("R{}", d); break;
          case btree::Value::kText: got += "T" + std::string(v.s); break;
          case btree::Value::kBlob: got += "B" + std::string(v.s); break;
        }
        got += '|';
      }
      got += '\n';
    }
    CHECK(want.size() > 1000);
    CHECK(got == want);
  }
  REQUIRE_THROWS_WITH(btree::TableReader(dir / "missing.db", 2), Catch::Contains("missing.db"));
}
