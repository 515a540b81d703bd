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

std::string RunQueries(Db& db, const std::string& sql) {
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
      std::string actual = RunQueries(db, Slurp(dir / "query.sql"));
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
