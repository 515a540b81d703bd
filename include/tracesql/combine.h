// Queries over a partition directory (docs/scale.md): a per-partition query runs on every
// partition, its results go into the table `partial` of an in-memory SQLite database, and a
// combining query over `partial` (and `partitions`) gives the job's result. SQL stays the single
// source of truth: the per-partition and combining queries are SQL files another engine can run.
#ifndef TRACESQL_COMBINE_H_
#define TRACESQL_COMBINE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/db.h"
#include "tracesql/params.h"
#include "tracesql/partitions.h"
#include "tracesql/sql_runner.h"

namespace tracesql {

// The combining step of a query over partitions: given the in-memory database LoadPartials filled,
// the combining SQL and the parameters to bind, it runs the SQL there and prints or keeps the result.
using CombineStep =
    std::function<void(sqlite3* db, std::string_view sql, const SqlSource& source, const Params& params)>;

// The combining query of bundled query `name` (queries/combine/NAME.sql), or nullopt when it has
// none: its results do not combine over partitions yet.
std::optional<std::string> CombiningSql(std::string_view name);

// The per-partition query of bundled query `name` when it is not the query itself
// (queries/combine/NAME.partial.sql), or nullopt: each partition runs the query's own SQL. A query
// whose result cannot be combined from its own rows (a median over every rank, skew between ranks)
// has one: it returns per-partition summaries the combining query joins.
std::optional<std::string> PartialSql(std::string_view name);

// The job-figures query of bundled query `name` (queries/combine/NAME.job.sql), or nullopt: SQL
// run on each partition in scope before the per-partition SQL, returning one row of integers.
std::optional<std::string> JobFiguresSql(std::string_view name);

// Runs the job-figures query sql on the partitions in parts with params and sums each column over
// them: the per-partition SQL's parameters named as the columns (a column NULL everywhere: none).
Params JobFigures(const PartitionDir& dir, const std::vector<size_t>& parts, std::string_view sql,
                  const SqlSource& source, const Params& params);

// Runs sql (its statements in order; the rows of the last one that returns columns are kept) on
// each partition of dir in parts (indexes into dir.parts), `jobs` at a time (0: the cores), with
// params bound, and fills the in-memory database memory with:
//   partial:    the result's columns (a column trace_id renumbered to the job's trace ids), the
//               rows of each partition in turn, in trace order, each partition's in the order the
//               query gave them: rowid is that position;
//   partitions: one row per partition of the job (trace_id, file, trace, rank, world_size,
//               events, threads, processes, flows and the id bases event_base, thread_base,
//               process_base, flow_base: a partition's id + its base = the merged database's id).
// A partition's error is thrown as tracesql::Error naming its file. With stream, `partial` is a
// virtual table over the partitions' results as they came (the same columns, values and rowids; a
// scan in rowid order, nothing else indexed, read-only): for a combining query that only scans it
// (ReadsPartialByScans), which then costs no inserts (and reading it in order, no sort).
void LoadPartials(Db& memory, const PartitionDir& dir, const std::vector<size_t>& parts, std::string_view sql,
                  const SqlSource& source, const Params& params, int jobs = 0, bool stream = false);

// Whether combine_sql is `SELECT * FROM partial ORDER BY rowid` (comments, case and spacing aside):
// the partitions' rows as they came, which LoadPartials can stream.
bool ReadsPartialInOrder(std::string_view combine_sql);

// Whether combine_sql reads `partial` only by whole scans, so that LoadPartials can stream it: it
// reads the rows in order (ReadsPartialInOrder), or has a line `-- partial: scans` (docs/scale.md:
// it neither changes `partial` nor looks rows up in it by rowid or by a column, which the virtual
// table would answer by a scan each).
bool ReadsPartialByScans(std::string_view combine_sql);

}  // namespace tracesql

#endif  // TRACESQL_COMBINE_H_
