// The commands over partitioned jobs (src/cli/jobs.cc): `merge`, and `query`/`run` given a
// partition directory (docs/scale.md). Each returns the exit status or throws tracesql::Error.
#ifndef TRACESQL_CLI_JOBS_H_
#define TRACESQL_CLI_JOBS_H_

#include <string>
#include <vector>

#include "tracesql/cli.h"
#include "tracesql/combine.h"
#include "tracesql/params.h"
#include "tracesql/queries.h"

namespace tracesql::cli {

// tracesql merge PARTS... -o DB [--force] [-q]
int Merge(const std::vector<std::string>& parts, const std::string& out, bool force, bool quiet);

// tracesql query DIR "SQL" [--combine SQL]: the SQL on each partition (all, or with -p trace_id=N
// the one holding trace N), combined by --combine over the table partial (default: the rows of
// each partition in trace order). sql is the text, source where it came from.
int QueryJob(const std::string& dir, const std::string& sql, const std::string& source, const Params& params,
             const OutputFlags& out, const DbFlags& dbf);

// The combining SQL of query q (queries/combine/NAME.sql); an error naming q and `where` (the
// directory, or the query's name) when it has none: a user query, or a bundled one without it.
std::string CombiningSqlFor(const QueryFile& q, const std::string& where);

// The SQL each partition runs for query q, and where it comes from: queries/combine/NAME.partial.sql,
// or q's own text when it has none. An error, as CombiningSqlFor's, when q does not combine.
struct PartitionQuery {
  std::string sql;
  SqlSource source;
};
PartitionQuery PartitionQueryFor(const QueryFile& q, const std::string& where);

// Runs bundled query q over the partition directory dir as `tracesql run DIR NAME` does (on each
// partition its per-partition SQL, combined by queries/combine/NAME.sql) and hands the combining
// step to `step`, which prints or keeps its result (the report). An error naming the query when it
// does not combine.
void RunJobInto(const PartitionDir& dir, const QueryFile& q, const Params& params, const CombineStep& step);

// tracesql run DIR NAME: the query on each partition, combined by its queries/combine/NAME.sql;
// an error naming the query when it has none. out: the format already resolved for the query.
int RunJob(const std::string& dir, const QueryFile& q, const Params& params, const OutputFlags& out,
           const DbFlags& dbf);

}  // namespace tracesql::cli

#endif  // TRACESQL_CLI_JOBS_H_
