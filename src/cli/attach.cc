// --attach [ALIAS=]PATH and --against PATH: more databases on the connection of query / run / shell.
#include <fmt/ranges.h>
#include <sqlite3.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "tracesql/cli.h"
#include "tracesql/error.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "file:" URI of a path, so that SQLite opens it read-only (mode=ro): every byte outside the
// unreserved set and '/' is percent-encoded.
std::string ReadOnlyUri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri + "?mode=ro";
}

std::string QuoteId(const std::string& s) { return "\"" + s + "\""; }

// The first column of every row of sql.
std::vector<std::string> Column(UserDb& db, const char* sql) {
  std::vector<std::string> out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql, -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  }
  sqlite3_finalize(st);
  return out;
}

void AttachOne(UserDb& db, const std::string& alias, const std::string& path, bool any_db, const char* flag) {
  // The same checks as the main database, with the same messages naming the file.
  try {
    UserDb::Open(path, any_db);
  } catch (const Error& e) {
    Errorf("{}: {}", flag, e.what());
  }
  if (!sqlite3_compileoption_used("USE_URI")) {
    Errorf("{} {}: this SQLite cannot open a database read-only by URI", flag, path);
  }
  sqlite3* h = db.get();
  sqlite3_stmt* st = nullptr;
  std::string sql = "ATTACH ?1 AS " + QuoteId(alias);
  int rc = sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    std::string uri = ReadOnlyUri(path);
    sqlite3_bind_text(st, 1, uri.c_str(), -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  std::string msg = rc == SQLITE_OK ? "" : sqlite3_errmsg(h);
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) Errorf("{} {}: cannot attach as '{}': {}", flag, path, alias, msg);
  if (sqlite3_db_readonly(h, alias.c_str()) != 1) {
    Errorf("{} {}: attached as '{}' but not read-only", flag, path, alias);
  }
}

}  // namespace

void AttachDatabases(UserDb& db, const std::vector<std::string>& attach, const std::string& against, bool any_db) {
  std::set<std::string> used = {"main", "temp"};
  struct Spec {
    std::string alias, path;
  };
  std::vector<Spec> specs;
  std::vector<size_t> unnamed;
  if (!against.empty()) used.insert("b");
  for (const auto& a : attach) {
    size_t eq = a.find('=');
    Spec s;
    if (eq != std::string::npos && IsIdentifier(a.substr(0, eq))) {
      s.alias = a.substr(0, eq);
      s.path = a.substr(eq + 1);
      if (!used.insert(Lower(s.alias)).second) {
        Errorf("--attach {}: the name '{}' is taken ({})", a, s.alias,
               s.alias == "b" && !against.empty() ? "--against attaches as b" : "main, temp, or given twice");
      }
    } else {
      s.path = a;
      unnamed.push_back(specs.size());
    }
    if (s.path.empty()) Errorf("--attach '{}': no database file given", a);
    specs.push_back(s);
  }
  // Unnamed databases are b, c, d, ... in order, skipping names already taken.
  char next = 'b';
  for (size_t i : unnamed) {
    while (next <= 'z' && used.count(std::string(1, next))) ++next;
    if (next > 'z') Errorf("--attach {}: too many databases without a name", specs[i].path);
    specs[i].alias = std::string(1, next);
    used.insert(specs[i].alias);
  }
  if (!against.empty()) {
    AttachOne(db, "b", against, any_db, "--against");
    // Every table and view of b gets a temporary view of the same name: unqualified names read b,
    // main.NAME still reads the database given first.
    std::vector<std::string> names = Column(
        db, "SELECT name FROM b.sqlite_schema WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    // A table or view of the first database that b lacks (b was imported by an older tracesql)
    // would be read from the first database under b's name: a wrong answer, so refuse.
    std::vector<std::string> missing = Column(
        db, "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
            "AND name NOT IN (SELECT name FROM b.sqlite_schema) ORDER BY name");
    if (!missing.empty()) {
      Errorf("--against {}: it has no {} (the other database has): it was imported by another version of "
             "tracesql; import its trace again",
             against, fmt::join(missing, ", "));
    }
    for (const auto& n : names) {
      std::string q;
      for (char c : n) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      std::string sql = "CREATE TEMP VIEW \"" + q + "\" AS SELECT * FROM b.\"" + q + "\"";
      char* err = nullptr;
      if (sqlite3_exec(db.get(), sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        Errorf("--against {}: cannot point '{}' at it: {}", against, n, msg);
      }
    }
  }
  for (const auto& s : specs) AttachOne(db, s.alias, s.path, any_db, "--attach");
}

}  // namespace tracesql::cli
