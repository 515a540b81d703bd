// tracesql command line: import traces, run SQL.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "tracesql/render.h"

namespace {

using namespace tracesql;

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Errorf("{}: cannot read SQL file", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs every statement of sql, rendering each result set. Returns the number of statements run.
void RunSql(Db& db, const std::string& sql, const RenderOptions& ro, const std::string& label) {
  const char* tail = sql.c_str();
  bool first_output = true;
  while (tail && *tail) {
    sqlite3_stmt* stmt = nullptr;
    const char* next = nullptr;
    int rc = sqlite3_prepare_v2(db.get(), tail, -1, &stmt, &next);
    if (rc != SQLITE_OK) Errorf("{}: {}", label, sqlite3_errmsg(db.get()));
    tail = next;
    if (!stmt) continue;  // whitespace or comment
    std::string out;
    try {
      if (sqlite3_column_count(stmt) > 0 && !first_output && ro.mode != OutputMode::kJsonl) out += "\n";
      if (sqlite3_column_count(stmt) > 0) first_output = false;
      RenderStatement(stmt, ro, out);
    } catch (const Error& e) {
      sqlite3_finalize(stmt);
      Errorf("{}: {}", label, e.what());
    }
    sqlite3_finalize(stmt);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tracesql: ask SQL questions of PyTorch profiler (Kineto) traces", "tracesql"};
  app.set_version_flag("--version", std::string("tracesql ") + TRACESQL_VERSION);
  app.require_subcommand(1);

  // import
  std::vector<std::string> traces;
  std::string out_path;
  ImportOptions iopt;
  bool quiet = false;
  auto* imp = app.add_subcommand("import", "Import one or more traces (.json / .json.gz, one rank per file) into a database");
  imp->add_option("traces", traces, "Trace files")->required();
  imp->add_option("-o,--output", out_path, "Database to create")->required();
  imp->add_flag("--force", iopt.force, "Replace the database if it exists");
  imp->add_flag("--strict", iopt.strict, "Treat a truncated trace as an error");
  imp->add_flag("--timings", iopt.timings, "Print per-stage timings on stderr");
  imp->add_flag("-q,--quiet", quiet, "No progress bar or summary");

  // query
  std::string db_path, sql, sql_file, format = "box";
  auto* qry = app.add_subcommand("query", "Run SQL against a database and print the results");
  qry->add_option("db", db_path, "Database")->required();
  qry->add_option("sql", sql, "SQL text (one or more statements)");
  qry->add_option("-f,--file", sql_file, "Read SQL from a file");
  qry->add_option("--format", format, "Output format: box, table, csv, tsv, json, jsonl, markdown, line");

  CLI11_PARSE(app, argc, argv);

  try {
    if (imp->parsed()) {
      iopt.progress = !quiet && isatty(fileno(stderr));
      ImportSummary s = ImportTraces(traces, out_path, iopt);
      if (!quiet) {
        double mb = static_cast<double>(s.json_bytes) / 1e6;
        std::fprintf(stderr, "imported %lld trace%s: %lld events, %lld flows in %.2f s (%.1f MB/s of JSON) -> %s\n",
                     static_cast<long long>(s.traces), s.traces == 1 ? "" : "s", static_cast<long long>(s.events),
                     static_cast<long long>(s.flows), s.seconds, s.seconds > 0 ? mb / s.seconds : 0.0, out_path.c_str());
      }
      if (iopt.timings) {
        std::fprintf(stderr, "stages: read+split %.2f s (overlapped) | parse %.2f s | build %.2f s | insert %.2f s | index %.2f s | views %.2f s\n",
                     s.stages.read_split, s.stages.parse, s.stages.build, s.stages.insert, s.stages.index, s.stages.views);
      }
      return 0;
    }
    if (qry->parsed()) {
      auto mode = ParseOutputMode(format);
      if (!mode) Errorf("unknown --format '{}' (use box, table, csv, tsv, json, jsonl, markdown, line)", format);
      if (sql.empty() == sql_file.empty()) Errorf("give either SQL text or -f FILE");
      if (access(db_path.c_str(), F_OK) != 0) Errorf("{}: no such database", db_path);
      Db db = Db::Open(db_path, false);
      CheckDatabase(db, db_path);
      RenderOptions ro;
      ro.mode = *mode;
      std::string text = sql_file.empty() ? sql : ReadFileText(sql_file);
      RunSql(db, text, ro, sql_file.empty() ? db_path : sql_file);
      return 0;
    }
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
