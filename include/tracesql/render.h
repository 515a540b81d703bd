// Rendering query results: csv, tsv, json, jsonl, markdown, box, table, line.
#ifndef TRACESQL_RENDER_H_
#define TRACESQL_RENDER_H_

#include <sqlite3.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace tracesql {

enum class OutputMode { kBox, kTable, kCsv, kTsv, kJson, kJsonl, kMarkdown, kLine };

std::optional<OutputMode> ParseOutputMode(std::string_view name);
std::string_view OutputModeName(OutputMode mode);

struct RenderOptions {
  OutputMode mode = OutputMode::kBox;
  bool header = true;
  std::string null_text;  // how NULL is shown in box/table/markdown/line modes
};

// Steps stmt to completion, writing every row. Returns the number of rows.
// Throws tracesql::Error on a SQLite error.
int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& options, std::string& out);

// Formats a double in shortest round-trip form ("0.5", "31.030304", "1e-05").
std::string FormatDouble(double v);

}  // namespace tracesql

#endif  // TRACESQL_RENDER_H_
