// Tab completion (issue 4): dot-commands, query names, tables, views, columns through aliases.
#include <catch2/catch.hpp>

#include "shell/completion.h"
#include "tracesql/db.h"

using namespace tracesql;
using namespace tracesql::shell;

namespace {
std::vector<std::string> Run(const CompletionSources& src, std::string_view line, size_t* start = nullptr) {
  size_t s = 0;
  auto out = Complete(src, line, &s);
  if (start) *start = s;
  return out;
}
}  // namespace

TEST_CASE("completion: names from the schema, dot-commands and queries", "[shell]") {
  Db db = Db::Open(":memory:", true);
  db.Exec("CREATE TABLE events(id, name, ts, dur); CREATE TABLE threads(id, tid);"
          "CREATE VIEW kernels AS SELECT id, name AS kernel_name FROM events;");
  CompletionSources src;
  src.db = db.get();
  src.dot_commands = {"headers", "help", "mode", "run", "show", "tables"};
  src.query_names = {"top_kernels", "top_ops", "steps"};
  src.rule_names = {"host_bound_idle", "stragglers", "sync_calls"};
  using V = std::vector<std::string>;
  size_t start = 0;
  CHECK(Run(src, ".he", &start) == V{".headers", ".help"});
  CHECK(start == 0);
  CHECK(Run(src, "  .ta", &start) == V{".tables"});
  CHECK(start == 2);
  CHECK(Run(src, ".run top_", &start) == V{"top_kernels", "top_ops"});
  CHECK(start == 5);
  CHECK(Run(src, ".show ") == V{"steps", "top_kernels", "top_ops"});
  CHECK(Run(src, ".mode js") == V{"json", "jsonl"});
  CHECK(Run(src, ".advise s") == V{"stragglers", "sync_calls"});
  CHECK(Run(src, ".tables ke") == V{"kernels"});
  CHECK(Run(src, "SELECT * FROM ev", &start) == V{"events"});
  CHECK(start == 14);
  CHECK(Run(src, "SELECT * FROM ") == V{"events", "kernels", "threads"});
  CHECK(Run(src, "select * from EV") == V{"events"});  // case-insensitive
  CHECK(Run(src, "SELECT kernel_n") == V{"kernel_name"});
  CHECK(Run(src, "SELECT * FROM events e WHERE e.n", &start) == V{"name"});
  CHECK(start == 31);
  CHECK(Run(src, "SELECT * FROM events AS x JOIN threads t ON t.") == V{"id", "tid"});
  CHECK(Run(src, "SELECT threads.t") == V{"tid"});
  CHECK(Run(src, "SELECT nosuch.") .empty());
  auto kw = Run(src, "SEL");
  CHECK(std::find(kw.begin(), kw.end(), "SELECT") != kw.end());
  CHECK(Run(src, "SELECT 1 ").empty());  // nothing typed: no wall of names
  // A dot at the start of a continuation line is SQL, not a dot-command.
  src.at_statement_start = false;
  CHECK(Run(src, ".he").empty());
}
