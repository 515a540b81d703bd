// Named SQL files (bundled queries, advise rules): those embedded at build time under a prefix
// ("queries/", "rules/") and a user's directories of NAME.sql files, which shadow them by name.
#ifndef TRACESQL_SQL_FILES_H_
#define TRACESQL_SQL_FILES_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tracesql {

struct SqlFileSource {
  std::string name;              // file name without .sql
  std::string text;              // the whole file
  std::string path;              // the user's file, or the embedded path ("rules/NAME.sql")
  bool builtin = false;          // embedded in the binary
  bool shadows_builtin = false;  // a user's file with the name of an embedded one
};

// The file's text; throws tracesql::Error "PATH: cannot read WHAT file" (what: "query", "rule").
std::string ReadSqlText(const std::filesystem::path& path, std::string_view what);

// The embedded NAME.sql files directly under prefix, in name order.
std::vector<SqlFileSource> BundledSqlFiles(std::string_view prefix);

// Every name once, in name order: for each name the first of dirs holding NAME.sql wins (missing
// directories are skipped), else the embedded file under prefix. Throws when a user file cannot be
// read.
std::vector<SqlFileSource> ListSqlFiles(const std::vector<std::string>& dirs, std::string_view prefix,
                                        std::string_view what);

}  // namespace tracesql

#endif  // TRACESQL_SQL_FILES_H_
