// Splits the JSON byte stream of a trace into batches of whole events, without parsing them.
//
// The root is either {"traceEvents": [...], other keys...} (keys in any order) or a bare array of
// events. Events are cut out by bracket counting (string- and escape-aware) and handed over in
// batches formatted as one JSON array "[ev,ev,...]" with simdjson padding, so the parser never sees
// a document larger than a batch: traces of any size stream through in bounded memory.
#ifndef SRC_IMPORT_SPLITTER_H_
#define SRC_IMPORT_SPLITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/input.h"

namespace tracesql {

struct Batch {
  std::string text;                     // "[" + events + "]", capacity includes padding
  int64_t json_offset = 0;              // offset in the JSON stream of text[1]
  std::vector<uint32_t> event_offsets;  // offset in text of each event's '{'
};

struct SplitResult {
  std::string root_shape;  // "object" or "array"
  std::vector<std::pair<std::string, std::string>> header;  // top-level key -> raw JSON value text
  bool saw_trace_events = false;
  int64_t events = 0;
  int64_t json_bytes = 0;
  bool truncated = false;
  int64_t truncated_at = -1;  // JSON offset of the first incomplete item
  std::string truncated_what;
  int64_t non_object_events = 0;  // traceEvents elements that are not objects (skipped)
  int64_t oversized_items = 0;    // events or top-level values over kMaxItemBytes (skipped)
};

class Splitter {
 public:
  static constexpr size_t kChunk = 1 << 20;
  // An event or top-level value larger than this is skipped as it streams by (never buffered
  // whole), so memory stays bounded whatever the file holds. Real events are under 64 KiB.
  static constexpr size_t kMaxItemBytes = 64 << 20;

  // Reads all of `in`, calling on_batch for every batch, and on_progress(file bytes read) from time
  // to time. Throws tracesql::Error (naming the file and JSON byte offset) on malformed structure.
  static SplitResult Run(InputStream& in, const std::function<void(Batch&&)>& on_batch,
                         const std::function<void(int64_t)>& on_progress);
};

// Scanning helpers, exposed for tests. Each returns the index one past the end of the value
// starting at buf[i], or npos when the buffer ends first.
inline constexpr size_t kNeedMore = static_cast<size_t>(-1);
size_t ScanString(const char* buf, size_t i, size_t n);  // buf[i] is the opening quote
size_t ScanValue(const char* buf, size_t i, size_t n);   // any JSON value
size_t ScanValueScalar(const char* buf, size_t i, size_t n);  // the same, one byte at a time (tests compare)

// JSON text helpers shared by the splitter and the event parser.
enum class ScalarKind {
  kInteger,    // a JSON number without fraction or exponent
  kNumber,     // any other JSON number
  kLiteral,    // true, false, null
  kNonFinite,  // NaN, Infinity, inf, nan, -inf... (not JSON; written by Python's json and older Kineto)
  kInvalid,    // anything else
};
// Classifies one scalar token (no surrounding whitespace).
ScalarKind ClassifyScalar(std::string_view tok);
// True for [+-]?(nan|inf|infinity), any case.
bool IsNonFiniteLiteral(std::string_view tok);

// One-pass readers for the common tokens, ahead of ClassifyScalar and the general parsers: they
// accept only valid JSON (no leading zeros) and what they accept they read exactly; anything else
// returns false and goes the general way (the unit tests compare the two ways).
//
// tok as a JSON integer of at most 18 digits, -?(0|[1-9][0-9]*) (it fits int64 unchecked).
inline bool ShortJsonInt(std::string_view tok, int64_t& v) {
  const bool neg = !tok.empty() && tok[0] == '-';
  const size_t first = neg ? 1 : 0, digits = tok.size() - first;
  if (digits == 0 || digits > 18 || (tok[first] == '0' && digits > 1)) return false;
  uint64_t u = 0;
  for (size_t i = first; i < tok.size(); ++i) {
    unsigned d = static_cast<unsigned char>(tok[i]) - unsigned{'0'};
    if (d > 9) return false;
    u = u * 10 + d;
  }
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}
// tok as a JSON number of microseconds -?(0|[1-9][0-9]{0,14})(\.[0-9]{1,3})? (the common
// timestamp): its nanoseconds, exact (at most 18 digits).
inline bool ShortMicros(std::string_view tok, int64_t& ns) {
  const bool neg = !tok.empty() && tok[0] == '-';
  const size_t n = tok.size(), start = neg ? 1 : 0;
  size_t i = start;
  uint64_t v = 0;
  auto digit = [&](size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(tok[at])) - unsigned{'0'}; };
  while (i < n && digit(i) <= 9) v = v * 10 + digit(i++);
  const size_t int_digits = i - start;
  if (int_digits == 0 || int_digits > 15 || (tok[start] == '0' && int_digits > 1)) return false;
  size_t frac = 0;
  if (i < n && tok[i] == '.') {
    ++i;
    while (i < n && frac < 3 && digit(i) <= 9) v = v * 10 + digit(i++), ++frac;
    if (frac == 0) return false;
  }
  if (i != n) return false;  // a fourth decimal, an exponent, anything else
  for (; frac < 3; ++frac) v *= 10;
  ns = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}
// Appends the JSON value `in` minified to `out`, checking that it is one complete, valid JSON value
// (strings must already be valid UTF-8). Non-finite literals become JSON strings of their text and
// are counted in *non_finite; *max_depth (when given) is raised to the deepest nesting seen (0 for a
// scalar). Iterative, so nesting depth is bounded only by memory. Returns false (with `out` partly
// appended) when `in` is not valid JSON.
bool MinifyJsonValue(std::string& out, std::string_view in, int64_t* non_finite, size_t* max_depth = nullptr);
// Repairs the strings of a JSON text in place: invalid UTF-8 bytes become U+FFFD, raw control
// characters become \u00XX escapes, unpaired UTF-16 surrogate escapes become \ufffd. Returns true
// when something was changed.
bool RepairJsonStrings(std::string& text);
// Appends s as a JSON string (quotes, backslashes and control characters escaped).
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace tracesql

#endif  // SRC_IMPORT_SPLITTER_H_
