// Named SQL parameters (`:limit`), set with `-p limit=10`, `.run NAME limit=10` or `.param set`.
#ifndef TRACESQL_PARAMS_H_
#define TRACESQL_PARAMS_H_

#include <sqlite3.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>
#include <string_view>
#include <utility>

namespace tracesql {

// Parameter name (without its ':', '@' or '$') -> value as the user wrote it.
using Params = std::map<std::string, std::string, std::less<>>;

// How a parameter value is bound: "20" as an integer, "0.5" / "1e3" as a real, "'42'" as the text 42
// (quotes removed), anything else as text.
enum class ParamKind { kInteger, kReal, kText };
ParamKind ClassifyParamValue(std::string_view value);

// True for a parameter name: a letter or '_', then letters, digits or '_'.
bool IsParamName(std::string_view name);

// Parses "key=value" as given to -p or .run; a leading ':' , '@' or '$' on key is dropped. Throws
// tracesql::Error ("bad parameter 'x': expected key=value") for a missing '=' or a bad key.
std::pair<std::string, std::string> ParseParamAssignment(std::string_view arg);

// Binds each named parameter of stmt (":name", "@name", "$name") that params holds; the others stay
// NULL, so queries write coalesce(:limit, 20). Throws tracesql::Error when SQLite refuses a bind.
// Returns the parameters bound as text although they were not quoted (":limit = 'abc'"), for an
// error message to point at when SQLite then finds text where it needs a number.
std::vector<std::string> BindParams(sqlite3_stmt* stmt, const Params& params);

// Names of the named parameters the SQL text uses (":limit" -> "limit"), found by a lexical scan that
// skips string literals, quoted identifiers and comments. E.g. "SELECT ':x', :y -- :z" -> {"y"}.
std::set<std::string> ReferencedParams(std::string_view sql);

// Throws tracesql::Error when given sets a parameter that is not in known (a typo would otherwise
// silently leave the real one NULL): "top_kernels has no parameter :limt (it takes :limit)".
void CheckParamsKnown(const Params& given, const std::set<std::string>& known, std::string_view what);

}  // namespace tracesql

#endif  // TRACESQL_PARAMS_H_
