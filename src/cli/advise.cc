// tracesql advise DB|TRACE: runs the rules (rules/*.sql and the user's) and prints the findings, most
// time lost first.
#include <cstdio>

#include "tracesql/advise.h"
#include "tracesql/cli.h"
#include "tracesql/error.h"
#include "tracesql/sql_runner.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {

int Advise(const std::string& file, const std::vector<std::string>& param_args, const AdviseFlags& flags,
           const OutputFlags& out, const DbFlags& dbf) {
  RenderOptions render = ResolveOutput(out);  // a bad --format fails before any work
  AdviseOptions options;
  options.rule_dirs = UserRuleDirs(flags.rules_dirs);
  options.only_rule = flags.rule;
  for (const auto& a : param_args) {
    auto [k, v] = ParseParamAssignment(a);
    options.params[k] = v;
  }
  if (flags.list) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& r : ListRules(options.rule_dirs)) {
      std::string params;
      for (const auto& p : r.params) params += (params.empty() ? ":" : " :") + p.name + "=" + p.default_value;
      rows.push_back({r.name, r.title, params, r.Source() + (r.shadows_builtin ? " (shadows builtin)" : "")});
    }
    RenderTextTable({"rule", "title", "params", "source"}, rows, render, stdout);
    return 0;
  }
  if (file.empty()) Errorf("advise: give a database or a trace (or --list)");
  std::string db_path = file;
  switch (SniffFile(file)) {
    case FileKind::kMissing: Errorf("{}: no such file", file);
    case FileKind::kDirectory: Errorf("{}: is a directory", file);
    case FileKind::kOther: Errorf("{}: neither a trace (.json, .json.gz) nor a SQLite database", file);
    case FileKind::kTrace: db_path = DatabaseForShortcut(file); break;
    case FileKind::kSqlite: break;
  }
  UserDb db = UserDb::Open(db_path, dbf.any_db);
  AdviseResult result = tracesql::Advise(db.get(), options);
  if (flags.timings) {
    for (const auto& r : result.rules) std::fprintf(stderr, "%-20s %6.2f s\n", r.rule.c_str(), r.seconds);
  }
  ExecOptions eo;
  eo.render = render;
  eo.out = stdout;
  eo.separate_results = true;
  int64_t written = 0;
  ExecuteSql(db.get(), FindingsSql(), SqlSource{"advise", 1}, eo, &written);
  if (flags.all) ExecuteSql(db.get(), RulesRunSql(), SqlSource{"advise --all", 1}, eo, &written);
  return 0;
}

}  // namespace tracesql::cli
