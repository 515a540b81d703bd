#include "tracesql/timestamp.h"

#include <limits>

namespace tracesql {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Multiply-add with overflow detection on unsigned 128-bit-free arithmetic.
// acc = acc * mul + add, or false when that exceeds uint64 (checked without a division per digit).
bool MulAdd(uint64_t& acc, uint64_t mul, uint64_t add) {
  uint64_t r;
  if (__builtin_mul_overflow(acc, mul, &r) || __builtin_add_overflow(r, add, &r)) return false;
  acc = r;
  return true;
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view s) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  if (i >= s.size()) return std::nullopt;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
    if (!MulAdd(v, 10, static_cast<uint64_t>(s[i] - '0'))) return std::nullopt;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
    return static_cast<int64_t>(0 - v);
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> MicrosToNanos(std::string_view s) {
  // JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  // Collect all significant digits into a decimal string with a position of the decimal point,
  // then shift by 3 (us -> ns) plus the exponent, and round the rest half to even.
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  std::string_view int_part, frac_part;
  size_t start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  int_part = s.substr(start, i - start);
  if (int_part.empty()) return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    ++i;
    start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    frac_part = s.substr(start, i - start);
    if (frac_part.empty()) return std::nullopt;
  }
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      eneg = s[i] == '-';
      ++i;
    }
    start = i;
    while (i < s.size() && IsDigit(s[i])) {
      exp = exp * 10 + (s[i] - '0');
      if (exp > 100) return std::nullopt;
      ++i;
    }
    if (i == start) return std::nullopt;
    if (eneg) exp = -exp;
  }
  if (i != s.size()) return std::nullopt;

  // Value = digits(int_part frac_part) * 10^(exp + 3 - len(frac_part)) nanoseconds.
  int64_t shift = exp + 3 - static_cast<int64_t>(frac_part.size());
  uint64_t v = 0;
  auto push = [&](char c) { return MulAdd(v, 10, static_cast<uint64_t>(c - '0')); };
  // Digits that land left of the ns point.
  size_t total = int_part.size() + frac_part.size();
  auto digit_at = [&](size_t k) { return k < int_part.size() ? int_part[k] : frac_part[k - int_part.size()]; };
  size_t keep = total;  // number of digits kept before the ns point
  if (shift < 0) {
    if (static_cast<int64_t>(total) + shift <= 0) {
      keep = 0;
    } else {
      keep = static_cast<size_t>(static_cast<int64_t>(total) + shift);
    }
  }
  for (size_t k = 0; k < keep; ++k) {
    if (!push(digit_at(k))) return std::nullopt;
  }
  if (shift > 0) {
    for (int64_t k = 0; k < shift; ++k) {
      if (!MulAdd(v, 10, 0)) return std::nullopt;
    }
  } else if (keep < total) {
    // Round half to even on the dropped digits (below 1 ns).
    // When shift pushes everything right, the dropped part may also include implied zeros.
    int64_t dropped_lead_zeros = (static_cast<int64_t>(total) + shift < 0) ? -(static_cast<int64_t>(total) + shift) : 0;
    char first = dropped_lead_zeros > 0 ? '0' : digit_at(keep);
    bool rest_nonzero = false;
    for (size_t k = keep + (dropped_lead_zeros > 0 ? 0 : 1); k < total; ++k) {
      if (digit_at(k) != '0') rest_nonzero = true;
    }
    bool round_up = first > '5' || (first == '5' && (rest_nonzero || (v & 1)));
    if (round_up && !MulAdd(v, 1, 1)) return std::nullopt;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
    return static_cast<int64_t>(0 - v);
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace tracesql
