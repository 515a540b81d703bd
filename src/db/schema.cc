#include <string>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"

namespace tracesql {

std::vector<EmbeddedFile> EmbeddedFilesUnder(std::string_view prefix) {
  std::vector<EmbeddedFile> out;
  for (const auto& f : EmbeddedFiles()) {
    if (f.path.substr(0, prefix.size()) == prefix) out.push_back(f);
  }
  return out;
}

namespace {
void ExecAll(Db& db, std::string_view prefix) {
  for (const auto& f : EmbeddedFilesUnder(prefix)) db.Exec(f.text, f.path);
}
}  // namespace

void CreateSchema(Db& db) {
  ExecAll(db, "sql/schema/");
  db.Exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {};", kApplicationId, kSchemaVersion));
}

void CreateIndexes(Db& db) { ExecAll(db, "sql/indexes/"); }

void CreateViews(Db& db, bool materialize) {
  // A view file marked "-- @materialize" becomes a table built from the same SELECT, plus the indexes
  // listed in its "-- @index ..." lines; otherwise it is created as written (a plain view).
  for (const auto& f : EmbeddedFilesUnder("sql/views/")) {
    std::string text(f.text);
    if (!materialize || text.find("\n-- @materialize") == std::string::npos) {
      db.Exec(text, f.path);
      continue;
    }
    size_t at = text.find("CREATE VIEW ");
    if (at == std::string::npos) Errorf("{}: @materialize without CREATE VIEW", f.path);
    text.replace(at, 12, "CREATE TABLE ");
    db.Exec(text, f.path);
    size_t pos = 0;
    const std::string marker = "\n-- @index ";
    while ((pos = text.find(marker, pos)) != std::string::npos) {
      size_t start = pos + marker.size();
      size_t end = text.find('\n', start);
      db.Exec(text.substr(start, end == std::string::npos ? std::string::npos : end - start), f.path);
      pos = start;
    }
  }
}

void CheckDatabase(Db& db, const std::string& path) {
  int64_t app = db.QueryInt("PRAGMA application_id");
  int64_t version = db.QueryInt("PRAGMA user_version");
  if (app != kApplicationId) {
    Errorf("{}: not a tracesql database (application_id {}); import a trace with `tracesql import`", path, app);
  }
  if (version > kSchemaVersion) {
    Errorf("{}: database schema version {} is newer than this tracesql supports ({}); upgrade tracesql", path,
           version, kSchemaVersion);
  }
}

}  // namespace tracesql
