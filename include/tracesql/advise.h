// Advice: rules (SQL files) that find what costs a trace time, each finding ranked by the time it cost.
//
// A rule is a SQL file (rules/NAME.sql, embedded at build time; a user's NAME.sql in a rule directory
// shadows it) with a header of comment lines, then one SELECT:
//   -- title: GPU idle waiting for the host
//   -- detects: what the rule finds (continuation lines start with "--   ")
//   -- evidence: what the evidence column holds
//   -- advice: what to do about it
//   -- time lost: how time_lost_ns is estimated
//   -- anchor: the tool or paper the rule comes from
//   -- when: (SELECT count(*) FROM traces) >= 2
//   -- uses: sync_points limit=-1
//   -- param :min_share 0.05 — meaning
// Every rule returns the columns trace_id, rule, severity, time_lost_ns, title, evidence, advice (in
// that order). "-- uses: QUERY k=v ..." runs the bundled query QUERY (with those parameters) into the
// temporary table q_QUERY before the rule runs, so a rule reads a query's result instead of repeating
// its logic; each query runs once per Advise call. "-- when: EXPR" skips the rule (and its queries)
// unless SELECT (EXPR) is true: a cheap test that the database can have such findings. Parameters
// are bound by name: the value given in AdviseOptions::params, else the default written in the header.
//
// Before the rules run, Advise creates temp.advise_traces (trace_id, span_ns, high_ns, medium_ns): per
// trace, span_ns is first GPU op start .. last GPU op end (the trace's first to last event when it has
// no GPU op); high_ns / medium_ns are 10 % / 3 % of it, the severity thresholds rules use.
// When db is a file, the rules run in parallel, each group of rules that use the same query on a
// connection of its own (one per hardware thread, 8 at most), which only reads. The findings are left
// in temp.advise_findings and the rules run in temp.advise_rules, so a caller (the shell, the report)
// can read them with SQL.
// The query results AdviseOptions::keep chooses are left in temporary tables too, listed in
// temp.advise_kept (query, params, table_name); a later Advise on the connection drops them.
#ifndef TRACESQL_ADVISE_H_
#define TRACESQL_ADVISE_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tracesql/params.h"
#include "tracesql/queries.h"

namespace tracesql {

struct UsedQuery {
  std::string name;     // bundled query name
  Params params;        // its parameters, as written after the name
};

struct RuleFile {
  std::string name;         // file name without .sql
  std::string title;        // "-- title:"
  std::string detects;      // "-- detects:"
  std::string evidence;     // "-- evidence:"
  std::string advice;       // "-- advice:"
  std::string time_lost;    // "-- time lost:"
  std::string anchor;       // "-- anchor:"
  std::string when;         // "-- when:": a SQL expression; the rule runs only where it is true
  std::vector<UsedQuery> uses;
  std::vector<QueryParamDoc> params;
  std::string text;         // the whole file
  bool builtin = false;     // embedded in the binary
  std::string path;         // the file for a user rule; "rules/NAME.sql" for a bundled one
  bool shadows_builtin = false;
  // For listings and error messages: "builtin:rules/NAME.sql" or the user file's path.
  std::string Source() const { return builtin ? "builtin:" + path : path; }
};

struct Finding {
  std::optional<int64_t> trace_id;
  std::string rule;
  std::string severity;           // 'high' | 'medium' | 'low'
  int64_t time_lost_ns = 0;
  std::string title;
  std::string evidence;
  std::string advice;
};

struct RuleOutcome {
  std::string rule;
  std::string title;
  int64_t findings = 0;
  double seconds = 0;  // wall time of the rule, with the queries it was first to use
};

struct AdviseOptions {
  std::vector<std::string> rule_dirs;  // user rule directories, searched in order (UserRuleDirs)
  std::string only_rule;               // run only this rule (name); empty: all
  Params params;                       // -p key=value for the rules' :params
  // The "-- uses:" query results to leave on the caller's connection (see KeptQuery), so that a
  // caller that needs the same result (the report) does not run the query again. Unset: none.
  std::function<bool(const UsedQuery&)> keep;
};

// A "-- uses:" query's result that Advise left on the caller's connection: the temporary table
// temp.<table> holds its rows in the query's order (rowid order), under its column names, each value
// as the query returned it (integer, real or text; the columns have no affinity).
struct KeptQuery {
  UsedQuery query;
  std::string table;  // "advise_kept_1", ...
};

struct AdviseResult {
  std::vector<Finding> findings;       // most time lost first (then rule, trace_id)
  std::vector<RuleOutcome> rules;      // every rule run, by name
  std::vector<KeptQuery> kept;         // the results options.keep chose, of the queries that ran
};

// The columns every rule returns, in order.
const std::vector<std::string>& FindingColumns();

// Parses the header comment lines of a rule file into r (title, detects, ..., uses, params).
void ParseRuleHeader(std::string_view text, RuleFile* r);

// cli_dirs, then ${XDG_CONFIG_HOME:-$HOME/.config}/tracesql/rules.
std::vector<std::string> UserRuleDirs(const std::vector<std::string>& cli_dirs);

// Every rule, sorted by name: a user rule (first directory wins) shadows the bundled one of its name.
// Throws tracesql::Error when a user rule cannot be read.
std::vector<RuleFile> ListRules(const std::vector<std::string>& rule_dirs);

// Runs the rules on db. Throws tracesql::Error naming the rule's file when a rule fails to prepare or
// run, returns other columns than FindingColumns(), or uses an unknown query; and when a parameter
// is given that no rule to run takes, or only_rule names no rule.
AdviseResult Advise(sqlite3* db, const AdviseOptions& options);

// The SQL that lists the findings Advise left in temp.advise_findings, most costly first; and the
// rules it ran (rule, title, findings) for --all.
std::string_view FindingsSql();
std::string_view RulesRunSql();

}  // namespace tracesql

#endif  // TRACESQL_ADVISE_H_
