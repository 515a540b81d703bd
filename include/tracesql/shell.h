// The interactive SQL shell (`tracesql shell DB`, `tracesql DB`, `tracesql TRACE.json`).
#ifndef TRACESQL_SHELL_H_
#define TRACESQL_SHELL_H_

#include <optional>
#include <string>
#include <vector>

#include "tracesql/render.h"

namespace tracesql {

struct ShellOptions {
  std::string db_path;
  bool any_db = false;  // accept any SQLite file, not only tracesql databases
  bool bail = false;    // stop at the first error (batch input)
  std::optional<OutputMode> mode;  // default: box when stdout is a terminal, csv otherwise
  bool header = true;
  std::string null_text;
  std::vector<std::string> queries_dirs;  // --queries-dir, searched before the other user directories
  std::vector<std::string> attach;        // --attach [ALIAS=]PATH: attached (read-only) on every open
  std::string against;                    // --against PATH (see cli::AttachDatabases)
};

// Opens the database and reads statements and dot-commands from stdin: with line editing, history
// and completion when stdin is a terminal; without prompts or history otherwise. Returns the exit
// status: 0, or 1 when the database cannot be opened or (batch input) any statement failed.
int RunShell(const ShellOptions& options);

}  // namespace tracesql

#endif  // TRACESQL_SHELL_H_
