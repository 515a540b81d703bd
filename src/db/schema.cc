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

void CreateViews(Db& db) { ExecAll(db, "sql/views/"); }

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
