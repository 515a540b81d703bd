// Rendering query results: csv, tsv, json, jsonl, markdown, box, table, line, folded.
// The renderer knows nothing about the shell: `tracesql query --format json` and `.mode json` run the
// same code.
#ifndef TRACESQL_RENDER_H_
#define TRACESQL_RENDER_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace tracesql {

enum class OutputMode { kBox, kTable, kCsv, kTsv, kJson, kJsonl, kMarkdown, kLine, kBar, kFolded, kTrace };

// One row per output mode: its name and what it writes. `.help`, `--help` and docs iterate this.
struct OutputModeInfo {
  OutputMode mode;
  std::string_view name;
  std::string_view description;
};
inline constexpr OutputModeInfo kOutputModes[] = {
    {OutputMode::kBox, "box", "boxed table drawn with Unicode lines (default on a terminal)"},
    {OutputMode::kTable, "table", "boxed table drawn with ASCII +-|"},
    {OutputMode::kCsv, "csv", "comma-separated values, RFC 4180 quoting, header row"},
    {OutputMode::kTsv, "tsv", "tab-separated values, header row"},
    {OutputMode::kJson, "json", "one JSON array of objects (blobs as base64)"},
    {OutputMode::kJsonl, "jsonl", "one JSON object per line"},
    {OutputMode::kMarkdown, "markdown", "GitHub-flavoured Markdown table"},
    {OutputMode::kLine, "line", "one 'column = value' line per column, blank line between rows"},
    {OutputMode::kBar, "bar", "horizontal bars of the last numeric column (a sparkline per series for a time series)"},
    {OutputMode::kFolded, "folded",
     "a row's values joined by spaces, no header, no quoting: folded stacks ('a;b;c 42') for flamegraph.pl"},
    {OutputMode::kTrace, "trace", "Chrome-trace JSON for ui.perfetto.dev: needs ts and dur (ns); name, cat, track, args"},
};

// "box" -> kBox, ... ("md" is accepted for markdown). nullopt for an unknown name.
std::optional<OutputMode> ParseOutputMode(std::string_view name);
std::string_view OutputModeName(OutputMode mode);
// "box, table, csv, tsv, json, jsonl, markdown, line": for error messages and help.
std::string OutputModeList();

struct RenderOptions {
  OutputMode mode = OutputMode::kBox;
  bool header = true;
  // How NULL is shown in every mode but json/jsonl (which write null). Empty by default.
  std::string null_text;
  // box/table only: when > 0, wide columns are truncated (ending in "…") so that every line fits in
  // this many terminal columns. 0 means no limit. bar: the line width (80 when 0).
  size_t max_width = 0;
  // bar: draw with ASCII ('#', '|') instead of Unicode blocks (a terminal that is not UTF-8).
  bool ascii = false;
};

// Whether the locale (LC_ALL, else LC_CTYPE, else LANG) says UTF-8: bar mode draws Unicode blocks then.
bool LocaleIsUtf8();

// Steps stmt to completion, appending every row to out. Returns the number of rows.
// Throws tracesql::Error on a SQLite error (its message is sqlite3_errmsg).
int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& options, std::string& out);

// As above, but writes to file as it goes (csv, tsv, json, jsonl and line stream row by row; box,
// table and markdown need every row to size their columns). Throws tracesql::Error on a SQLite error;
// what was written before the error stays written.
int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& options, std::FILE* file);

// JSON string literal of text. Always valid JSON: control characters are escaped and bytes that are
// not UTF-8 become U+FFFD.
std::string JsonString(std::string_view s);

// A result column's value as the json format writes it: null, a number, a string, a blob as base64.
std::string ColumnJson(sqlite3_stmt* stmt, int col);

// Formats a double in shortest round-trip form ("0.5", "31.030304", "1e-05").
std::string FormatDouble(double v);

// Standard base64 (RFC 4648, with padding) of bytes.
std::string Base64(std::string_view bytes);

// Terminal columns taken by UTF-8 text: wide East Asian characters and emoji count 2, combining
// marks 0, other code points 1. Invalid bytes count 1 each.
size_t DisplayWidth(std::string_view text);

// Cuts text to at most width terminal columns, ending in "…" when something was cut.
std::string TruncateToWidth(std::string_view text, size_t width);

}  // namespace tracesql

#endif  // TRACESQL_RENDER_H_
