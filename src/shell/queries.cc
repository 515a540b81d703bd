#include "tracesql/queries.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"
#include "tracesql/sql_files.h"
#include "tracesql/user_dirs.h"

namespace tracesql {
namespace fs = std::filesystem;
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Reads a kind at the start of s ("(integer)", "(number)", "{a|b|c}") into p and returns the rest of
// s; returns s unchanged when it starts with none (the text is then part of the meaning).
std::string_view ParseParamKind(std::string_view s, QueryParamDoc* p) {
  for (auto [text, kind] : {std::pair{std::string_view("(integer)"), QueryParamDoc::Kind::kInteger},
                            std::pair{std::string_view("(number)"), QueryParamDoc::Kind::kNumber}}) {
    if (StartsWith(s, text)) {
      p->kind = kind;
      return Trim(s.substr(text.size()));
    }
  }
  size_t close = s.find('}');
  if (s.empty() || s[0] != '{' || close == std::string_view::npos) return s;
  std::string_view list = s.substr(1, close - 1);
  std::vector<std::string> choices;
  while (true) {
    size_t bar = list.find('|');
    std::string_view c = Trim(list.substr(0, bar));
    if (c.empty()) return s;  // "{}" or "{a||b}": not a list of values
    choices.emplace_back(c);
    if (bar == std::string_view::npos) break;
    list.remove_prefix(bar + 1);
  }
  p->kind = QueryParamDoc::Kind::kChoice;
  p->choices = std::move(choices);
  return Trim(s.substr(close + 1));
}

// "-- param :limit 20 (integer) — number of rows": name, default (one word or a 'quoted string'),
// kind, then the meaning after an em dash, "--" or "-". Default and kind are optional.
QueryParamDoc ParseParamLine(std::string_view rest) {
  QueryParamDoc p;
  rest = Trim(rest);
  if (!rest.empty() && (rest[0] == ':' || rest[0] == '@' || rest[0] == '$')) rest.remove_prefix(1);
  size_t end = 0;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t') ++end;
  p.name = std::string(rest.substr(0, end));
  rest = Trim(rest.substr(end));
  auto strip_dash = [](std::string_view s, bool* had) {
    for (std::string_view d : {std::string_view("\xE2\x80\x94"), std::string_view("--"), std::string_view("-")}) {
      if (StartsWith(s, d) && (s.size() == d.size() || s[d.size()] == ' ')) {
        *had = true;
        return Trim(s.substr(d.size()));
      }
    }
    *had = false;
    return s;
  };
  bool dash = false;
  std::string_view after = strip_dash(rest, &dash);
  if (dash) {
    p.meaning = std::string(after);
    return p;
  }
  std::string_view kind_rest = ParseParamKind(rest, &p);
  if (p.kind == QueryParamDoc::Kind::kAny) {
    if (!rest.empty() && rest[0] == '\'') {
      size_t close = rest.find('\'', 1);
      end = close == std::string_view::npos ? rest.size() : close + 1;
    } else {
      end = 0;
      while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t') ++end;
    }
    p.default_value = std::string(rest.substr(0, end));
    kind_rest = ParseParamKind(Trim(rest.substr(end)), &p);
  }
  p.meaning = std::string(strip_dash(kind_rest, &dash));
  return p;
}

QueryFile FromText(std::string name, std::string text, bool builtin, std::string path) {
  QueryFile q;
  q.name = std::move(name);
  q.text = std::move(text);
  q.builtin = builtin;
  q.path = std::move(path);
  ParseQueryHeader(q.text, &q);
  return q;
}

QueryFile FromSource(SqlFileSource f) {
  QueryFile q = FromText(std::move(f.name), std::move(f.text), f.builtin, std::move(f.path));
  q.shadows_builtin = f.shadows_builtin;
  return q;
}

}  // namespace

void ParseQueryHeader(std::string_view text, QueryFile* q) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = Trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty()) continue;
    if (!StartsWith(line, "--")) break;  // the header ends at the first SQL line
    std::string_view body = Trim(line.substr(2));
    if (StartsWith(body, "description:")) {
      q->description = std::string(Trim(body.substr(12)));
    } else if (StartsWith(body, "param ") || StartsWith(body, "param:")) {
      QueryParamDoc p = ParseParamLine(body.substr(6));
      if (!p.name.empty()) q->params.push_back(std::move(p));
    } else if (StartsWith(body, "format:")) {
      q->format = std::string(Trim(body.substr(7)));
    }
  }
}

std::string QueryParamDoc::KindText() const {
  switch (kind) {
    case Kind::kAny: return "any value";
    case Kind::kInteger: return "an integer";
    case Kind::kNumber: return "a number";
    case Kind::kChoice: {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      return "one of " + list;
    }
  }
  return "";
}

void CheckParamValues(const QueryFile& q, const Params& given) {
  for (const auto& p : q.params) {
    auto it = given.find(p.name);
    if (it == given.end()) continue;
    const std::string& v = it->second;
    ParamKind bound = ClassifyParamValue(v);
    bool fits = true;
    switch (p.kind) {
      case QueryParamDoc::Kind::kAny: break;
      case QueryParamDoc::Kind::kInteger: fits = bound == ParamKind::kInteger; break;
      case QueryParamDoc::Kind::kNumber: fits = bound != ParamKind::kText; break;
      case QueryParamDoc::Kind::kChoice: {
        bool quoted = v.size() >= 2 && v.front() == '\'' && v.back() == '\'';
        std::string_view text = quoted ? std::string_view(v).substr(1, v.size() - 2) : std::string_view(v);
        fits = std::find(p.choices.begin(), p.choices.end(), text) != p.choices.end();
        break;
      }
    }
    if (!fits) Errorf("{}: :{} cannot be {} (expected {})", q.name, p.name, v.empty() ? "''" : v, p.KindText());
  }
}

std::vector<std::string> UserQueryDirs(const std::vector<std::string>& cli_dirs) {
  std::vector<std::string> dirs = cli_dirs;
  if (const char* env = std::getenv("TRACESQL_QUERIES"); env && *env) {
    std::string_view s = env;
    while (!s.empty()) {
      size_t colon = s.find(':');
      std::string_view d = s.substr(0, colon);
      if (!d.empty()) dirs.emplace_back(d);
      if (colon == std::string_view::npos) break;
      s.remove_prefix(colon + 1);
    }
  }
  if (std::string config = UserDir("XDG_CONFIG_HOME", ".config"); !config.empty()) {
    dirs.push_back((fs::path(config) / "queries").string());
  }
  return dirs;
}

std::vector<QueryFile> ListQueries(const std::vector<std::string>& user_dirs) {
  std::vector<QueryFile> out;
  for (auto& f : ListSqlFiles(user_dirs, "queries/", "query")) out.push_back(FromSource(std::move(f)));
  return out;
}

std::optional<QueryFile> FindQuery(std::string_view name, const std::vector<std::string>& user_dirs) {
  if (name.find('/') != std::string_view::npos || EndsWith(name, ".sql")) {
    fs::path p{std::string(name)};
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) Errorf("{}: no such query file", name);
    return FromText(p.stem().string(), ReadSqlText(p, "query"), false, p.string());
  }
  for (const auto& dir : user_dirs) {
    fs::path p = fs::path(dir) / (std::string(name) + ".sql");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      QueryFile q = FromText(std::string(name), ReadSqlText(p, "query"), false, p.string());
      for (const auto& b : EmbeddedFilesUnder("queries/")) {
        if (b.path == "queries/" + std::string(name) + ".sql") q.shadows_builtin = true;
      }
      return q;
    }
  }
  for (auto& f : BundledSqlFiles("queries/")) {
    if (f.name == name) return FromSource(std::move(f));
  }
  return std::nullopt;
}

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string ClosestQueryName(std::string_view name, const std::vector<std::string>& user_dirs) {
  std::string want = Lower(name);
  const size_t limit = std::clamp<size_t>(want.size() / 3, 1, 3);
  size_t best = limit + 1;
  std::vector<std::string> closest, prefixed;
  std::vector<QueryFile> all;
  try {
    all = ListQueries(user_dirs);
  } catch (const Error&) {
    return "";  // an unreadable user query: the hint is left out, the caller's error stands
  }
  for (const auto& q : all) {
    std::string have = Lower(q.name);
    size_t d = EditDistance(want, have);
    if (d < best) {
      best = d;
      closest.clear();
    }
    if (d == best) closest.push_back(q.name);
    if (!want.empty() && have.rfind(want, 0) == 0) prefixed.push_back(q.name);
  }
  if (best <= limit) return closest.size() == 1 ? closest[0] : "";
  return prefixed.size() == 1 ? prefixed[0] : "";
}

}  // namespace tracesql
