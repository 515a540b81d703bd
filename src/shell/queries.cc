#include "tracesql/queries.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"
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

// "-- param :limit 20 — number of rows": name, default (one word or a 'quoted string'), then the
// meaning after an em dash, "--" or "-".
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
  if (!rest.empty() && rest[0] == '\'') {
    size_t close = rest.find('\'', 1);
    end = close == std::string_view::npos ? rest.size() : close + 1;
  } else {
    end = 0;
    while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t') ++end;
  }
  p.default_value = std::string(rest.substr(0, end));
  p.meaning = std::string(strip_dash(Trim(rest.substr(end)), &dash));
  return p;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) Errorf("{}: cannot read query file", p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

std::vector<QueryFile> Bundled() {
  std::vector<QueryFile> out;
  for (const auto& f : EmbeddedFilesUnder("queries/")) {
    std::string_view path = f.path;
    if (!EndsWith(path, ".sql")) continue;
    std::string name(path.substr(8, path.size() - 8 - 4));
    out.push_back(FromText(std::move(name), std::string(f.text), true, std::string(path)));
  }
  return out;
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
  std::map<std::string, QueryFile> by_name;
  for (const auto& dir : user_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".sql" && !entry.is_directory(ec)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string name = f.stem().string();
      if (by_name.count(name)) continue;  // an earlier directory wins
      by_name.emplace(name, FromText(name, ReadText(f), false, f.string()));
    }
  }
  for (auto& q : Bundled()) {
    auto it = by_name.find(q.name);
    if (it != by_name.end()) {
      it->second.shadows_builtin = true;
      continue;
    }
    by_name.emplace(q.name, std::move(q));
  }
  std::vector<QueryFile> out;
  for (auto& [name, q] : by_name) out.push_back(std::move(q));
  return out;
}

std::optional<QueryFile> FindQuery(std::string_view name, const std::vector<std::string>& user_dirs) {
  if (name.find('/') != std::string_view::npos || EndsWith(name, ".sql")) {
    fs::path p{std::string(name)};
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) Errorf("{}: no such query file", name);
    return FromText(p.stem().string(), ReadText(p), false, p.string());
  }
  for (const auto& dir : user_dirs) {
    fs::path p = fs::path(dir) / (std::string(name) + ".sql");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      QueryFile q = FromText(std::string(name), ReadText(p), false, p.string());
      for (const auto& b : EmbeddedFilesUnder("queries/")) {
        if (b.path == "queries/" + std::string(name) + ".sql") q.shadows_builtin = true;
      }
      return q;
    }
  }
  for (auto& q : Bundled()) {
    if (q.name == name) return q;
  }
  return std::nullopt;
}

}  // namespace tracesql
