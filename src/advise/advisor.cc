#include "tracesql/advise.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <variant>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/sql_files.h"
#include "tracesql/user_db.h"
#include "tracesql/user_dirs.h"

namespace tracesql {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kRulesPrefix = "rules/";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "sync_points limit=-1 min_dur=0" -> {name, params}.
UsedQuery ParseUses(std::string_view rest, std::string_view rule) {
  UsedQuery u;
  std::istringstream words{std::string(rest)};
  std::string w;
  while (words >> w) {
    if (u.name.empty()) {
      u.name = w;
    } else {
      auto [k, v] = ParseParamAssignment(w);
      u.params[k] = v;
    }
  }
  if (u.name.empty()) Errorf("{}: '-- uses:' names no query", rule);
  return u;
}

RuleFile FromText(std::string name, std::string text, bool builtin, std::string path) {
  RuleFile r;
  r.name = std::move(name);
  r.text = std::move(text);
  r.builtin = builtin;
  r.path = std::move(path);
  ParseRuleHeader(r.text, &r);
  return r;
}

// Prepares the first statement of sql; throws, naming source, on an error or when more statements
// follow it.
Stmt PrepareOne(sqlite3* db, const std::string& sql, const std::string& source) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    Errorf("{}: {}", source, sqlite3_errmsg(db));
  }
  if (!raw) Errorf("{}: holds no SQL statement", source);
  sqlite3_finalize(raw);
  sqlite3_stmt* rest = nullptr;
  if (tail && *tail && sqlite3_prepare_v2(db, tail, -1, &rest, nullptr) == SQLITE_OK && rest) {
    sqlite3_finalize(rest);
    Errorf("{}: holds more than one statement (a rule is one SELECT)", source);
  }
  return Stmt(db, std::string_view(sql.c_str(), static_cast<size_t>(tail - sql.c_str())));
}

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    Errorf("advise: {}", msg);
  }
}

// Each rule's severity thresholds come from here (see advise.h).
constexpr const char* kSetUp = R"sql(
DROP TABLE IF EXISTS temp.advise_traces;
DROP TABLE IF EXISTS temp.advise_findings;
DROP TABLE IF EXISTS temp.advise_rules;
DROP TABLE IF EXISTS temp.advise_kept;
CREATE TEMP TABLE advise_traces AS
SELECT t.id AS trace_id,
       coalesce(g.span_ns, t.end_ts - t.start_ts, 0) AS span_ns,
       coalesce(g.span_ns, t.end_ts - t.start_ts, 0) / 10 AS high_ns,
       coalesce(g.span_ns, t.end_ts - t.start_ts, 0) * 3 / 100 AS medium_ns
FROM traces AS t
LEFT JOIN (SELECT trace_id, max(gpu_ts + gpu_dur) - min(gpu_ts) AS span_ns
           FROM op_kernel_links WHERE gpu_dur IS NOT NULL GROUP BY trace_id) AS g ON g.trace_id = t.id;
CREATE TEMP TABLE advise_findings (trace_id INTEGER, rule TEXT, severity TEXT, time_lost_ns INTEGER,
                                   title TEXT, evidence TEXT, advice TEXT);
CREATE TEMP TABLE advise_rules (rule TEXT, title TEXT, findings INTEGER, source TEXT);
CREATE TEMP TABLE advise_kept (query TEXT, params TEXT, table_name TEXT);
)sql";

void MaterializeQuery(sqlite3* db, const UsedQuery& u, const RuleFile& rule) {
  auto q = FindQuery(u.name, {});
  if (!q) Errorf("{}: uses '{}', which is no bundled query", rule.Source(), u.name);
  std::set<std::string> known = ReferencedParams(q->text);
  CheckParamsKnown(u.params, known, u.name);
  std::string table = "q_" + u.name;
  Exec(db, ("DROP TABLE IF EXISTS temp.\"" + table + "\"").c_str());
  std::string sql = "CREATE TEMP TABLE \"" + table + "\" AS\n" + q->text;
  Stmt s = PrepareOne(db, sql, q->Source());
  BindParams(s.get(), u.params);
  try {
    s.Run();
  } catch (const Error& e) {
    Errorf("{} (used by {}): {}", q->Source(), rule.Source(), e.what());
  }
}

// One value of a result row, copied out of a worker's connection.
using Cell = std::variant<std::monostate, int64_t, double, std::string>;

Cell ReadCell(sqlite3_stmt* s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL: return std::monostate{};
    case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_column_int64(s, i));
    case SQLITE_FLOAT: return sqlite3_column_double(s, i);
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
      return std::string(text, static_cast<size_t>(sqlite3_column_bytes(s, i)));
    }
  }
}

void BindCell(sqlite3_stmt* s, int i, const Cell& c) {
  if (std::holds_alternative<int64_t>(c)) {
    sqlite3_bind_int64(s, i, std::get<int64_t>(c));
  } else if (std::holds_alternative<double>(c)) {
    sqlite3_bind_double(s, i, std::get<double>(c));
  } else if (std::holds_alternative<std::string>(c)) {
    const auto& t = std::get<std::string>(c);
    sqlite3_bind_text(s, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(s, i);
  }
}

std::string UsesKey(const UsedQuery& u) {
  std::string key = u.name;
  for (const auto& [k, v] : u.params) key += " " + k + "=" + v;
  return key;
}

// A "-- uses:" query's result read out of a worker's connection (AdviseOptions::keep).
struct KeptRows {
  UsedQuery query;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

struct RuleRun {
  std::vector<std::array<Cell, 7>> rows;
  double seconds = 0;
  std::string error;  // the rule failed: the whole message
  std::vector<KeptRows> kept;  // the results of its uses that AdviseOptions::keep chose
};

std::string QuoteName(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The rows of the table q_<name> on conn, in rowid order (the query's order).
KeptRows ReadKept(sqlite3* conn, const UsedQuery& u) {
  KeptRows k{u, {}, {}};
  Stmt s(conn, "SELECT * FROM temp." + QuoteName("q_" + u.name) + " ORDER BY rowid");
  int n = sqlite3_column_count(s.get());
  for (int i = 0; i < n; ++i) k.columns.emplace_back(sqlite3_column_name(s.get(), i));
  while (s.Step()) {
    std::vector<Cell> row(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) row[static_cast<size_t>(i)] = ReadCell(s.get(), i);
    k.rows.push_back(std::move(row));
  }
  return k;
}

// Drops the tables a previous Advise kept on db (listed in temp.advise_kept).
void DropKept(sqlite3* db) {
  std::vector<std::string> tables;
  {
    Stmt exists(db, "SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = 'advise_kept'");
    if (!exists.Step()) return;
    Stmt s(db, "SELECT table_name FROM temp.advise_kept");
    while (s.Step()) tables.push_back(s.ColumnText(0));
  }
  for (const auto& t : tables) Exec(db, ("DROP TABLE IF EXISTS temp." + QuoteName(t)).c_str());
}

// Runs one rule on conn into run; q_tables: the q_ tables made on conn so far (name -> UsesKey).
void RunRule(sqlite3* conn, const RuleFile& rule, const AdviseOptions& options,
             std::map<std::string, std::string>* q_tables, RuleRun* run) {
  const Params& given = options.params;
  auto start = std::chrono::steady_clock::now();
  Params bound;
  for (const auto& p : rule.params) {
    if (!p.default_value.empty() && p.default_value != "NULL") bound[p.name] = p.default_value;
  }
  for (const auto& [k, v] : given) bound[k] = v;
  if (!rule.when.empty()) {
    Stmt w = PrepareOne(conn, "SELECT (" + rule.when + ")", rule.Source() + " (-- when:)");
    BindParams(w.get(), bound);
    bool go = w.Step() && sqlite3_column_int64(w.get(), 0) != 0;
    if (!go) {
      run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return;  // the "-- when:" test's time is the rule's (--timings)
    }
  }
  for (const auto& u : rule.uses) {
    std::string key = UsesKey(u);
    auto it = q_tables->find(u.name);
    if (it != q_tables->end() && it->second == key) continue;
    MaterializeQuery(conn, u, rule);
    (*q_tables)[u.name] = key;
    if (options.keep && options.keep(u)) run->kept.push_back(ReadKept(conn, u));
  }
  Stmt s = PrepareOne(conn, rule.text, rule.Source());
  const auto& want = FindingColumns();
  std::vector<std::string> got;
  for (int i = 0; i < sqlite3_column_count(s.get()); ++i) got.emplace_back(sqlite3_column_name(s.get(), i));
  if (got != want) {
    std::string list;
    for (const auto& c : got) list += (list.empty() ? "" : ", ") + c;
    Errorf("{}: a rule returns the columns trace_id, rule, severity, time_lost_ns, title, evidence, advice; this "
           "one returns {}",
           rule.Source(), list.empty() ? "none" : list);
  }
  BindParams(s.get(), bound);
  try {
    while (s.Step()) {
      std::array<Cell, 7> row;
      for (int i = 0; i < 7; ++i) row[i] = ReadCell(s.get(), i);
      run->rows.push_back(std::move(row));
    }
  } catch (const Error& e) {
    Errorf("{}: {}", rule.Source(), e.what());
  }
  run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs the rules of one unit in order on conn, then drops the q_ tables it made. A failing rule
// records its error and ends the unit.
void RunUnit(sqlite3* conn, const std::vector<RuleFile>& rules, const std::vector<size_t>& unit,
             const AdviseOptions& options, std::vector<RuleRun>* runs) {
  std::map<std::string, std::string> q_tables;
  for (size_t i : unit) {
    try {
      RunRule(conn, rules[i], options, &q_tables, &(*runs)[i]);
    } catch (const std::exception& e) {
      (*runs)[i].error = e.what();
      break;
    }
  }
  for (const auto& [name, key] : q_tables) {
    try {
      Exec(conn, ("DROP TABLE IF EXISTS temp.\"q_" + name + "\"").c_str());
    } catch (const Error&) {
      // a rule still reading it failed; the connection's next Advise replaces it
    }
  }
}

}  // namespace

const std::vector<std::string>& FindingColumns() {
  static const std::vector<std::string> kColumns = {"trace_id", "rule",     "severity", "time_lost_ns",
                                                    "title",    "evidence", "advice"};
  return kColumns;
}

void ParseRuleHeader(std::string_view text, RuleFile* r) {
  QueryFile q;
  ParseQueryHeader(text, &q);
  r->params = std::move(q.params);
  std::string* last = nullptr;  // the key a continuation line ("--   more") extends
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (!StartsWith(line, "--")) break;
    std::string_view after = line.substr(2);
    std::string_view body = Trim(after);
    std::string* target = nullptr;
    for (auto [key, field] : {std::pair<std::string_view, std::string*>{"title:", &r->title},
                              {"detects:", &r->detects},
                              {"evidence:", &r->evidence},
                              {"advice:", &r->advice},
                              {"time lost:", &r->time_lost},
                              {"anchor:", &r->anchor}}) {
      if (StartsWith(body, key)) {
        target = field;
        *target = std::string(Trim(body.substr(key.size())));
        break;
      }
    }
    if (target) {
      last = target;
    } else if (StartsWith(body, "when:")) {
      r->when = std::string(Trim(body.substr(5)));
      last = &r->when;
    } else if (StartsWith(body, "uses:")) {
      r->uses.push_back(ParseUses(body.substr(5), r->path));
      last = nullptr;
    } else if (last && StartsWith(after, "   ") && !body.empty()) {
      *last += " " + std::string(body);
    } else {
      last = nullptr;
    }
  }
}

std::vector<std::string> UserRuleDirs(const std::vector<std::string>& cli_dirs) {
  std::vector<std::string> dirs = cli_dirs;
  if (std::string config = UserDir("XDG_CONFIG_HOME", ".config"); !config.empty()) {
    dirs.push_back((fs::path(config) / "rules").string());
  }
  return dirs;
}

std::vector<RuleFile> ListRules(const std::vector<std::string>& rule_dirs) {
  std::vector<RuleFile> out;
  for (auto& f : ListSqlFiles(rule_dirs, kRulesPrefix, "rule")) {
    RuleFile r = FromText(std::move(f.name), std::move(f.text), f.builtin, std::move(f.path));
    r.shadows_builtin = f.shadows_builtin;
    out.push_back(std::move(r));
  }
  return out;
}

std::string_view FindingsSql() {
  return "SELECT trace_id, rule, severity, time_lost_ns, title, evidence, advice FROM temp.advise_findings\n"
         "ORDER BY time_lost_ns DESC, rule, trace_id, title";
}

std::string_view RulesRunSql() {
  return "SELECT rule, CASE WHEN findings = 0 THEN 'passed' ELSE findings || ' found' END AS result, title, source\n"
         "FROM temp.advise_rules ORDER BY rule";
}

AdviseResult Advise(sqlite3* db, const AdviseOptions& options) {
  std::vector<RuleFile> rules = ListRules(options.rule_dirs);
  if (!options.only_rule.empty()) {
    auto it = std::find_if(rules.begin(), rules.end(), [&](const RuleFile& r) { return r.name == options.only_rule; });
    if (it == rules.end()) Errorf("no rule named '{}' (see `tracesql advise --list`)", options.only_rule);
    rules = {*it};
  }
  std::set<std::string> known;
  for (const auto& r : rules) {
    for (const auto& p : r.params) known.insert(p.name);
  }
  for (const auto& [name, value] : options.params) {
    if (!known.count(name)) {
      Errorf("no rule {}takes the parameter :{} (see `tracesql advise --list`)",
             options.only_rule.empty() ? "" : "named '" + options.only_rule + "' ", name);
    }
  }

  DropKept(db);
  Exec(db, kSetUp);
  std::vector<std::array<Cell, 4>> traces;
  {
    Stmt t(db, "SELECT trace_id, span_ns, high_ns, medium_ns FROM temp.advise_traces");
    while (t.Step()) {
      traces.push_back({ReadCell(t.get(), 0), ReadCell(t.get(), 1), ReadCell(t.get(), 2), ReadCell(t.get(), 3)});
    }
  }

  // Rules that use the same query (with the same parameters) run one after the other on one
  // connection, so the query runs once; the other units run in parallel on connections of their own.
  std::vector<std::vector<size_t>> units;
  std::map<std::string, size_t> unit_of_query;
  for (size_t i = 0; i < rules.size(); ++i) {
    std::string key = rules[i].uses.empty() ? "" : UsesKey(rules[i].uses.front());
    if (!key.empty() && unit_of_query.count(key)) {
      units[unit_of_query[key]].push_back(i);
      continue;
    }
    if (!key.empty()) unit_of_query[key] = units.size();
    units.push_back({i});
  }
  std::vector<RuleRun> runs(rules.size());
  const char* file = sqlite3_db_filename(db, "main");
  size_t workers = std::min<size_t>({units.size(), std::max(1u, std::thread::hardware_concurrency()), 8});
  if (workers <= 1 || !file || !*file) {
    for (const auto& unit : units) RunUnit(db, rules, unit, options, &runs);
  } else {
    std::string path = file;
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        std::optional<UserDb> conn;
        std::string open_error;
        try {
          conn = UserDb::Open(path, /*any_db=*/true);
          Exec(conn->get(), "CREATE TEMP TABLE advise_traces (trace_id INTEGER, span_ns INTEGER, high_ns INTEGER, "
                            "medium_ns INTEGER)");
          Stmt ins(conn->get(), "INSERT INTO temp.advise_traces VALUES (?1, ?2, ?3, ?4)");
          for (const auto& row : traces) {
            for (int i = 0; i < 4; ++i) BindCell(ins.get(), i + 1, row[i]);
            ins.Run();
          }
        } catch (const std::exception& e) {
          open_error = fmt::format("{}: {}", path, e.what());
        }
        for (size_t u = next++; u < units.size(); u = next++) {
          if (!open_error.empty()) {
            runs[units[u].front()].error = open_error;
            continue;
          }
          RunUnit(conn->get(), rules, units[u], options, &runs);
        }
      });
    }
    for (auto& t : pool) t.join();
  }

  Stmt insert(db, "INSERT INTO temp.advise_findings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  Stmt insert_rule(db, "INSERT INTO temp.advise_rules VALUES (?1, ?2, ?3, ?4)");
  AdviseResult result;
  for (size_t i = 0; i < rules.size(); ++i) {
    const RuleRun& run = runs[i];
    if (!run.error.empty()) throw Error(run.error);
    for (const auto& row : run.rows) {
      for (int c = 0; c < 7; ++c) BindCell(insert.get(), c + 1, row[c]);
      insert.Run();
    }
    auto n = static_cast<int64_t>(run.rows.size());
    insert_rule.BindTextCopy(1, rules[i].name);
    insert_rule.BindTextCopy(2, rules[i].title);
    insert_rule.BindInt(3, n);
    insert_rule.BindTextCopy(4, rules[i].Source());
    insert_rule.Run();
    result.rules.push_back({rules[i].name, rules[i].title, n, run.seconds});
  }
  // The kept results, each query and parameters once, into tables of the caller's connection.
  Stmt insert_kept(db, "INSERT INTO temp.advise_kept VALUES (?1, ?2, ?3)");
  std::set<std::string> kept_keys;
  for (const RuleRun& run : runs) {
    for (const KeptRows& k : run.kept) {
      if (!kept_keys.insert(UsesKey(k.query)).second) continue;
      std::string table = fmt::format("advise_kept_{}", result.kept.size() + 1);
      std::string columns, marks;
      for (size_t c = 0; c < k.columns.size(); ++c) {
        columns += (c ? ", " : "") + QuoteName(k.columns[c]);
        marks += fmt::format("{}?{}", c ? ", " : "", c + 1);
      }
      Exec(db, ("CREATE TEMP TABLE " + QuoteName(table) + " (" + columns + ")").c_str());
      Stmt ins(db, "INSERT INTO temp." + QuoteName(table) + " VALUES (" + marks + ")");
      for (const auto& row : k.rows) {
        for (size_t c = 0; c < row.size(); ++c) BindCell(ins.get(), static_cast<int>(c) + 1, row[c]);
        ins.Run();
      }
      std::string params = UsesKey(k.query).substr(k.query.name.size());
      insert_kept.BindTextCopy(1, k.query.name);
      insert_kept.BindTextCopy(2, params.empty() ? params : params.substr(1));
      insert_kept.BindTextCopy(3, table);
      insert_kept.Run();
      result.kept.push_back({k.query, table});
    }
  }
  Stmt read(db, FindingsSql());
  while (read.Step()) {
    Finding f;
    if (!read.ColumnIsNull(0)) f.trace_id = read.ColumnInt(0);
    f.rule = read.ColumnText(1);
    f.severity = read.ColumnText(2);
    f.time_lost_ns = read.ColumnInt(3);
    f.title = read.ColumnText(4);
    f.evidence = read.ColumnText(5);
    f.advice = read.ColumnText(6);
    result.findings.push_back(std::move(f));
  }
  return result;
}

}  // namespace tracesql
