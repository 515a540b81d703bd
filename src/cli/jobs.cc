// The commands over partitioned jobs: merge, and query/run over a partition directory
// (docs/scale.md).
#include "tracesql/cli_jobs.h"

#include <cstdio>

#include <fmt/format.h>

#include "tracesql/combine.h"
#include "tracesql/error.h"
#include "tracesql/partitions.h"
#include "tracesql/sql_runner.h"

namespace tracesql::cli {
namespace {

// Which partitions a combining query reads, from its "-- partitions: every|one" line
// (docs/scale.md): every partition even with -p trace_id (the combining SQL picks the trace's rows),
// or one partition (-p trace_id's, else the first: the query shows one trace). Without the line: all
// partitions, or with -p trace_id the one of that trace.
enum class Coverage { kTraces, kEvery, kOne };

Coverage CoverageOf(std::string_view combine_sql) {
  if (combine_sql.find("\n-- partitions: every\n") != std::string_view::npos) return Coverage::kEvery;
  if (combine_sql.find("\n-- partitions: one\n") != std::string_view::npos) return Coverage::kOne;
  return Coverage::kTraces;
}

// The partitions a run covers: all, or with -p trace_id=N the one holding trace N, which its
// partition knows as trace 1 (params is changed to say so); as coverage says otherwise.
std::vector<size_t> Covered(const PartitionDir& dir, Params& params, Coverage coverage = Coverage::kTraces) {
  std::vector<size_t> parts;
  auto it = params.find("trace_id");
  if (coverage == Coverage::kOne && it == params.end()) return {0};
  if (it == params.end() || coverage == Coverage::kEvery) {
    for (size_t i = 0; i < dir.parts.size(); ++i) parts.push_back(i);
    return parts;
  }
  if (ClassifyParamValue(it->second) != ParamKind::kInteger) Errorf("-p trace_id={}: not a trace id", it->second);
  int64_t id = std::stoll(it->second);
  if (id < 1 || id > static_cast<int64_t>(dir.parts.size())) {
    Errorf("{}: no trace {} (the job's traces are 1..{})", dir.dir, id, dir.parts.size());
  }
  parts.push_back(static_cast<size_t>(id - 1));
  it->second = "1";
  return parts;
}

// Runs sql on the partitions in parts and hands the combining step to `step`: the in-memory database
// LoadPartials filled, combine_sql (empty: the rows of each partition in turn, in trace order) and
// job_params. params: the partitions' (their trace ids); job_params: the combining query's (the job's
// trace ids).
void Combine(const PartitionDir& dir, std::vector<size_t> parts, std::string_view sql, const SqlSource& source,
             const Params& params, const Params& job_params, const std::string& combine_sql,
             const SqlSource& combine_source, const CombineStep& step) {
  Db memory = Db::Open(":memory:", /*create=*/true);
  std::string text = combine_sql.empty() ? "SELECT * FROM partial ORDER BY rowid" : combine_sql;
  LoadPartials(memory, dir, parts, sql, source, params, /*jobs=*/0, ReadsPartialByScans(text));
  step(memory.get(), text, combine_source, job_params);
}

// The combining step that prints its result (query and run).
CombineStep Printer(const OutputFlags& out) {
  return [&out](sqlite3* db, std::string_view sql, const SqlSource& source, const Params& params) {
    Execute(db, sql, source, params, out);
  };
}

void NoAttach(const std::string& dir, const DbFlags& dbf) {
  if (!dbf.attach.empty() || !dbf.against.empty()) {
    Errorf("{}: --attach and --against take databases, not a partition directory (merge it first: tracesql merge {} -o DB)",
           dir, dir);
  }
}

}  // namespace

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

int QueryJob(const std::string& dir_path, const std::string& sql, const std::string& source, const Params& params,
             const OutputFlags& out, const DbFlags& dbf) {
  NoAttach(dir_path, dbf);
  PartitionDir dir = OpenPartitionDir(dir_path, /*check_partitions=*/false);  // LoadPartials checks each
  Params p = params;
  std::vector<size_t> parts = Covered(dir, p);
  Combine(dir, parts, sql, SqlSource{source, 1}, p, params, dbf.combine, SqlSource{"--combine", 1}, Printer(out));
  return 0;
}

std::string CombiningSqlFor(const QueryFile& q, const std::string& where) {
  std::optional<std::string> combine = q.builtin ? CombiningSql(q.name) : std::nullopt;
  if (!combine) {
    bool dir = where != q.name;
    Errorf("{}: {} does not combine over partitions ({}); merge them first: tracesql merge {} -o job.db", where,
           q.name, q.builtin ? "no queries/combine/" + q.name + ".sql" : "a user query", dir ? where : "DIR");
  }
  return *combine;
}

PartitionQuery PartitionQueryFor(const QueryFile& q, const std::string& where) {
  CombiningSqlFor(q, where);
  if (std::optional<std::string> partial = PartialSql(q.name)) {
    return {*partial, SqlSource{"builtin:combine/" + q.name + ".partial", 1}};
  }
  return {q.text, SqlSource{q.Source(), 1}};
}

void RunJobInto(const PartitionDir& dir, const QueryFile& q, const Params& params, const CombineStep& step) {
  std::string combine = CombiningSqlFor(q, dir.dir);
  PartitionQuery partition = PartitionQueryFor(q, dir.dir);
  Params p = params;
  std::vector<size_t> parts = Covered(dir, p, CoverageOf(combine));
  if (std::optional<std::string> job = JobFiguresSql(q.name)) {
    // The job-wide figures the per-partition SQL takes (docs/scale.md): a first pass.
    for (auto& [key, value] : JobFigures(dir, parts, *job, SqlSource{"builtin:combine/" + q.name + ".job", 1}, p)) {
      p[key] = value;
    }
  }
  Combine(dir, parts, partition.sql, partition.source, p, params, combine, SqlSource{"builtin:combine/" + q.name, 1},
          step);
}

int RunJob(const std::string& dir_path, const QueryFile& q, const Params& params, const OutputFlags& out,
           const DbFlags& dbf) {
  NoAttach(dir_path, dbf);
  CombiningSqlFor(q, dir_path);  // a query that does not combine is refused before the partitions are read
  RunJobInto(OpenPartitionDir(dir_path, /*check_partitions=*/false), q, params, Printer(out));  // LoadPartials checks each
  return 0;
}

}  // namespace tracesql::cli
