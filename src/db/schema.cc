#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

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

namespace {

// How a view file is created in this mode.
struct ViewFile {
  std::string_view path;
  std::string text;
  std::string name;       // the view's name
  bool table = false;     // materialised into a table
  bool computed = false;  // "-- @computed": the importer fills the table itself
  std::string ddl;        // "-- @table CREATE TABLE ...": the table's own DDL (else CREATE TABLE AS)
};

ViewFile Classify(const EmbeddedFile& f, bool materialize) {
  ViewFile v{f.path, std::string(f.text), {}, false, false, {}};
  // "-- @materialize always": a table even with materialize off (the views read it per row).
  bool marked = v.text.find("\n-- @materialize") != std::string::npos;
  bool always = v.text.find("\n-- @materialize always") != std::string::npos;
  v.table = marked && (materialize || always);
  size_t at = v.text.find("CREATE VIEW ");
  if (at != std::string::npos) {
    size_t b = at + 12, e = v.text.find_first_of(" \n", b);
    v.name = v.text.substr(b, e - b);
  }
  if (v.table && at == std::string::npos) Errorf("{}: @materialize without CREATE VIEW", f.path);
  v.computed = v.table && v.text.find("\n-- @computed") != std::string::npos;
  const std::string marker = "\n-- @table ";
  if (size_t t = v.text.find(marker); v.computed && t != std::string::npos) {
    size_t b = t + marker.size();
    v.ddl = v.text.substr(b, v.text.find('\n', b) - b);
  }
  return v;
}

// The statements of a view file's "-- @index ..." lines.
std::vector<std::string> IndexLines(const std::string& text) {
  std::vector<std::string> out;
  const std::string marker = "\n-- @index ";
  for (size_t pos = 0; (pos = text.find(marker, pos)) != std::string::npos;) {
    size_t start = pos + marker.size();
    size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    pos = start;
  }
  return out;
}

void CreateAsTable(Db& db, ViewFile& v) {
  std::string text = v.text;
  text.replace(text.find("CREATE VIEW "), 12, "CREATE TABLE ");
  db.Exec(text, v.path);
}

}  // namespace

bool IsMaterializedView(std::string_view name) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : EmbeddedFilesUnder("sql/views/")) {
      ViewFile v = Classify(f, /*materialize=*/true);
      if (v.table) out.push_back(v.name);
    }
    return out;
  }();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool ComputedViews::Has(std::string_view name) const {
  return std::find(tables.begin(), tables.end(), name) != tables.end();
}

ComputedViews CreateComputedTables(Db& db, bool materialize) {
  ComputedViews out;
  std::vector<ViewFile> files;
  for (const auto& f : EmbeddedFilesUnder("sql/views/")) {
    files.push_back(Classify(f, materialize));
    if (files.back().computed) out.tables.push_back(files.back().name);
  }
  if (out.tables.empty()) return out;
  // On empty tables every view file runs at once: the columns (and their affinities) come from the SQL.
  Db mem = Db::Open(":memory:", /*create=*/true);
  CreateSchema(mem);
  for (auto& v : files) {
    if (!v.ddl.empty()) {
      mem.Exec(v.ddl, v.path);
    } else if (v.table) {
      CreateAsTable(mem, v);
    } else {
      mem.Exec(v.text, v.path);
    }
  }
  // Their indexes come with them, before any row: the importer writes rows and index entries as
  // pages itself (ImportPages), so no index is built here.
  Stmt s = mem.Prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?");
  for (const auto& v : files) {
    if (!v.computed) continue;
    s.BindText(1, v.name);
    if (!s.Step()) Errorf("sql/views: computed table {} was not created", v.name);
    db.Exec(s.ColumnText(0));
    s.Reset();
    for (const std::string& index : IndexLines(v.text)) db.Exec(index, v.path);
  }
  return out;
}

std::vector<std::pair<std::string, double>> CreateViews(Db& db, bool materialize, const ComputedViews* computed) {
  std::vector<std::pair<std::string, double>> times;
  // A view file marked "-- @materialize" becomes a table built from the same SELECT, plus the indexes
  // listed in its "-- @index ..." lines; otherwise it is created as written (a plain view).
  for (const auto& f : EmbeddedFilesUnder("sql/views/")) {
    auto t0 = std::chrono::steady_clock::now();
    ViewFile v = Classify(f, materialize);
    if (!v.table) {
      db.Exec(v.text, f.path);
    } else {
      if (computed && computed->Has(v.name)) {
        // Filled by the importer; traces it left to the SQL get the view's rows here.
        auto left = computed->sql_traces.find(v.name);
        if (left != computed->sql_traces.end() && !left->second.empty()) {
          // The SELECT runs once for all of them (it reads every trace's rows whatever the filter:
          // once per trace made a 19-trace import take 76 s); its rows go in by trace, each trace's
          // in the order the SELECT gave them.
          std::string text = v.text;
          text.replace(text.find("CREATE VIEW " + v.name), 12 + v.name.size(), "CREATE TEMP VIEW tq_sql_" + v.name);
          db.Exec(text, f.path);
          std::string ids;
          for (int64_t t : left->second) ids += fmt::format("{}{}", ids.empty() ? "" : ",", t);
          db.Exec(fmt::format(
              "CREATE TEMP TABLE tq_rows_{0} AS SELECT * FROM tq_sql_{0} WHERE trace_id IN ({1});"
              " INSERT INTO main.{0} SELECT * FROM tq_rows_{0} ORDER BY trace_id, rowid;"
              " DROP TABLE tq_rows_{0}; DROP VIEW tq_sql_{0};",
              v.name, ids));
        }
      } else {
        CreateAsTable(db, v);
      }
      // A computed table got its indexes with it (CreateComputedTables).
      if (!(computed && computed->Has(v.name))) {
        for (const std::string& index : IndexLines(v.text)) db.Exec(index, f.path);
      }
    }
    times.emplace_back(std::string(f.path.substr(f.path.rfind('/') + 1)),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  auto t0 = std::chrono::steady_clock::now();
  FillShortNames(db);
  times.emplace_back("short_names", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return times;
}

}  // namespace tracesql
