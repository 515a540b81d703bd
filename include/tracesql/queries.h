// Saved queries: the bundled ones (queries/*.sql, embedded at build time) and the user's own.
//
// A query file is plain SQL with a header of comment lines:
//   -- name: top_kernels
//   -- description: Kernels with the largest total GPU time.
//   -- param :limit 20 (integer) — number of rows
//   -- param :sort total {total|count|avg} — order of the rows
// A param line is ":NAME", an optional default (one word or a 'quoted string'; documentation only: the
// SQL applies it with coalesce), an optional kind, then the meaning after an em dash, "--" or "-". The
// kind is "(integer)", "(number)" or "{a|b|...}" (the allowed values); a value given for the parameter
// that is not of its kind is an error (CheckParamValues). Without a kind any value is taken.
//   -- format: folded        (optional: the output format `tracesql run` uses when --format is not given)
// Its name is the file name without ".sql". A user file shadows a bundled one of the same name.
#ifndef TRACESQL_QUERIES_H_
#define TRACESQL_QUERIES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/params.h"

namespace tracesql {

struct QueryParamDoc {
  enum class Kind { kAny, kInteger, kNumber, kChoice };
  std::string name;           // without ':'
  std::string default_value;  // as written in the header ("20"); empty when none is given
  Kind kind = Kind::kAny;
  std::vector<std::string> choices;  // the allowed values, for kChoice
  std::string meaning;
  // What values the parameter takes, for messages and listings: "an integer", "one of total, count, avg".
  std::string KindText() const;
};

struct QueryFile {
  std::string name;         // file name without .sql
  std::string description;  // from "-- description:"; empty when absent
  std::vector<QueryParamDoc> params;
  std::string format;       // from "-- format:" (an output mode name); empty when absent
  std::string text;         // the whole file
  bool builtin = false;     // embedded in the binary
  std::string path;         // the file for a user query; "queries/NAME.sql" for a bundled one
  bool shadows_builtin = false;  // a user query with the name of a bundled one
  // Where the query comes from, for listings and error messages: "builtin:NAME" or the path.
  std::string Source() const { return builtin ? "builtin:" + name : path; }
};

// Reads the header comment lines at the top of text into q (description, params, format; "-- name:" is
// checked by tests, not used: the file name is the name). Lines that are not header keys are ignored.
void ParseQueryHeader(std::string_view text, QueryFile* q);

// Throws tracesql::Error when a value in given does not fit the kind its parameter declares in q's
// header: "op_summary: :sort cannot be bogus (expected one of cpu_total, cpu_self, gpu_sum, gpu_union, calls)".
// A quoted value ('42') is text: it fits a choice of that text, never (integer) or (number).
void CheckParamValues(const QueryFile& q, const Params& given);

// The user query directories, in search order: cli_dirs (--queries-dir), then $TRACESQL_QUERIES
// (colon-separated), then ${XDG_CONFIG_HOME:-$HOME/.config}/tracesql/queries. Directories that do
// not exist are kept (listing skips them).
std::vector<std::string> UserQueryDirs(const std::vector<std::string>& cli_dirs);

// Every query, sorted by name: for each name the first user directory holding NAME.sql wins, then the
// bundled query of that name. Throws tracesql::Error when a user query file cannot be read.
std::vector<QueryFile> ListQueries(const std::vector<std::string>& user_dirs);

// Resolves name: an explicit path (containing '/' or ending in ".sql") is read as is; otherwise the
// user directories in order, then the bundle. nullopt when nothing matches; throws tracesql::Error when
// an explicit path cannot be read.
std::optional<QueryFile> FindQuery(std::string_view name, const std::vector<std::string>& user_dirs);

// The name of a query (ListQueries) that name is likely a misspelling of, for a "did you mean" hint:
// the closest by edit distance (letters added, dropped, changed or swapped; case ignored) within a
// third of name's length (at least 1, at most 3), else the one query name starts with; empty when
// none is close, or when two are equally close.
std::string ClosestQueryName(std::string_view name, const std::vector<std::string>& user_dirs);

}  // namespace tracesql

#endif  // TRACESQL_QUERIES_H_
