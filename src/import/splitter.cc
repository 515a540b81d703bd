#include "import/splitter.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "tracesql/error.h"

namespace tracesql {
namespace {

constexpr size_t kPadding = 64;  // >= SIMDJSON_PADDING

inline bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string Describe(char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}

// Character classes for the structural scan: 1 = quote, 2 = open, 3 = close, 0 = other.
struct ClassTable {
  unsigned char cls[256] = {};
  constexpr ClassTable() {
    cls[static_cast<unsigned char>('"')] = 1;
    cls[static_cast<unsigned char>('{')] = 2;
    cls[static_cast<unsigned char>('[')] = 2;
    cls[static_cast<unsigned char>('}')] = 3;
    cls[static_cast<unsigned char>(']')] = 3;
  }
};
constexpr ClassTable kClass;

}  // namespace

size_t ScanString(const char* buf, size_t i, size_t n) {
  size_t start = i + 1;
  size_t p = start;
  while (p < n) {
    const void* q = std::memchr(buf + p, '"', n - p);
    if (!q) return kNeedMore;
    size_t qi = static_cast<size_t>(static_cast<const char*>(q) - buf);
    size_t b = qi;
    while (b > start && buf[b - 1] == '\\') --b;
    if (((qi - b) & 1) == 0) return qi + 1;
    p = qi + 1;
  }
  return kNeedMore;
}

namespace {

// The container starting at buf[p] ('{' or '['), scanned one byte at a time.
size_t ScanContainerScalar(const char* buf, size_t p, size_t n) {
  size_t depth = 0;
  while (p < n) {
    unsigned char k = kClass.cls[static_cast<unsigned char>(buf[p])];
    if (k == 0) {
      ++p;
      continue;
    }
    if (k == 1) {
      p = ScanString(buf, p, n);
      if (p == kNeedMore) return kNeedMore;
      continue;
    }
    if (k == 2) {
      ++depth;
    } else if (--depth == 0) {
      return p + 1;
    }
    ++p;
  }
  return kNeedMore;
}

#if defined(__AVX2__) && defined(__PCLMUL__)
// The container starting at buf[i], 64 bytes at a time, as simdjson's stage 1 finds structure: bit
// masks of quotes, backslashes and brackets; the characters escaped by an odd run of backslashes;
// the bytes inside strings by a prefix XOR of the unescaped quotes (a carry-less multiply); then
// only the brackets outside strings are visited to follow the depth.
class BlockScanner {
 public:
  size_t Scan(const char* buf, size_t p, size_t n) {
    while (p + 64 <= n) {
      if (size_t end = Block(buf + p); end != kNeedMore) return p + end;
      p += 64;
    }
    if (p == n) return kNeedMore;
    alignas(32) char tail[64] = {};  // zero bytes are not structural
    std::memcpy(tail, buf + p, n - p);
    if (size_t end = Block(tail); end != kNeedMore && end <= n - p) return p + end;
    return kNeedMore;
  }

 private:
  static uint64_t Mask(__m256i lo, __m256i hi, char c) {
    __m256i v = _mm256_set1_epi8(c);
    uint64_t a = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)));
    uint64_t b = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)));
    return a | (b << 32);
  }

  // Characters that follow an odd-length run of backslashes (simdjson's find_odd_backslash_sequences).
  uint64_t Escaped(uint64_t bs) {
    constexpr uint64_t kEven = 0x5555555555555555ULL, kOdd = ~kEven;
    uint64_t start_edges = bs & ~(bs << 1);
    uint64_t even_start_mask = kEven ^ ends_odd_backslash_;
    uint64_t even_starts = start_edges & even_start_mask;
    uint64_t odd_starts = start_edges & ~even_start_mask;
    uint64_t even_carries = bs + even_starts;
    uint64_t odd_carries;
    bool ends_odd = __builtin_add_overflow(bs, odd_starts, &odd_carries);
    odd_carries |= ends_odd_backslash_;
    ends_odd_backslash_ = ends_odd ? 1 : 0;
    uint64_t even_carry_ends = even_carries & ~bs;
    uint64_t odd_carry_ends = odd_carries & ~bs;
    return (even_carry_ends & kOdd) | (odd_carry_ends & kEven);
  }

  // Index one past the bracket that closes the container in this block, or kNeedMore.
  size_t Block(const char* b) {
    __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
    uint64_t quote = Mask(lo, hi, '"');
    uint64_t bs = Mask(lo, hi, '\\');
    if (bs != 0 || ends_odd_backslash_ != 0) quote &= ~Escaped(bs);
    uint64_t in_string =
        static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<int64_t>(quote)),
                                                                     _mm_set1_epi8(static_cast<char>(0xFF)), 0))) ^
        in_string_;
    in_string_ = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    uint64_t open = Mask(lo, hi, '{') | Mask(lo, hi, '[');
    uint64_t close = Mask(lo, hi, '}') | Mask(lo, hi, ']');
    uint64_t brackets = (open | close) & ~in_string;
    while (brackets) {
      int at = __builtin_ctzll(brackets);
      if (open >> at & 1) {
        ++depth_;
      } else if (--depth_ == 0) {
        return static_cast<size_t>(at) + 1;
      }
      brackets &= brackets - 1;
    }
    return kNeedMore;
  }

  uint64_t ends_odd_backslash_ = 0, in_string_ = 0;
  size_t depth_ = 0;
};
#endif

}  // namespace

size_t ScanValueScalar(const char* buf, size_t i, size_t n) {
  if (i >= n) return kNeedMore;
  char c = buf[i];
  if (c == '"') return ScanString(buf, i, n);
  if (c != '{' && c != '[') {
    // Scalar: runs to the next delimiter. At the end of the buffer we cannot know it is complete.
    size_t p = i;
    while (p < n && !IsWs(buf[p]) && buf[p] != ',' && buf[p] != '}' && buf[p] != ']') ++p;
    return p < n ? p : kNeedMore;
  }
  return ScanContainerScalar(buf, i, n);
}

size_t ScanValue(const char* buf, size_t i, size_t n) {
#if defined(__AVX2__) && defined(__PCLMUL__)
  if (i < n && (buf[i] == '{' || buf[i] == '[')) return BlockScanner().Scan(buf, i, n);
#endif
  return ScanValueScalar(buf, i, n);
}

namespace {

// Finds the end of one JSON value that may span several reads, resuming where the previous call
// stopped, so a value much larger than a read chunk is scanned once (not once per read). The value
// is not validated, only delimited: strings (escape-aware), brackets, or a scalar token.
class ValueScan {
 public:
  explicit ValueScan(char first)
      : scalar_(first != '{' && first != '[' && first != '"') {}
  // Scans buf[p, n). Returns the index one past the value, or kNeedMore when it continues beyond n.
  size_t Continue(const char* buf, size_t p, size_t n) {
    if (scalar_) {
      while (p < n && !IsWs(buf[p]) && buf[p] != ',' && buf[p] != '}' && buf[p] != ']') ++p;
      return p < n ? p : kNeedMore;
    }
    while (p < n) {
      if (in_string_) {
        if (escape_) {
          escape_ = false;
          ++p;
          continue;
        }
        while (p < n && buf[p] != '"' && buf[p] != '\\') ++p;
        if (p == n) break;
        if (buf[p] == '\\') {
          escape_ = true;
        } else {
          in_string_ = false;
          if (depth_ == 0) return p + 1;
        }
        ++p;
        continue;
      }
      unsigned char k = kClass.cls[static_cast<unsigned char>(buf[p])];
      if (k == 1) {
        in_string_ = true;
      } else if (k == 2) {
        ++depth_;
      } else if (k == 3 && depth_ > 0 && --depth_ == 0) {
        return p + 1;
      }
      ++p;
    }
    return kNeedMore;
  }

 private:
  bool scalar_;
  bool in_string_ = false, escape_ = false;
  size_t depth_ = 0;
};

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

bool EqualsNoCase(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not valid (overlong, surrogate,
// beyond U+10FFFF, or cut short).
size_t Utf8Length(std::string_view s, size_t i) {
  auto cont = [&](size_t k) { return k < s.size() && (static_cast<unsigned char>(s[k]) & 0xc0) == 0x80; };
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    unsigned char d = static_cast<unsigned char>(s[i + 1]);
    if (c == 0xe0 && d < 0xa0) return 0;  // overlong
    if (c == 0xed && d >= 0xa0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    unsigned char d = static_cast<unsigned char>(s[i + 1]);
    if (c == 0xf0 && d < 0x90) return 0;  // overlong
    if (c == 0xf4 && d >= 0x90) return 0;  // beyond U+10FFFF
    return 4;
  }
  return 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of a \uXXXX escape at s[i] ('\\'), or -1.
int EscapedUnit(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return -1;
  int v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    int h = HexValue(s[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

}  // namespace

bool IsNonFiniteLiteral(std::string_view tok) {
  if (!tok.empty() && (tok[0] == '-' || tok[0] == '+')) tok.remove_prefix(1);
  return EqualsNoCase(tok, "nan") || EqualsNoCase(tok, "inf") || EqualsNoCase(tok, "infinity");
}

ScalarKind ClassifyScalar(std::string_view tok) {
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, else a literal (no number starts like one).
  size_t i = 0, n = tok.size();
  if (i < n && tok[i] == '-') ++i;
  if (i >= n || !IsDigitChar(tok[i])) {
    if (tok == "true" || tok == "false" || tok == "null") return ScalarKind::kLiteral;
    if (IsNonFiniteLiteral(tok)) return ScalarKind::kNonFinite;
    return ScalarKind::kInvalid;
  }
  if (tok[i] == '0') {
    ++i;
  } else {
    while (i < n && IsDigitChar(tok[i])) ++i;
  }
  bool integer = true;
  if (i < n && tok[i] == '.') {
    integer = false;
    ++i;
    if (i >= n || !IsDigitChar(tok[i])) return ScalarKind::kInvalid;
    while (i < n && IsDigitChar(tok[i])) ++i;
  }
  if (i < n && (tok[i] == 'e' || tok[i] == 'E')) {
    integer = false;
    ++i;
    if (i < n && (tok[i] == '+' || tok[i] == '-')) ++i;
    if (i >= n || !IsDigitChar(tok[i])) return ScalarKind::kInvalid;
    while (i < n && IsDigitChar(tok[i])) ++i;
  }
  if (i != n) return ScalarKind::kInvalid;
  return integer ? ScalarKind::kInteger : ScalarKind::kNumber;
}

bool MinifyJsonValue(std::string& out, std::string_view in, int64_t* non_finite, size_t* max_depth) {
  // What may come next, and the open containers ('{' or '[') as a stack.
  enum class Want { kValue, kValueOrClose, kKeyOrClose, kKey, kColon, kCommaOrClose, kEnd };
  std::string stack;
  Want want = Want::kValue;
  size_t i = 0, n = in.size();
  auto after_value = [&] { want = stack.empty() ? Want::kEnd : Want::kCommaOrClose; };
  while (i < n) {
    char c = in[i];
    if (IsWs(c)) {
      ++i;
      continue;
    }
    if (c == '"') {
      bool key = want == Want::kKey || want == Want::kKeyOrClose;
      if (!key && want != Want::kValue && want != Want::kValueOrClose) return false;
      size_t start = i++;
      while (true) {
        if (i >= n) return false;
        char d = in[i];
        if (d == '"') break;
        if (static_cast<unsigned char>(d) < 0x20) return false;
        if (d == '\\') {
          if (i + 1 >= n) return false;
          char e = in[i + 1];
          if (e == 'u') {
            if (EscapedUnit(in, i) < 0) return false;
            i += 6;
            continue;
          }
          if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') return false;
          i += 2;
          continue;
        }
        ++i;
      }
      ++i;
      out.append(in.data() + start, i - start);
      if (key) {
        want = Want::kColon;
      } else {
        after_value();
      }
      continue;
    }
    if (c == '{' || c == '[') {
      if (want != Want::kValue && want != Want::kValueOrClose) return false;
      stack.push_back(c);
      if (max_depth && stack.size() > *max_depth) *max_depth = stack.size();
      out.push_back(c);
      want = c == '{' ? Want::kKeyOrClose : Want::kValueOrClose;
      ++i;
      continue;
    }
    if (c == '}' || c == ']') {
      char open = c == '}' ? '{' : '[';
      bool ok = !stack.empty() && stack.back() == open &&
                (want == Want::kCommaOrClose || (c == '}' ? want == Want::kKeyOrClose : want == Want::kValueOrClose));
      if (!ok) return false;
      stack.pop_back();
      out.push_back(c);
      ++i;
      after_value();
      continue;
    }
    if (c == ',') {
      if (want != Want::kCommaOrClose) return false;
      out.push_back(c);
      want = stack.back() == '{' ? Want::kKey : Want::kValue;
      ++i;
      continue;
    }
    if (c == ':') {
      if (want != Want::kColon) return false;
      out.push_back(c);
      want = Want::kValue;
      ++i;
      continue;
    }
    // A scalar token.
    if (want != Want::kValue && want != Want::kValueOrClose) return false;
    // Most are plain integers (shapes, strides): -?(0|[1-9][0-9]*) up to a delimiter, copied as is.
    if (size_t j = i + (c == '-' ? 1 : 0); j < n && in[j] >= '0' && in[j] <= '9') {
      size_t k = j + 1;
      if (in[j] != '0') {
        while (k < n && in[k] >= '0' && in[k] <= '9') ++k;
      }
      if (k == n || IsWs(in[k]) || in[k] == ',' || in[k] == '}' || in[k] == ']') {
        out.append(in.data() + i, k - i);
        i = k;
        after_value();
        continue;
      }
    }
    size_t start = i;
    while (i < n && !IsWs(in[i]) && in[i] != ',' && in[i] != ':' && in[i] != '}' && in[i] != ']' && in[i] != '"' &&
           in[i] != '{' && in[i] != '[')
      ++i;
    std::string_view tok = in.substr(start, i - start);
    switch (ClassifyScalar(tok)) {
      case ScalarKind::kInvalid:
        return false;
      case ScalarKind::kNonFinite:
        // NaN / Infinity / inf (Python's json and older Kineto write them): kept as a JSON string.
        if (non_finite) ++*non_finite;
        out.push_back('"');
        out.append(tok);
        out.push_back('"');
        break;
      default:
        out.append(tok);
        break;
    }
    after_value();
  }
  return want == Want::kEnd;
}

bool RepairJsonStrings(std::string& text) {
  std::string out;
  bool changed = false;
  bool in_string = false;
  size_t i = 0, n = text.size();
  out.reserve(n + 16);
  while (i < n) {
    char c = text[i];
    unsigned char u = static_cast<unsigned char>(c);
    if (!in_string) {
      if (c == '"') in_string = true;
      out.push_back(c);
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = false;
      out.push_back(c);
      ++i;
    } else if (c == '\\') {
      int unit = EscapedUnit(text, i);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        int low = EscapedUnit(text, i + 6);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out.append(text, i, 12);
          i += 12;
        } else {
          out += "\\ufffd";  // unpaired high surrogate
          changed = true;
          i += 6;
        }
      } else if (unit >= 0xdc00 && unit <= 0xdfff) {
        out += "\\ufffd";  // unpaired low surrogate
        changed = true;
        i += 6;
      } else {
        size_t k = std::min<size_t>(2, n - i);
        out.append(text, i, k);
        i += k;
      }
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
      changed = true;
      ++i;
    } else if (u < 0x80) {
      out.push_back(c);
      ++i;
    } else if (size_t len = Utf8Length(text, i)) {
      out.append(text, i, len);
      i += len;
    } else {
      out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER for each invalid byte
      changed = true;
      ++i;
    }
  }
  if (changed) text = std::move(out);
  return changed;
}

SplitResult Splitter::Run(InputStream& in, const std::function<void(Batch&&)>& on_batch,
                          const std::function<void(int64_t)>& on_progress) {
  enum class State { kStart, kKey, kEvents, kDone };
  SplitResult result;
  std::string buf;
  size_t pos = 0;          // next unread index in buf
  int64_t base = 0;        // JSON offset of buf[0]
  bool eof = false;
  State state = State::kStart;
  const std::string& path = in.path();
  const char* where = in.compressed() ? " of the decompressed JSON" : "";

  // Current batch: events in buf[batch_start, batch_end).
  size_t batch_start = 0, batch_end = 0;
  std::vector<uint32_t> offsets;
  size_t read_size = 64 << 10;

  auto flush = [&]() {
    if (offsets.empty()) return;
    Batch b;
    size_t len = batch_end - batch_start;
    b.text.reserve(len + 2 + kPadding);
    b.text.push_back('[');
    b.text.append(buf, batch_start, len);
    b.text.push_back(']');
    b.json_offset = base + static_cast<int64_t>(batch_start);
    b.event_offsets = std::move(offsets);
    offsets.clear();
    on_batch(std::move(b));
  };

  // Discards consumed bytes and reads another chunk. Returns false at the end of input.
  auto refill = [&]() -> bool {
    flush();
    if (eof) return false;
    if (pos > 0) {
      buf.erase(0, pos);
      base += static_cast<int64_t>(pos);
      pos = 0;
    }
    // Reads start small and double up to kChunk, so a small file costs no 4 MB buffer.
    size_t want = read_size;
    read_size = std::min(kChunk, read_size * 2);
    size_t old = buf.size();
    buf.resize(old + want);
    size_t got = in.Read(buf.data() + old, want);
    buf.resize(old + got);
    result.json_bytes += static_cast<int64_t>(got);
    on_progress(in.file_bytes_read());
    if (got == 0) {
      eof = true;
      return false;
    }
    return true;
  };

  auto skip_ws = [&]() -> bool {
    while (true) {
      while (pos < buf.size() && IsWs(buf[pos])) ++pos;
      if (pos < buf.size()) return true;
      if (!refill()) return false;
    }
  };

  auto truncated = [&](int64_t at, const char* what) {
    result.truncated = true;
    result.truncated_at = at;
    result.truncated_what = what;
  };

  // Finds the end of the value starting at buf[pos], reading on as needed (pending batches are
  // flushed first). Returns false when the input ends inside it. A value that grows beyond
  // kMaxItemBytes is dropped from memory as it streams by and *skipped is set; pos and end then
  // index the new buffer.
  auto scan_item = [&](size_t& end, bool& skipped) -> bool {
    skipped = false;
    end = ScanValue(buf.data(), pos, buf.size());
    if (end != kNeedMore) return true;
    flush();
    ValueScan scan(buf[pos]);
    size_t scanned = 0;  // bytes of the value already scanned, from pos
    end = scan.Continue(buf.data(), pos, buf.size());
    while (end == kNeedMore) {
      scanned = buf.size() - pos;
      if (skipped || scanned > kMaxItemBytes) {
        skipped = true;
        base += static_cast<int64_t>(buf.size());
        buf.clear();
        pos = 0;
        scanned = 0;
      }
      if (!refill()) return false;
      end = scan.Continue(buf.data(), pos + scanned, buf.size());
    }
    if (!skipped && end - pos > kMaxItemBytes) skipped = true;  // completed by the last read
    return true;
  };

  while (state != State::kDone) {
    if (!skip_ws()) {
      if (state == State::kStart) Errorf("{}: empty file: no JSON trace", path);
      truncated(base + static_cast<int64_t>(pos), state == State::kEvents ? "traceEvents array" : "top-level object");
      break;
    }
    char c = buf[pos];
    switch (state) {
      case State::kStart:
        if (c == '{') {
          result.root_shape = "object";
          state = State::kKey;
        } else if (c == '[') {
          result.root_shape = "array";
          result.saw_trace_events = true;
          state = State::kEvents;
          batch_start = batch_end = pos + 1;
        } else {
          Errorf("{}: byte {}{}: not a JSON trace: expected '{{' or '[', found {}", path, base + static_cast<int64_t>(pos), where, Describe(c));
        }
        ++pos;
        break;

      case State::kKey: {
        if (c == '}') {
          ++pos;
          state = State::kDone;
          break;
        }
        if (c == ',') {
          ++pos;
          break;
        }
        if (c != '"') {
          Errorf("{}: byte {}{}: malformed JSON: expected a key in the top-level object, found {}", path,
                 base + static_cast<int64_t>(pos), where, Describe(c));
        }
        // The key, ':' and the first byte of the value, re-scanned from the key after each refill
        // (keys are short; one longer than kMaxItemBytes is an error).
        size_t item = pos;
        int64_t item_offset = base + static_cast<int64_t>(pos);
        size_t key_end = 0, value_start = 0;
        bool have_value = false;
        while (true) {
          key_end = ScanString(buf.data(), item, buf.size());
          if (key_end != kNeedMore) {
            size_t colon = key_end;
            while (colon < buf.size() && IsWs(buf[colon])) ++colon;
            if (colon < buf.size()) {
              if (buf[colon] != ':') {
                Errorf("{}: byte {}{}: malformed JSON: expected ':' after a top-level key, found {}", path,
                       base + static_cast<int64_t>(colon), where, Describe(buf[colon]));
              }
              value_start = colon + 1;
              while (value_start < buf.size() && IsWs(buf[value_start])) ++value_start;
              if (value_start < buf.size()) {
                have_value = true;
                break;
              }
            }
          } else if (buf.size() - item > kMaxItemBytes) {
            Errorf("{}: byte {}{}: malformed JSON: a top-level key longer than {} MiB", path, item_offset, where,
                   kMaxItemBytes >> 20);
          }
          pos = item;
          if (!refill()) break;
          item = pos;
        }
        if (!have_value) {
          truncated(item_offset, "top-level object");
          state = State::kDone;
          break;
        }
        std::string key(buf.data() + item + 1, key_end - item - 2);
        if (key == "traceEvents") {
          if (buf[value_start] != '[') {
            Errorf("{}: byte {}{}: traceEvents is not an array", path, base + static_cast<int64_t>(value_start), where);
          }
          result.saw_trace_events = true;
          pos = value_start + 1;
          state = State::kEvents;
          batch_start = batch_end = pos;
          break;
        }
        pos = value_start;
        size_t value_end;
        bool skipped;
        if (!scan_item(value_end, skipped)) {
          truncated(item_offset, "top-level object");
          state = State::kDone;
          break;
        }
        if (skipped) {
          ++result.oversized_items;
        } else {
          result.header.emplace_back(std::move(key), buf.substr(pos, value_end - pos));
        }
        pos = value_end;
        break;
      }

      case State::kEvents: {
        if (c == ']') {
          flush();
          ++pos;
          state = result.root_shape == "object" ? State::kKey : State::kDone;
          break;
        }
        if (c == ',') {
          ++pos;
          break;
        }
        int64_t item_offset = base + static_cast<int64_t>(pos);
        if (c == '}' || c == ':') {
          Errorf("{}: byte {}{}: malformed trace event: expected '{{', found {}", path, item_offset, where, Describe(c));
        }
        size_t end;
        bool skipped;
        if (!scan_item(end, skipped)) {
          truncated(item_offset, c == '{' ? "trace event" : "traceEvents array");
          state = State::kDone;
          break;
        }
        if (c != '{') {
          // Not an object (never written by Kineto): skipped and counted, if it is a JSON value.
          if (c != '[' && c != '"' && !skipped &&
              ClassifyScalar(std::string_view(buf.data() + pos, end - pos)) == ScalarKind::kInvalid) {
            Errorf("{}: byte {}{}: malformed trace event: expected '{{', found {}", path, item_offset, where,
                   Describe(c));
          }
          flush();
          ++result.non_object_events;
          pos = end;
          break;
        }
        if (skipped) {
          ++result.oversized_items;
          pos = end;
          break;
        }
        if (offsets.empty()) batch_start = pos;
        offsets.push_back(static_cast<uint32_t>(pos - batch_start + 1));
        batch_end = end;
        pos = end;
        ++result.events;
        if (batch_end - batch_start >= kChunk) flush();
        break;
      }

      case State::kDone:
        break;
    }
  }
  flush();
  // Anything after the root value is an error (strict JSON), unless the file was cut short.
  if (!result.truncated) {
    if (skip_ws()) {
      Errorf("{}: byte {}{}: unexpected data after the end of the JSON trace: {}", path, base + static_cast<int64_t>(pos),
             where, Describe(buf[pos]));
    }
  }
  if (in.gzip_truncated() && !result.truncated) {
    truncated(result.json_bytes, "gzip stream");
  }
  return result;
}

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: out += fmt::format("\\u{:04x}", u);
      }
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace tracesql
