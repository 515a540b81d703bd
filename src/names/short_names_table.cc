// Fills the short_names table (sql/schema/120_short_names.sql) through a SQL function registered on
// the importing connection only: stock sqlite3 has no such function, so the result is stored.
#include <sqlite3.h>

#include <string>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/short_name.h"

namespace tracesql {
namespace {

void ShortNameFunction(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  const unsigned char* text = sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  std::string s = ShortName(std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(n)));
  sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

}  // namespace

void FillShortNames(Db& db) {
  constexpr const char* kFunction = "tq_short_name";
  if (sqlite3_create_function(db.get(), kFunction, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                              ShortNameFunction, nullptr, nullptr) != SQLITE_OK) {
    Errorf("cannot register {}: {}", kFunction, sqlite3_errmsg(db.get()));
  }
  db.Exec("INSERT OR IGNORE INTO short_names (name, short_name) "
          "SELECT name, tq_short_name(name) FROM gpu_op_names WHERE name IS NOT NULL ORDER BY name",
          "short_names");
  sqlite3_create_function(db.get(), kFunction, 1, SQLITE_UTF8, nullptr, nullptr, nullptr, nullptr);
}

}  // namespace tracesql
