#include <chrono>
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

std::vector<std::pair<std::string, double>> CreateViews(Db& db, bool materialize) {
  std::vector<std::pair<std::string, double>> times;
  // A view file marked "-- @materialize" becomes a table built from the same SELECT, plus the indexes
  // listed in its "-- @index ..." lines; otherwise it is created as written (a plain view).
  for (const auto& f : EmbeddedFilesUnder("sql/views/")) {
    auto t0 = std::chrono::steady_clock::now();
    std::string text(f.text);
    // "-- @materialize always": a table even with materialize off (the views read it per row).
    bool marked = text.find("\n-- @materialize") != std::string::npos;
    bool always = text.find("\n-- @materialize always") != std::string::npos;
    if (!marked || (!materialize && !always)) {
      db.Exec(text, f.path);
    } else {
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
    times.emplace_back(std::string(f.path.substr(f.path.rfind('/') + 1)),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return times;
}

}  // namespace tracesql
