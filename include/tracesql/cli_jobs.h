// The commands over partitioned jobs (src/cli/jobs.cc): `merge`, and `query`/`run` given a
// partition directory (docs/scale.md). Each returns the exit status or throws tracesql::Error.
#ifndef TRACESQL_CLI_JOBS_H_
#define TRACESQL_CLI_JOBS_H_

#include <string>
#include <vector>

#include "tracesql/cli.h"

namespace tracesql::cli {

// tracesql merge PARTS... -o DB [--force] [-q]
int Merge(const std::vector<std::string>& parts, const std::string& out, bool force, bool quiet);

}  // namespace tracesql::cli

#endif  // TRACESQL_CLI_JOBS_H_
