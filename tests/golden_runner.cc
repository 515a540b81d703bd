// Golden diff test runner: imports the case's traces, runs query.sql, compares the CSV output with
// expected.csv (or, for error cases, checks that the import fails with expected.err's text and
// leaves nothing behind). `tq_golden CASE_DIR --update` rewrites expected.csv.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "tracesql/critical_path.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/import.h"
#include "tracesql/render.h"

namespace fs = std::filesystem;
using namespace tracesql;

namespace {

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == '\n' || s[i] == ' ' || s[i] == '\r')) ++i;
  return s.substr(i);
}

using Params = std::vector<std::pair<std::string, std::string>>;  // ":name" -> value text

// Binds a parameter value: integers and reals as numbers, NULL as NULL, the rest as text.
void BindParam(sqlite3_stmt* stmt, int idx, const std::string& v) {
  char* end = nullptr;
  if (v == "NULL" || v == "null") {
    sqlite3_bind_null(stmt, idx);
    return;
  }
  long long i = std::strtoll(v.c_str(), &end, 10);
  if (!v.empty() && end && *end == '\0') {
    sqlite3_bind_int64(stmt, idx, i);
    return;
  }
  double d = std::strtod(v.c_str(), &end);
  if (!v.empty() && end && *end == '\0') {
    sqlite3_bind_double(stmt, idx, d);
    return;
  }
  sqlite3_bind_text(stmt, idx, v.c_str(), -1, SQLITE_TRANSIENT);
}

std::string RunQueries(Db& db, const std::string& sql, const Params& params = {}) {
  std::string out;
  const char* tail = sql.c_str();
  bool first = true;
  while (tail && *tail) {
    sqlite3_stmt* stmt = nullptr;
    const char* next = nullptr;
    if (sqlite3_prepare_v2(db.get(), tail, -1, &stmt, &next) != SQLITE_OK) {
      Errorf("query.sql: {}", sqlite3_errmsg(db.get()));
    }
    tail = next;
    if (!stmt) continue;
    for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); ++i) {
      const char* pname = sqlite3_bind_parameter_name(stmt, i);
      if (!pname) continue;
      for (const auto& [k, v] : params) {
        if (k == pname + 1 || k == pname) BindParam(stmt, i, v);
      }
    }
    if (sqlite3_column_count(stmt) > 0) {
      if (!first) out += "\n";
      first = false;
    }
    RenderOptions o;
    o.mode = OutputMode::kCsv;
    try {
      RenderStatement(stmt, o, out);
    } catch (...) {
      sqlite3_finalize(stmt);
      throw;
    }
    sqlite3_finalize(stmt);
  }
  return out;
}

// A bundled query file (queries/NAME.sql): its SQL and the defaults of its "-- param :name default"
// header lines.
struct BundledQuery {
  std::string sql;
  Params defaults;
};

fs::path RepoRoot() {
#ifdef TRACESQL_SOURCE_DIR
  return fs::path(TRACESQL_SOURCE_DIR);
#else
  return fs::current_path();
#endif
}

BundledQuery LoadBundled(const std::string& name) {
  fs::path p = RepoRoot() / "queries" / (name + ".sql");
  if (!fs::exists(p)) Errorf("no bundled query {} ({})", name, p.string());
  BundledQuery q;
  q.sql = Slurp(p);
  std::istringstream in(q.sql);
  std::string line;
  std::regex re("^--\\s*param\\s+:(\\w+)\\s+(\\S+)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, re)) q.defaults.emplace_back(m[1].str(), m[2].str());
  }
  return q;
}

// bundled.txt: one line per run, "NAME [key=value ...]"; each run's result sets are printed in order.
std::string RunBundled(Db& db, const fs::path& file) {
  std::string out;
  std::istringstream in(Slurp(file));
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, kv;
    words >> name;
    BundledQuery q = LoadBundled(name);
    Params params = q.defaults;
    while (words >> kv) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos) Errorf("bundled.txt: bad parameter '{}' (want key=value)", kv);
      std::string key = kv.substr(0, eq);
      if (!key.empty() && key[0] == ':') key = key.substr(1);
      params.insert(params.begin(), {key, kv.substr(eq + 1)});  // overrides come first and win
    }
    // Only the first binding of a name is applied: drop later duplicates.
    Params unique;
    for (auto& p : params) {
      bool seen = false;
      for (auto& u : unique) seen = seen || u.first == p.first;
      if (!seen) unique.push_back(p);
    }
    if (!first) out += "\n";
    first = false;
    out += "-- " + line + "\n";
    out += RunQueries(db, q.sql, unique);
  }
  return out;
}

// critical_path.txt: one window per line, as `tracesql critical-path` takes it ("--step 3",
// "--from 100 --to 200", "--trace-id 2", or empty for the whole trace); each is written to the
// critical_path table before query.sql runs.
void WriteCriticalPaths(Db& db, const fs::path& file) {
  std::istringstream in(Slurp(file));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') continue;
    std::istringstream words(line);
    critical_path::WindowRequest req;
    std::string flag;
    int64_t value = 0;
    while (words >> flag >> value) {
      if (flag == "--trace-id") req.trace_id = value;
      else if (flag == "--step") req.step = value;
      else if (flag == "--from") req.from = value;
      else if (flag == "--to") req.to = value;
      else Errorf("critical_path.txt: unknown flag {}", flag);
    }
    critical_path::Window w = critical_path::ResolveWindow(db, req);
    critical_path::Write(db, w, critical_path::Compute(db, w));
  }
}

// Runs every bundled query with its defaults on each trace (or database of one trace, a .db, read as
// it is): no query may fail.
int SmokeAll(const std::vector<std::string>& traces) {
  int rc = 0;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(RepoRoot() / "queries")) {
    if (e.path().extension() == ".sql") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  for (const auto& t : traces) {
    char tmpl[] = "/tmp/tq_smoke_XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    const bool given_db = fs::path(t).extension() == ".db";
    fs::path db_path = given_db ? fs::path(t) : fs::path(tmpl) / "t.db";
    try {
      if (!given_db) {
        ImportOptions opt;
        opt.warn = [](const std::string&) {};
        ImportTraces({t}, db_path.string(), opt);
      }
      Db db = Db::Open(db_path.string(), false, /*read_only=*/given_db);
      for (const auto& n : names) {
        BundledQuery q = LoadBundled(n);
        try {
          RunQueries(db, q.sql, q.defaults);
        } catch (const Error& e) {
          std::fprintf(stderr, "FAIL %s on %s: %s\n", n.c_str(), t.c_str(), e.what());
          rc = 1;
        }
      }
    } catch (const Error& e) {
      std::fprintf(stderr, "FAIL import %s: %s\n", t.c_str(), e.what());
      rc = 1;
    }
    std::error_code ec;
    fs::remove_all(tmpl, ec);
  }
  if (rc == 0) std::printf("ok: %zu bundled queries on %zu traces\n", names.size(), traces.size());
  return rc;
}

int TraceNumber(const fs::path& p) {
  std::smatch m;
  std::string name = p.filename().string();
  if (std::regex_search(name, m, std::regex("^trace(\\d+)"))) return std::atoi(m[1].str().c_str());
  return 1 << 30;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tq_golden CASE_DIR [--update]\n");
    return 2;
  }
  if (std::string(argv[1]) == "--smoke") {
    return SmokeAll(std::vector<std::string>(argv + 2, argv + argc));
  }
  fs::path dir = argv[1];
  bool update = argc > 2 && std::string(argv[2]) == "--update";
  std::vector<fs::path> traces;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string n = entry.path().filename().string();
    if (n.rfind("trace", 0) == 0 && (n.find(".json") != std::string::npos)) traces.push_back(entry.path());
  }
  std::sort(traces.begin(), traces.end(), [](const fs::path& a, const fs::path& b) {
    int x = TraceNumber(a), y = TraceNumber(b);
    return x != y ? x < y : a < b;
  });
  if (traces.empty()) {
    std::fprintf(stderr, "%s: no trace*.json files\n", dir.c_str());
    return 1;
  }
  char tmpl[] = "/tmp/tq_golden_XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  fs::path work = tmpl;
  fs::path db_path = work / "case.db";
  std::vector<std::string> paths;
  for (auto& t : traces) paths.push_back(t.string());
  ImportOptions opt;
  std::string warnings;
  opt.warn = [&](const std::string& w) { warnings += w + "\n"; };
  int rc = 0;
  fs::path err_file = dir / "expected.err";
  try {
    ImportTraces(paths, db_path.string(), opt);
    if (fs::exists(err_file)) {
      std::fprintf(stderr, "FAIL %s: import succeeded, expected an error containing: %s\n", dir.c_str(),
                   Trim(Slurp(err_file)).c_str());
      rc = 1;
    } else {
      Db db = Db::Open(db_path.string(), false);
      std::string actual;
      if (fs::exists(dir / "critical_path.txt")) WriteCriticalPaths(db, dir / "critical_path.txt");
      if (fs::exists(dir / "query.sql")) actual += RunQueries(db, Slurp(dir / "query.sql"));
      if (fs::exists(dir / "bundled.txt")) {
        if (!actual.empty()) actual += "\n";
        actual += RunBundled(db, dir / "bundled.txt");
      }
      fs::path exp_file = dir / "expected.csv";
      if (update) {
        std::ofstream(exp_file, std::ios::binary) << actual;
        std::printf("updated %s\n", exp_file.c_str());
      } else {
        std::string expected = fs::exists(exp_file) ? Slurp(exp_file) : "";
        if (Trim(expected) != Trim(actual)) {
          fs::path a = work / "actual.csv";
          std::ofstream(a, std::ios::binary) << actual;
          std::fprintf(stderr, "FAIL %s: output differs from expected.csv\n", dir.c_str());
          std::fflush(stderr);
          std::string cmd = "diff -u '" + exp_file.string() + "' '" + a.string() + "' 1>&2";
          if (std::system(cmd.c_str()) == -1) std::fprintf(stderr, "(diff unavailable)\n");
          rc = 1;
        }
      }
    }
  } catch (const Error& e) {
    if (fs::exists(err_file)) {
      std::string want = Trim(Slurp(err_file));
      std::string got = e.what();
      if (got.find(want) == std::string::npos) {
        std::fprintf(stderr, "FAIL %s: error\n  %s\ndoes not contain\n  %s\n", dir.c_str(), got.c_str(), want.c_str());
        rc = 1;
      }
      // Nothing may be left behind: no database, no temporary files.
      for (const auto& entry : fs::directory_iterator(work)) {
        std::fprintf(stderr, "FAIL %s: left behind %s\n", dir.c_str(), entry.path().c_str());
        rc = 1;
      }
    } else {
      std::fprintf(stderr, "FAIL %s: %s\n", dir.c_str(), e.what());
      rc = 1;
    }
  }
  if (!warnings.empty()) std::fprintf(stderr, "%s", warnings.c_str());
  std::error_code ec;
  fs::remove_all(work, ec);
  if (rc == 0) std::printf("ok %s\n", dir.filename().c_str());
  return rc;
}
