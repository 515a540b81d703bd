// Tab completion for the shell: dot-commands, query names, table / view / column names, keywords.
#ifndef TRACESQL_SHELL_COMPLETION_H_
#define TRACESQL_SHELL_COMPLETION_H_

#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

namespace tracesql::shell {

struct CompletionSources {
  sqlite3* db = nullptr;                    // tables, views and their columns come from here
  std::vector<std::string> dot_commands;    // without the leading '.'
  std::vector<std::string> query_names;     // for .run / .show
  std::vector<std::string> rule_names;      // for .advise
  bool at_statement_start = true;           // no SQL is pending from earlier lines
};

// Candidates for the word ending at the end of line (the text before the cursor), sorted and unique.
// *word_start receives the offset of that word in line. Examples:
//   ".he"                 -> {".headers", ".help"}
//   ".run top_"           -> {"top_kernels", "top_ops"}
//   "SELECT * FROM eve"   -> {"events"}
//   "SELECT * FROM events e WHERE e.na"  -> {"name"} (columns of the table the alias names)
// SQL words match without regard to case. An empty word completes only after FROM / JOIN / INTO /
// UPDATE / TABLE (to table and view names).
std::vector<std::string> Complete(const CompletionSources& sources, std::string_view line, size_t* word_start);

}  // namespace tracesql::shell

#endif  // TRACESQL_SHELL_COMPLETION_H_
