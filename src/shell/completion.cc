#include "shell/completion.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "tracesql/render.h"

namespace tracesql::shell {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// Whitespace-separated words of s.
std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Tables and views (not sqlite_ internals), in name order.
std::vector<std::string> Relations(sqlite3* db) {
  std::vector<std::string> out;
  if (!db) return out;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db,
                         "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
                         "ORDER BY name",
                         -1, &s, nullptr) == SQLITE_OK) {
    while (sqlite3_step(s) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  }
  sqlite3_finalize(s);
  return out;
}

std::vector<std::string> Columns(sqlite3* db, const std::string& relation) {
  std::vector<std::string> out;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &s, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, relation.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(s, 0);
      if (t) out.emplace_back(reinterpret_cast<const char*>(t));
    }
  }
  sqlite3_finalize(s);
  return out;
}

// The relation an alias stands for in "FROM events e" / "JOIN kernels AS k" on this line.
std::string ResolveAlias(std::string_view line, const std::string& alias, const std::vector<std::string>& relations) {
  std::string la = Lower(alias);
  for (const auto& r : relations) {
    if (Lower(r) == la) return r;
  }
  std::vector<std::string> tokens;
  for (size_t i = 0; i < line.size();) {
    if (IsWordChar(line[i])) {
      size_t j = i;
      while (j < line.size() && IsWordChar(line[j])) ++j;
      tokens.emplace_back(line.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (Lower(tokens[i]) != la) continue;
    size_t k = i - 1;
    if (Lower(tokens[k]) == "as" && k > 0) --k;
    for (const auto& r : relations) {
      if (Lower(r) == Lower(tokens[k])) return r;
    }
  }
  return "";
}

void AddMatching(std::set<std::string>& out, const std::vector<std::string>& names, std::string_view prefix,
                 bool no_case) {
  for (const auto& n : names) {
    if (no_case ? StartsWithNoCase(n, prefix) : n.compare(0, prefix.size(), prefix) == 0) out.insert(n);
  }
}

}  // namespace

std::vector<std::string> Complete(const CompletionSources& sources, std::string_view line, size_t* word_start) {
  std::set<std::string> out;
  *word_start = line.size();
  size_t lead = 0;
  while (lead < line.size() && std::isspace(static_cast<unsigned char>(line[lead]))) ++lead;
  std::string_view body = line.substr(lead);

  // Dot-commands and their arguments.
  if (sources.at_statement_start && !body.empty() && body[0] == '.') {
    std::vector<std::string_view> words = Words(body);
    bool in_first = body.find_first_of(" \t") == std::string_view::npos;
    if (in_first) {
      *word_start = lead;
      for (const auto& c : sources.dot_commands) {
        std::string full = "." + c;
        if (full.compare(0, body.size(), body) == 0) out.insert(full);
      }
      return {out.begin(), out.end()};
    }
    bool new_word = std::isspace(static_cast<unsigned char>(line.back()));
    std::string_view prefix = new_word ? std::string_view() : words.back();
    size_t arg_index = words.size() - (new_word ? 0 : 1);  // 1 = first argument
    *word_start = line.size() - prefix.size();
    std::string_view cmd = words[0];
    if (arg_index != 1) return {};
    if (cmd == ".run" || cmd == ".show") {
      AddMatching(out, sources.query_names, prefix, false);
    } else if (cmd == ".advise") {
      AddMatching(out, sources.rule_names, prefix, false);
    } else if (cmd == ".mode") {
      std::vector<std::string> modes;
      for (const auto& m : kOutputModes) modes.emplace_back(m.name);
      AddMatching(out, modes, prefix, false);
    } else if (cmd == ".headers" || cmd == ".timer" || cmd == ".bail") {
      AddMatching(out, {"on", "off"}, prefix, false);
    } else if (cmd == ".param") {
      AddMatching(out, {"clear", "list", "set", "unset"}, prefix, false);
    } else if (cmd == ".schema" || cmd == ".tables") {
      AddMatching(out, Relations(sources.db), prefix, false);
    }
    return {out.begin(), out.end()};
  }

  // SQL: the word before the cursor, and what is before it.
  size_t start = line.size();
  while (start > 0 && IsWordChar(line[start - 1])) --start;
  std::string_view prefix = line.substr(start);
  *word_start = start;
  std::vector<std::string> relations = Relations(sources.db);
  if (start > 0 && line[start - 1] == '.') {
    size_t q = start - 1;
    while (q > 0 && IsWordChar(line[q - 1])) --q;
    std::string qualifier(line.substr(q, start - 1 - q));
    std::string relation = ResolveAlias(line, qualifier, relations);
    if (!relation.empty()) AddMatching(out, Columns(sources.db, relation), prefix, true);
    return {out.begin(), out.end()};
  }
  if (prefix.empty()) {
    std::vector<std::string_view> words = Words(line);
    std::string last = words.empty() ? "" : Lower(words.back());
    if (last == "from" || last == "join" || last == "into" || last == "update" || last == "table") {
      return relations;
    }
    return {};
  }
  AddMatching(out, relations, prefix, true);
  std::set<std::string> columns;
  for (const auto& r : relations) {
    for (auto& c : Columns(sources.db, r)) columns.insert(std::move(c));
  }
  AddMatching(out, {columns.begin(), columns.end()}, prefix, true);
  std::vector<std::string> keywords;
  for (int i = 0; i < sqlite3_keyword_count(); ++i) {
    const char* k = nullptr;
    int n = 0;
    if (sqlite3_keyword_name(i, &k, &n) == SQLITE_OK) keywords.emplace_back(k, static_cast<size_t>(n));
  }
  AddMatching(out, keywords, prefix, true);
  return {out.begin(), out.end()};
}

}  // namespace tracesql::shell
