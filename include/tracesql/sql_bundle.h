// SQL files embedded at build time (sql/**.sql, queries/*.sql), keyed by repo-relative path.
#ifndef TRACESQL_SQL_BUNDLE_H_
#define TRACESQL_SQL_BUNDLE_H_

#include <string_view>
#include <vector>

namespace tracesql {

struct EmbeddedFile {
  std::string_view path;  // e.g. "sql/schema/010_traces.sql"
  std::string_view text;
};

// Every embedded file, sorted by path.
const std::vector<EmbeddedFile>& EmbeddedFiles();

// Files whose path starts with prefix, in path order.
std::vector<EmbeddedFile> EmbeddedFilesUnder(std::string_view prefix);

}  // namespace tracesql

#endif  // TRACESQL_SQL_BUNDLE_H_
