// Short names of C++ symbols (kernel names). A small scanner over the name's brackets: no demangler,
// the names in traces are already demangled text.
#include "tracesql/short_name.h"

#include <array>

#include "tracesql/render.h"

namespace tracesql {
namespace {

bool IsIdent(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool IsOpen(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }

// Whether s[i] closes a bracket ('>' of "->" does not).
bool IsClose(std::string_view s, size_t i) {
  char c = s[i];
  if (c == '>') return !(i > 0 && s[i - 1] == '-');
  return c == ')' || c == ']' || c == '}';
}

// The index of the bracket closing the one opened at s[open], or npos when it is not closed.
size_t Matching(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (IsOpen(s[i])) {
      ++depth;
    } else if (IsClose(s, i) && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// What may follow a parameter list: cv and reference qualifiers, noexcept.
bool OnlyQualifiers(std::string_view rest) {
  static constexpr std::array<std::string_view, 6> kWords = {"const", "volatile", "noexcept", "&&", "&", "override"};
  rest = Trim(rest);
  while (!rest.empty()) {
    bool found = false;
    for (std::string_view w : kWords) {
      if (rest.substr(0, w.size()) == w) {
        rest = Trim(rest.substr(w.size()));
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

// The signature without its parameter list and return type ("ns::f<T>"), or nullopt-like empty
// when the text does not look like a C++ name (then callers keep it as it is).
std::string_view QualifiedName(std::string_view s) {
  s = Trim(s);
  size_t params = std::string_view::npos;
  bool qualified = false, templated = false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (depth == 0) {
      if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') qualified = true;
      if (c == '<' && i > 0 && IsIdent(s[i - 1])) templated = true;
      if (c == '(' && i > 0 && (IsIdent(s[i - 1]) || s[i - 1] == '>')) {
        size_t close = Matching(s, i);
        if (close != std::string_view::npos && OnlyQualifiers(s.substr(close + 1))) {
          params = i;
          break;
        }
      }
    }
    if (IsOpen(c)) {
      ++depth;
    } else if (IsClose(s, i)) {
      if (--depth < 0) return {};  // unbalanced: not a C++ name
    }
  }
  if (params == std::string_view::npos && !qualified && !templated) return {};
  std::string_view name = Trim(s.substr(0, params));
  // The return type: everything up to the last space outside brackets.
  depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (IsOpen(name[i])) {
      ++depth;
    } else if (IsClose(name, i)) {
      --depth;
    } else if (depth == 0 && name[i] == ' ') {
      start = i + 1;
    }
  }
  if (depth != 0) return {};
  return name.substr(start);
}

// The last component of "a::b<T>::c<U>" outside brackets: "c<U>".
std::string_view LastComponent(std::string_view q) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (IsOpen(q[i])) {
      ++depth;
    } else if (IsClose(q, i)) {
      --depth;
    } else if (depth == 0 && q[i] == ':' && i + 1 < q.size() && q[i + 1] == ':') {
      start = i + 2;
      ++i;
    }
  }
  return q.substr(start);
}

// "f<A, B<C>>" -> "f"; first_arg gets "A".
std::string_view SplitTemplate(std::string_view c, std::string_view* first_arg) {
  size_t lt = c.find('<');
  if (lt == std::string_view::npos) return c;
  size_t close = Matching(c, lt);
  if (close != std::string_view::npos) {
    int depth = 0;
    size_t end = close;
    for (size_t i = lt + 1; i < close; ++i) {
      if (IsOpen(c[i])) {
        ++depth;
      } else if (IsClose(c, i)) {
        --depth;
      } else if (depth == 0 && c[i] == ',') {
        end = i;
        break;
      }
    }
    *first_arg = Trim(c.substr(lt + 1, end - lt - 1));
  }
  return c.substr(0, lt);
}

// Drops every qualifier "X::" (X an identifier, "(anonymous namespace)" or "Y<...>") from text.
std::string DropQualifiers(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ':' && i + 1 < text.size() && text[i + 1] == ':') {
      ++i;
      // Pop the qualifier just written: a bracketed part, then the identifier before it.
      if (!out.empty() && (out.back() == ')' || out.back() == '>')) {
        char close = out.back(), open = close == ')' ? '(' : '<';
        int depth = 0;
        while (!out.empty()) {
          char c = out.back();
          out.pop_back();
          if (c == close) ++depth;
          if (c == open && --depth == 0) break;
        }
      }
      while (!out.empty() && IsIdent(out.back())) out.pop_back();
      continue;
    }
    out += text[i];
  }
  return out;
}

bool IsGenericWrapper(std::string_view base) {
  return base == "Kernel" || base == "Kernel2" || base == "device_kernel" || base == "kernel";
}

// The component before the last one of "a::b::c<T>" ("b"), empty when there is none.
std::string_view Qualifier(std::string_view q, std::string_view last) {
  std::string_view rest = q.substr(0, q.size() - last.size());
  if (rest.size() < 2) return {};
  rest.remove_suffix(2);  // "::"
  return LastComponent(rest);
}

}  // namespace

std::string ShortName(std::string_view name) {
  std::string_view q = QualifiedName(name);
  if (q.empty()) return std::string(name);
  std::string_view arg;
  std::string_view base = SplitTemplate(LastComponent(q), &arg);
  if (IsGenericWrapper(base)) {
    // CUTLASS names the real kernel in the wrapper's first template argument
    // (Kernel2<cutlass_80_tensorop_...>, device_kernel<GemmUniversal<...>>); a builtin type there
    // (gemvx::kernel<int, ...>) says nothing, so the enclosing name is kept instead.
    std::string inner = arg.empty() ? std::string() : ShortName(arg);
    if (inner.size() >= 8 && inner.find(' ') == std::string::npos) return inner;
    std::string_view outer = Qualifier(q, LastComponent(q));
    if (!outer.empty() && outer.find_first_of("<( ") == std::string_view::npos) {
      return std::string(outer) + "::" + std::string(base);
    }
  }
  if (base.empty()) return std::string(name);
  return std::string(base);
}

std::string CompactName(std::string_view name) {
  std::string_view q = QualifiedName(name);
  if (q.empty()) return std::string(name);
  std::string_view last = LastComponent(q);
  if (last.empty()) return std::string(name);
  return DropQualifiers(last);
}

std::string FitName(std::string_view name, size_t width) {
  if (DisplayWidth(name) <= width) return std::string(name);
  std::string compact = CompactName(name);
  return TruncateToWidth(compact, width);
}

}  // namespace tracesql
