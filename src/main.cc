// tracesql command line: import traces, run SQL, open the shell.
#include <CLI/CLI.hpp>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdio>

#include "tracesql/cli.h"
#include "tracesql/cli_jobs.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "tracesql/partitions.h"
#include "tracesql/render.h"
#include "tracesql/shell.h"

namespace {

using namespace tracesql;

// glibc gives the free memory at the top of a heap back to the system once it passes 128 KiB and
// faults it in again on the next allocation. tracesql allocates and frees in rounds: a query over a
// partition directory prepares its statement on one connection per partition (megabytes of parse
// tree for the largest), an import of many traces reads and builds one trace after another. Kept,
// op_roofline over the 256 partitions of bench/README.md's job spends 0.4 CPU-s in the system
// instead of 1.05, and importing the 256 traces into one database 1-2 s less (2026-12-02, two
// interleaved runs each), for 80 MiB more peak memory there.
void KeepFreedMemory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 64 << 20);  // free memory kept at the top of a heap
  mallopt(M_TOP_PAD, 16 << 20);         // a heap grows by this much more (untouched pages cost nothing)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below it come from the heap, and are reused
#endif
}

void AddOutputFlags(CLI::App* app, cli::OutputFlags& f) {
  app->add_option("--format", f.format, "Output format: " + OutputModeList() + " (default: the query's own format for run, else box on a terminal, csv otherwise)");
  app->add_option("--null", f.null_text, "Text shown for NULL (default: empty)");
  app->add_flag("--no-header", f.no_header, "Leave out the column names");
}

void AddDbFlags(CLI::App* app, cli::DbFlags& f) {
  app->add_flag("--any-db", f.any_db, "Open any SQLite database, not only tracesql ones");
  app->add_option("--queries-dir", f.queries_dirs,
                  "Directory of user queries, searched before $TRACESQL_QUERIES and ~/.config/tracesql/queries")
      ->allow_extra_args(false);
}

// Query, run and shell: more databases on the connection.
void AddAttachFlags(CLI::App* app, cli::DbFlags& f) {
  app->add_option("--attach", f.attach,
                  "Attach another database read-only as ALIAS (default b, then c, d, ...); repeatable")
      ->type_name("[ALIAS=]PATH")
      ->allow_extra_args(false);
  app->add_option("--against", f.against,
                  "Compare with this database: attach it read-only as b and let unqualified table and view names "
                  "read it (main.NAME still reads DB), as trace_diff expects")
      ->type_name("PATH");
}

}  // namespace

int main(int argc, char** argv) {
  KeepFreedMemory();
  CLI::App app{"tracesql: ask SQL questions of PyTorch profiler (Kineto) traces.\n"
               "  tracesql TRACE.json[.gz]   import next to the trace (or reuse that database), open the shell;\n"
               "                             a read-only trace directory: the database goes to ~/.cache/tracesql\n"
               "  tracesql DB                open the shell on a database",
               "tracesql"};
  app.set_version_flag("--version", std::string("tracesql ") + TRACESQL_VERSION);
  app.require_subcommand(0, 1);

  // tracesql TRACE | DB (no subcommand)
  std::string open_file;
  bool open_bail = false;
  cli::OutputFlags open_out;
  cli::DbFlags open_db;
  app.add_option("file", open_file, "A trace (.json / .json.gz) or a database to open in the shell");
  app.add_flag("--bail", open_bail, "Stop at the first error when reading statements from a pipe or file");
  AddOutputFlags(&app, open_out);
  AddDbFlags(&app, open_db);

  // import
  std::vector<std::string> traces;
  std::string out_path;
  ImportOptions iopt;
  bool quiet = false;
  bool no_materialize = false;
  bool partitioned = false;
  auto* imp = app.add_subcommand("import", "Import one or more traces (.json / .json.gz, one rank per file) into a database");
  imp->add_option("traces", traces, "Trace files")->required();
  imp->add_option("-o,--output", out_path, "Database to create (default for one trace: TRACE.db next to it)");
  imp->add_flag("--force", iopt.force, "Replace the database if it exists and is a SQLite database");
  imp->add_flag("--strict", iopt.strict, "Treat a truncated trace as an error");
  imp->add_flag("--timings", iopt.timings, "Print per-stage timings on stderr");
  imp->add_flag("--no-materialize", no_materialize, "Keep the analysis views as views, except op_kernel_links (smaller, slower to query)");
  imp->add_option("-j,--jobs", iopt.jobs,
                  "Traces read and built at once (memory grows with it), written one at a time in the order given "
                  "(default: the number of cores, at most 8; the database is the same for any number)")
      ->check(CLI::PositiveNumber);
  imp->add_flag("--keep-going", iopt.keep_going,
                "Leave out a trace that fails, import the others, report the failures and exit with status 2");
  imp->add_flag("-q,--quiet", quiet, "No progress bar or summary");
  imp->add_flag("--partitioned", partitioned,
                "Write a partition directory: -o DIR gets one database per trace and a manifest.json (docs/scale.md)");

  // merge
  std::vector<std::string> merge_parts;
  std::string merge_out;
  bool merge_force = false, merge_quiet = false;
  auto* mrg = app.add_subcommand("merge", "Make one database of partitions (a partition directory or databases), equal to "
                                          "importing their traces together in that order");
  mrg->add_option("parts", merge_parts, "Partition directories (import --partitioned) or tracesql databases")->required();
  mrg->add_option("-o,--output", merge_out, "Database to create")->required();
  mrg->add_flag("--force", merge_force, "Replace the database if it exists and is a SQLite database (never an input)");
  mrg->add_flag("-q,--quiet", merge_quiet, "No summary");

  // shell
  std::string shell_db;
  bool shell_bail = false;
  cli::OutputFlags shell_out;
  cli::DbFlags shell_dbf;
  auto* sh = app.add_subcommand("shell", "Interactive SQL shell (reads statements from stdin when it is not a terminal)");
  sh->add_option("db", shell_db, "Database")->required();
  sh->add_flag("--bail", shell_bail, "Stop at the first error");
  AddOutputFlags(sh, shell_out);
  AddDbFlags(sh, shell_dbf);
  AddAttachFlags(sh, shell_dbf);

  // query
  std::string db_path, sql, sql_file;
  std::vector<std::string> params;
  cli::OutputFlags query_out;
  cli::DbFlags query_dbf;
  auto* qry = app.add_subcommand("query", "Run SQL against a database and print the results");
  qry->add_option("db", db_path, "Database, or a partition directory (import --partitioned)")->required();
  qry->add_option("sql", sql, "SQL text (one or more statements)");
  qry->add_option("-f,--file", sql_file, "Read SQL from a file ('-' for stdin)");
  qry->add_option("-p,--param", params, "Bind :key to value (numbers as numbers, the rest as text)")
      ->allow_extra_args(false);
  qry->add_option("--combine", query_dbf.combine,
                  "With a partition directory: SQL over the table partial (the rows of every partition) that "
                  "combines them (default: each partition's rows in trace order; docs/scale.md)");
  AddOutputFlags(qry, query_out);
  AddDbFlags(qry, query_dbf);
  AddAttachFlags(qry, query_dbf);

  // run
  std::string run_db, run_name;
  std::vector<std::string> run_params;
  cli::OutputFlags run_out;
  cli::DbFlags run_dbf;
  auto* run = app.add_subcommand("run", "Run a bundled or user query by name");
  run->add_option("db", run_db, "Database, or a partition directory (import --partitioned)")->required();
  run->add_option("name", run_name, "Query name (see `tracesql queries`) or a .sql file")->required();
  run->add_option("-p,--param", run_params, "Bind :key to value (numbers as numbers, the rest as text)")
      ->allow_extra_args(false);
  AddOutputFlags(run, run_out);
  AddDbFlags(run, run_dbf);
  AddAttachFlags(run, run_dbf);
  run->add_flag("--per-partition", run_dbf.per_partition,
                "Run the query's per-partition SQL on one partition database (what `run DIR NAME` runs on each; "
                "docs/scale.md)");

  // queries
  std::string show;
  cli::OutputFlags list_out;
  cli::DbFlags list_dbf;
  auto* lst = app.add_subcommand("queries", "List bundled and user queries, or print one");
  bool show_combining = false;
  lst->add_option("--show", show, "Print the SQL of this query");
  lst->add_flag("--combining", show_combining,
                "With --show: print the query's combining SQL instead (how its results over a partition directory "
                "combine; docs/scale.md)");
  bool show_job_figures = false;
  lst->add_flag("--job-figures", show_job_figures,
                "With --show: print the query's job-figures SQL (queries/combine/NAME.job.sql: figures of the whole "
                "job its per-partition SQL takes; nothing when it has none; docs/scale.md)");
  lst->add_flag("--per-partition", list_dbf.per_partition,
                "With --show: print the SQL each partition runs for the query (queries/combine/NAME.partial.sql, "
                "else the query's own)");
  AddOutputFlags(lst, list_out);
  AddDbFlags(lst, list_dbf);

  // advise
  std::string adv_file;
  std::vector<std::string> adv_params;
  cli::AdviseFlags adv_flags;
  cli::OutputFlags adv_out;
  cli::DbFlags adv_dbf;
  auto* adv = app.add_subcommand("advise", "Run the rules (rules/*.sql, ~/.config/tracesql/rules) and print what costs "
                                           "time, most time lost first");
  adv->add_option("file", adv_file, "A database, or a trace (imported first, as `tracesql TRACE` does)");
  adv->add_option("--rule", adv_flags.rule, "Run only this rule");
  adv->add_flag("--all", adv_flags.all, "Also list every rule run and what it found (passed: nothing)");
  adv->add_flag("--list", adv_flags.list, "List the rules, their parameters and sources");
  adv->add_flag("--timings", adv_flags.timings, "Print each rule's run time on stderr");
  adv->add_option("-p,--param", adv_params, "Set a rule's threshold :key to value")->allow_extra_args(false);
  adv->add_option("--rules-dir", adv_flags.rules_dirs,
                  "Directory of user rules, searched before ~/.config/tracesql/rules")
      ->allow_extra_args(false);
  AddOutputFlags(adv, adv_out);
  adv->add_flag("--any-db", adv_dbf.any_db, "Open any SQLite database, not only tracesql ones");
  // report
  std::vector<std::string> report_inputs;
  std::string report_out;
  bool report_force = false;
  auto* rep = app.add_subcommand("report", "Write one self-contained HTML page of charts (works offline) for a database or traces");
  rep->add_option("inputs", report_inputs, "A database, a partition directory (import --partitioned), or traces (imported first: one as `tracesql TRACE` does, several into FILE.db)")->required();
  rep->add_option("-o,--output", report_out, "The HTML file to write")->required();
  rep->add_flag("--force", report_force, "Replace the HTML file if it exists (never an input)");
  // critical-path
  std::string cp_db;
  int64_t cp_trace = 0, cp_step = 0, cp_from = 0, cp_to = 0;
  cli::OutputFlags cp_out;
  cli::DbFlags cp_dbf;
  auto* cp = app.add_subcommand("critical-path",
                                "Write the critical path of a window of one trace to the critical_path table "
                                "and print what bounds it (critical_path_summary)");
  cp->add_option("db", cp_db, "Database")->required();
  auto* cp_trace_opt = cp->add_option("--trace-id", cp_trace, "The trace (traces.id); needed when the database holds several");
  auto* cp_step_opt = cp->add_option("--step", cp_step, "The window of ProfilerStep#N (step_windows)");
  auto* cp_from_opt = cp->add_option("--from", cp_from, "Window start, ns (with --to)");
  auto* cp_to_opt = cp->add_option("--to", cp_to, "Window end, ns (with --from); default window: the whole trace");
  cp_step_opt->excludes(cp_from_opt)->excludes(cp_to_opt);
  AddOutputFlags(cp, cp_out);
  AddDbFlags(cp, cp_dbf);

  // export
  std::string ex_file, ex_out;
  int64_t ex_trace = 0;
  cli::ExportFlags ex_flags;
  cli::DbFlags ex_dbf;
  auto* ex = app.add_subcommand("export", "Write a trace's timeline overlay (steps, GPU idle gaps by cause, the critical "
                                          "path, the advisor's findings) as Chrome-trace JSON for ui.perfetto.dev");
  ex->add_option("file", ex_file, "A database, or a trace (imported first, as `tracesql TRACE` does)")->required();
  ex->add_option("-o,--output", ex_out, "The JSON file to write (.json, or .json.gz for gzip)")->required();
  ex->add_flag("--with-trace", ex_flags.with_trace, "Also write the trace's own events, flows and tracks, so one file opens with both");
  auto* ex_trace_opt = ex->add_option("--trace-id", ex_trace, "The trace (traces.id); needed when the database holds several");
  ex->add_flag("--force", ex_flags.force, "Replace the file if it exists (never an input)");
  ex->add_flag("--any-db", ex_dbf.any_db, "Open any SQLite database, not only tracesql ones");

  CLI11_PARSE(app, argc, argv);

  try {
    if (imp->parsed()) {
      iopt.progress = !quiet && isatty(fileno(stderr));
      iopt.materialize = !no_materialize;
      if (partitioned && out_path.empty()) throw Error("--partitioned: name the new directory with -o DIR");
      if (out_path.empty()) out_path = cli::DefaultImportOutput(traces);
      ImportSummary s = partitioned ? ImportPartitioned(traces, out_path, iopt) : ImportTraces(traces, out_path, iopt);
      if (!quiet) cli::PrintImportSummary(s, out_path);
      if (iopt.timings) {
        std::fprintf(stderr, "stages: read+split %.2f s (overlapped) | parse %.2f s | build %.2f s | insert %.2f s | index %.2f s | views %.2f s%s\n",
                     s.stages.read_split, s.stages.parse, s.stages.build, s.stages.insert, s.stages.index, s.stages.views,
                     s.jobs > 1 ? fmt::format(" (read, parse, build: summed over {} traces at a time)", s.jobs).c_str() : "");
        std::string per_view;
        for (const auto& [file, secs] : s.stages.view_files) {
          if (secs >= 0.01) per_view += fmt::format("{}{} {:.2f} s", per_view.empty() ? "" : " | ", file, secs);
        }
        if (!per_view.empty()) std::fprintf(stderr, "views: %s\n", per_view.c_str());
      }
      if (!s.failed.empty()) {
        std::fprintf(stderr, "tracesql: %zu of %zu traces failed and were left out (--keep-going)\n", s.failed.size(),
                     traces.size());
        return 2;
      }
      return 0;
    }
    if (mrg->parsed()) return cli::Merge(merge_parts, merge_out, merge_force, merge_quiet);
    if (sh->parsed()) {
      ShellOptions so;
      so.db_path = shell_db;
      so.bail = shell_bail;
      so.any_db = shell_dbf.any_db;
      so.queries_dirs = shell_dbf.queries_dirs;
      so.attach = shell_dbf.attach;
      so.against = shell_dbf.against;
      so.null_text = shell_out.null_text;
      so.header = !shell_out.no_header;
      if (!shell_out.format.empty()) so.mode = cli::ResolveOutput(shell_out).mode;
      return RunShell(so);
    }
    if (qry->parsed()) return cli::Query(db_path, sql, sql_file, params, query_out, query_dbf);
    if (run->parsed()) return cli::Run(run_db, run_name, run_params, run_out, run_dbf);
    if (cp->parsed()) {
      critical_path::WindowRequest req;
      if (cp_trace_opt->count()) req.trace_id = cp_trace;
      if (cp_step_opt->count()) req.step = cp_step;
      if (cp_from_opt->count()) req.from = cp_from;
      if (cp_to_opt->count()) req.to = cp_to;
      return cli::CriticalPath(cp_db, req, cp_out, cp_dbf);
    }
    if (ex->parsed()) {
      if (ex_trace_opt->count()) ex_flags.trace_id = ex_trace;
      return cli::Export(ex_file, ex_out, ex_flags, ex_dbf);
    }
    if (lst->parsed()) return cli::Queries(show, show_combining, show_job_figures, list_out, list_dbf);
    if (adv->parsed()) return cli::Advise(adv_file, adv_params, adv_flags, adv_out, adv_dbf);
    if (rep->parsed()) return cli::Report(report_inputs, report_out, report_force);
    if (open_file.empty()) {
      std::fputs(app.help().c_str(), stderr);
      return 1;
    }
    return cli::Open(open_file, open_bail, open_out, open_db);
  } catch (const Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tracesql: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tracesql: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
