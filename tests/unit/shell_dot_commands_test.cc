// The dot-command table: .help is generated from it; argument splitting (issue 4).
#include <catch2/catch.hpp>

#include <set>

#include "shell/shell.h"

using namespace tracesql::shell;

TEST_CASE("dot-commands: one table, sorted, unique, each in .help", "[shell]") {
  std::set<std::string_view> seen;
  std::string_view prev;
  std::string help = DotHelp("");
  for (const auto& c : DotCommands()) {
    CHECK(seen.insert(c.name).second);
    CHECK((prev < c.name));
    prev = c.name;
    CHECK(!c.help.empty());
    CHECK(c.run != nullptr);
    CHECK((c.max_args < 0 || c.max_args >= c.min_args));
    bool listed = help.find("\n." + std::string(c.name)) != std::string::npos || help.rfind("." + std::string(c.name), 0) == 0;
    CHECK(listed);
  }
  for (const char* required : {"help", "tables", "schema", "mode", "headers", "timer", "read", "queries", "run",
                               "show", "param", "output", "once", "open", "import", "traces", "quit"}) {
    CHECK(seen.count(required) == 1);
  }
  // Nothing that runs a program.
  CHECK(seen.count("shell") == 0);
  CHECK(seen.count("system") == 0);
  // Descriptions line up in one column.
  size_t column = std::string::npos;
  for (const auto& c : DotCommands()) {
    size_t line = help.find("." + std::string(c.name) + " ");
    REQUIRE(line != std::string::npos);
    size_t at = help.find(std::string(c.help), line) - line;
    if (column == std::string::npos) column = at;
    CHECK(at == column);
  }
  CHECK(DotHelp("ti").rfind(".timer on|off  ", 0) == 0);
  CHECK(DotHelp("ti").find("Print the run time of each statement\n") != std::string::npos);
  CHECK(DotHelp("zzz").empty());
}

TEST_CASE("dot-commands: argument splitting", "[shell]") {
  using V = std::vector<std::string>;
  CHECK(SplitDotArgs("mode csv") == V{"mode", "csv"});
  CHECK(SplitDotArgs("  run   q  ") == V{"run", "q"});
  CHECK(SplitDotArgs("output \"my file.csv\"") == V{"output", "my file.csv"});
  CHECK(SplitDotArgs("param set name 'aten::mm'") == V{"param", "set", "name", "'aten::mm'"});
  CHECK(SplitDotArgs("run q name='a b' x=1") == V{"run", "q", "name='a b'", "x=1"});
  CHECK(SplitDotArgs("").empty());
}
