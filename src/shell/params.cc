#include "tracesql/params.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include "tracesql/error.h"

namespace tracesql {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A decimal number as SQL writes one: optional sign, digits with an optional fraction, optional
// exponent. Hex, "inf" and "nan" are not numbers here.
bool IsDecimalNumber(std::string_view s, bool* integral) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0, frac = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  bool dot = false, exp = false;
  if (i < s.size() && s[i] == '.') {
    dot = true;
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac;
  }
  if (digits + frac == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    exp = true;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t e = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++e;
    if (e == 0) return false;
  }
  *integral = !dot && !exp;
  return i == s.size();
}

bool IsQuoted(std::string_view v) { return v.size() >= 2 && v.front() == '\'' && v.back() == '\''; }

}  // namespace

bool IsParamName(std::string_view name) {
  if (name.empty() || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

ParamKind ClassifyParamValue(std::string_view value) {
  bool integral = false;
  if (!IsDecimalNumber(value, &integral)) return ParamKind::kText;
  if (integral) {
    int64_t v = 0;
    std::string_view digits = value;
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && p == digits.data() + digits.size()) return ParamKind::kInteger;
    // Beyond int64: a real, as SQLite reads such a literal.
  }
  return ParamKind::kReal;
}

std::pair<std::string, std::string> ParseParamAssignment(std::string_view arg) {
  size_t eq = arg.find('=');
  if (eq == std::string_view::npos) Errorf("bad parameter '{}': expected key=value", arg);
  std::string_view key = arg.substr(0, eq);
  if (!key.empty() && (key[0] == ':' || key[0] == '@' || key[0] == '$')) key.remove_prefix(1);
  if (!IsParamName(key)) {
    Errorf("bad parameter '{}': the name must be letters, digits and '_', not starting with a digit", arg);
  }
  return {std::string(key), std::string(arg.substr(eq + 1))};
}

std::vector<std::string> BindParams(sqlite3_stmt* stmt, const Params& params) {
  std::vector<std::string> unquoted_text;
  int n = sqlite3_bind_parameter_count(stmt);
  for (int i = 1; i <= n; ++i) {
    const char* raw = sqlite3_bind_parameter_name(stmt, i);
    if (!raw || raw[0] == '?') continue;  // positional: never bound here
    auto it = params.find(std::string_view(raw + 1));
    if (it == params.end()) continue;
    const std::string& v = it->second;
    int rc = SQLITE_OK;
    switch (ClassifyParamValue(v)) {
      case ParamKind::kInteger: {
        int64_t x = 0;
        std::string_view d = v;
        if (d[0] == '+') d.remove_prefix(1);
        std::from_chars(d.data(), d.data() + d.size(), x);
        rc = sqlite3_bind_int64(stmt, i, x);
        break;
      }
      case ParamKind::kReal:
        rc = sqlite3_bind_double(stmt, i, std::strtod(v.c_str(), nullptr));
        break;
      case ParamKind::kText: {
        bool quoted = IsQuoted(v);
        std::string_view t = quoted ? std::string_view(v).substr(1, v.size() - 2) : std::string_view(v);
        if (!quoted) unquoted_text.push_back(fmt::format("{} = '{}'", raw, v));
        rc = sqlite3_bind_text(stmt, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
        break;
      }
    }
    if (rc != SQLITE_OK) Errorf("cannot bind parameter {}: {}", raw, sqlite3_errstr(rc));
  }
  return unquoted_text;
}

std::set<std::string> ReferencedParams(std::string_view sql) {
  std::set<std::string> out;
  size_t i = 0;
  auto skip_until = [&](char close) {
    ++i;
    while (i < sql.size() && sql[i] != close) ++i;
    if (i < sql.size()) ++i;
  };
  while (i < sql.size()) {
    char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {
      skip_until(c);
    } else if (c == '[') {
      skip_until(']');
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
    } else if ((c == ':' || c == '@' || c == '$') && i + 1 < sql.size() && IsIdentStart(sql[i + 1])) {
      size_t j = i + 1;
      while (j < sql.size() && IsIdentChar(sql[j])) ++j;
      out.emplace(sql.substr(i + 1, j - i - 1));
      i = j;
    } else if (IsIdentChar(c)) {
      while (i < sql.size() && IsIdentChar(sql[i])) ++i;  // a whole word: "x1" holds no parameter
    } else {
      ++i;
    }
  }
  return out;
}

void CheckParamsKnown(const Params& given, const std::set<std::string>& known, std::string_view what) {
  for (const auto& [name, value] : given) {
    if (known.count(name)) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? ":" : ", :") + k;
    Errorf("{} has no parameter :{} (it takes {})", what, name, list.empty() ? "none" : list);
  }
}

}  // namespace tracesql
