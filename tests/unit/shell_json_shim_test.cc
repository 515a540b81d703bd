// JsonShim: JSON functions usable from views under trusted_schema=OFF give what SQLite's own give.
#include <catch2/catch.hpp>

#include "shell/json_shim.h"

#include <random>
#include "tracesql/db.h"
#include "tracesql/error.h"

using namespace tracesql;

namespace {
// Every column of every row of sql, as text with its type, one line per row.
std::string Dump(Db& db, const std::string& sql) {
  Stmt s = db.Prepare(sql);
  std::string out;
  while (s.Step()) {
    for (int i = 0; i < sqlite3_column_count(s.get()); ++i) {
      out += std::to_string(sqlite3_column_type(s.get(), i)) + ":" + s.ColumnText(i) + "|";
    }
    out += "\n";
  }
  return out;
}
}  // namespace

TEST_CASE("json shim: same results as the built-in functions, inside views", "[shell][json]") {
  const char* schema =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, j TEXT, k TEXT, v);"
      "INSERT INTO t VALUES (1, '{\"a\":[1,2,{\"b\":null}],\"s\":\"x\\\"y\",\"r\":1.5}', 'k1', 10),"
      " (2, '[true,false,\"q\"]', 'k2', 'text\n\"quoted\"'), (3, '\"str\"', 'k3', 2.25), (4, 'null', NULL, NULL);"
      "CREATE VIEW v AS SELECT id,"
      " json_extract(j, '$.a[1]') AS e1, json_extract(j, '$.a') AS e2, json_extract(j, '$.a[0]', '$.s') AS e3,"
      " j -> '$.a' AS p1, j ->> '$.s' AS p2, j -> '$[2]' AS p3, json_type(j) AS t1, json_type(j, '$.r') AS t2,"
      " json_valid(j) AS ok, json_array_length(j) AS n, json(j) AS norm, json_quote(v) AS q,"
      " json_object('k', k, 'v', v, 'sub', j -> '$.a') AS obj, json_array(v, json('[1]'), k) AS arr,"
      " json_set(j, '$.z', 1) AS st, json_insert(j, '$.a[#]', 9) AS ins, json_replace(j, '$.s', 'new') AS rep,"
      " json_remove(j, '$.a') AS rm, json_patch('{\"a\":1}', '{\"b\":2}') AS pt FROM t;"
      "CREATE VIEW g AS SELECT json_group_array(v) AS ga, json_group_object(coalesce(k, 'nil'), j -> '$') AS go"
      " FROM t;"
      "CREATE VIEW w AS SELECT id, json_group_array(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
      " AS win, json_group_object(coalesce(k, 'nil'), id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS wo FROM t;";
  Db plain = Db::Open(":memory:", true);
  plain.Exec(schema);
  Db safe = Db::Open(":memory:", true);
  safe.Exec(schema);
  sqlite3_db_config(safe.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  auto shim = shell::JsonShim::Install(safe.get());
  for (const char* q : {"SELECT * FROM v ORDER BY id", "SELECT * FROM g", "SELECT * FROM w ORDER BY id",
                        "SELECT json_group_array(x) FROM (SELECT 1 AS x WHERE 0)"}) {
    INFO(q);
    CHECK(Dump(safe, q) == Dump(plain, q));
  }
  // A NULL key: SQLite 3.40 writes nothing (`{:4}`, not JSON); the shim writes "".
  CHECK(Dump(safe, "SELECT json_group_object(NULL, 4)") == "3:{\"\":4}|\n");
  // Errors come through with SQLite's message.
  CHECK_THROWS_WITH(Dump(safe, "SELECT json_extract('{bad', '$')"), Catch::Contains("malformed JSON"));
  CHECK_THROWS_WITH(Dump(safe, "SELECT json_group_array(x'00')"), Catch::Contains("JSON cannot hold BLOB values"));
}

TEST_CASE("json shim: json_object answered in place gives what SQLite gives", "[shell][json]") {
  const char* schema =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, k, v);"
      "INSERT INTO t VALUES (1, 'a', 42), (2, 'q\"uote', 'x\\y\"z'), (3, 'ctl', char(1, 9, 10, 13, 31) || 'e'),"
      " (4, 'uni', 'caf\u00e9 \u6f22 \U0001F600'), (5, 'n', NULL), (6, 'neg', -9223372036854775808),"
      " (7, 'real', 2.5), (8, 'empty', ''), (9, 7, 1);"
      "CREATE VIEW v AS SELECT id, json_object(k, v) AS one, json_object('id', id, k, v, 'j', json('[1, 2]')) AS mixed,"
      " json_object() AS none, json_object('a', 1, 'a', 2) AS dup FROM t WHERE typeof(k) = 'text';";
  Db plain = Db::Open(":memory:", true);
  plain.Exec(schema);
  Db safe = Db::Open(":memory:", true);
  safe.Exec(schema);
  sqlite3_db_config(safe.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  auto shim = shell::JsonShim::Install(safe.get());
  const char* q = "SELECT id, one, mixed, none, dup, json_valid(one) FROM v ORDER BY id";
  CHECK(Dump(safe, q) == Dump(plain, q));
  // Errors (a label that is not text, an odd number of arguments, a blob) keep SQLite's messages.
  CHECK_THROWS_WITH(Dump(safe, "SELECT json_object(k, v) FROM t WHERE id = 9"), Catch::Contains("must be TEXT"));
  CHECK_THROWS_WITH(Dump(safe, "SELECT json_object('a')"), Catch::Contains("even number"));
  CHECK_THROWS_WITH(Dump(safe, "SELECT json_object('a', x'00')"), Catch::Contains("BLOB"));
}

TEST_CASE("json shim: needed exactly when SQLite refuses its own JSON functions in views", "[shell][json]") {
  Db db = Db::Open(":memory:", true);
  db.Exec("CREATE VIEW v AS SELECT json_extract('{\"a\":1}', '$.a') AS a");
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  bool refused = false;
  try {
    Dump(db, "SELECT a FROM v");
  } catch (const Error&) {
    refused = true;
  }
  CHECK(refused == shell::JsonShim::Needed());
}

namespace {
// A random minified JSON value (depth-limited); sometimes with escapes, big or real numbers.
std::string RandomJson(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  switch (pick(depth > 2 ? 6 : 8)) {
    case 0: {
      static const char* kInts[] = {"0", "-0", "7", "-12", "9223372036854775807", "-9223372036854775808",
                                    "9223372036854775808", "123456789012345678901234567890", "42"};
      return kInts[pick(9)];
    }
    case 1: {
      static const char* kReals[] = {"0.5", "-1.25e-3", "1E10", "3.0", "1e400", "0.1", "2e+2"};
      return kReals[pick(7)];
    }
    case 2: {
      static const char* kStrings[] = {"\"\"", "\"abc\"", "\"a\\\"b\"", "\"line\\nbreak\"", "\"\\u00e9t\\u00E9\"",
                                       "\"sl\\/ash\"", "\"aten::mm\"", "\"\xC3\xA9\"", "\"\\ud83d\\ude42\""};
      return kStrings[pick(9)];
    }
    case 3: return "true";
    case 4: return "false";
    case 5: return "null";
    case 6: {
      std::string out = "[";
      int n = pick(4);
      for (int i = 0; i < n; ++i) out += (i ? "," : "") + RandomJson(rng, depth + 1);
      return out + "]";
    }
    default: {
      std::string out = "{";
      int n = pick(3);
      for (int i = 0; i < n; ++i) out += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + RandomJson(rng, depth + 1);
      return out + "}";
    }
  }
}

// Each call's result as "type:text:subtype", or "error:message".
std::string Call(Db& db, const std::string& sql, const std::string& doc, const std::string& path) {
  Stmt s = db.Prepare(sql);
  s.BindTextCopy(1, doc);
  s.BindTextCopy(2, path);
  try {
    if (!s.Step()) return "no row";
  } catch (const Error& e) {
    return std::string("error:") + e.what();
  }
  sqlite3_value* v = sqlite3_column_value(s.get(), 0);
  return std::to_string(sqlite3_value_type(v)) + ":" + s.ColumnText(0) + ":" +
         std::to_string(sqlite3_value_subtype(v));
}
}  // namespace

TEST_CASE("json shim: the $[N] fast path agrees with SQLite on random arrays", "[shell][json]") {
  Db plain = Db::Open(":memory:", true);
  Db safe = Db::Open(":memory:", true);
  auto shim = shell::JsonShim::Install(safe.get());
  std::mt19937 rng(20240501);
  std::vector<std::string> docs = {"[]", "[1,2", "[1,]", "[01]", "[1, 2]", " [1]", "[1]x", "{\"a\":1}", "\"s\"",
                                   "[\"a\\x\"]", "[\"tab\there\"]", "[tru]", "[-]", "[1.]", "[.5]", "[1e]"};
  for (int i = 0; i < 400; ++i) {
    std::string d = "[";
    int n = static_cast<int>(rng() % 6);
    for (int k = 0; k < n; ++k) d += (k ? "," : "") + RandomJson(rng, 1);
    docs.push_back(d + "]");
  }
  // The calls the views make, wrapped so that the outer value keeps what the inner returned.
  // event_args cuts each value's exact text out of a two-path json_extract and marks it with json().
  const char* kCalls[] = {"SELECT json_extract(?1, ?2)", "SELECT json_type(?1, ?2)", "SELECT ?1 -> ?2",
                          "SELECT ?1 ->> ?2", "SELECT json_object('x', ?1 -> ?2)",
                          "SELECT json_extract(?1, ?2, '$[2147483647]')", "SELECT json_extract(?1, '$[1]', ?2, ?2)",
                          ("SELECT json_object('x', json(substr(substr(json_extract(?1, ?2, '$[2147483647]'), -6, "
                           "-2147483647), 2)))"),
                          "SELECT json(?1), ?2", "SELECT json_object('x', json(?1)), ?2"};
  for (const auto& doc : docs) {
    for (int idx = 0; idx < 7; ++idx) {
      std::string path = "$[" + std::to_string(idx) + "]";
      for (const char* call : kCalls) {
        INFO(call << " doc=" << doc << " path=" << path);
        CHECK(Call(safe, call, doc, path) == Call(plain, call, doc, path));
      }
    }
  }
}
