// tracesql critical-path DB [--trace-id N] [--step N | --from TS --to TS]: writes the critical_path
// rows of one window (src/critical_path/) and prints the bundled critical_path_summary of it.
#include <cstdio>

#include "tracesql/cli.h"
#include "tracesql/critical_path.h"
#include "tracesql/error.h"
#include "tracesql/queries.h"
#include "tracesql/sql_runner.h"
#include "tracesql/user_db.h"

namespace tracesql::cli {

int CriticalPath(const std::string& db_path, const critical_path::WindowRequest& request, const OutputFlags& out,
                 const DbFlags& dbf) {
  RenderOptions render = ResolveOutput(out);  // a bad --format fails before any work
  UserDb db = UserDb::Open(db_path, dbf.any_db);
  critical_path::Window window;
  size_t pieces = 0;
  try {
    window = critical_path::ResolveWindow(db.db(), request);
    std::vector<critical_path::Piece> path = critical_path::Compute(db.db(), window);
    critical_path::Write(db.db(), window, path);
    pieces = path.size();
  } catch (const Error& e) {
    Errorf("{}: {}", db_path, e.what());
  }
  std::fprintf(stderr, "critical_path: trace %lld, window '%s' [%lld, %lld): %zu rows\n",
               static_cast<long long>(window.trace_id), window.label.c_str(), static_cast<long long>(window.from),
               static_cast<long long>(window.to), pieces);
  auto q = FindQuery("critical_path_summary", {});
  if (!q) Errorf("the bundled query critical_path_summary is missing");
  Params params{{"trace_id", std::to_string(window.trace_id)}, {"window", "'" + window.label + "'"}};
  ExecOptions eo;
  eo.render = render;
  eo.params = &params;
  eo.out = stdout;
  ExecuteSql(db.get(), q->text, SqlSource{q->Source(), 1}, eo);
  return 0;
}

}  // namespace tracesql::cli
