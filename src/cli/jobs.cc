#include "tracesql/cli_jobs.h"

#include <cstdio>

#include "tracesql/partitions.h"

namespace tracesql::cli {

int Merge(const std::vector<std::string>& parts, const std::string& out, bool force, bool quiet) {
  MergeOptions options;
  options.force = force;
  MergeSummary s = MergeDatabases(parts, out, options);
  if (!quiet) {
    std::fprintf(stderr, "merged %lld trace%s: %lld events in %.2f s -> %s\n", static_cast<long long>(s.traces),
                 s.traces == 1 ? "" : "s", static_cast<long long>(s.events), s.seconds, out.c_str());
  }
  return 0;
}

}  // namespace tracesql::cli
