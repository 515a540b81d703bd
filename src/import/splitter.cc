#include "import/splitter.h"

#include <cstring>
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

size_t ScanValue(const char* buf, size_t i, size_t n) {
  if (i >= n) return kNeedMore;
  char c = buf[i];
  if (c == '"') return ScanString(buf, i, n);
  if (c != '{' && c != '[') {
    // Scalar: runs to the next delimiter. At the end of the buffer we cannot know it is complete.
    size_t p = i;
    while (p < n && !IsWs(buf[p]) && buf[p] != ',' && buf[p] != '}' && buf[p] != ']') ++p;
    return p < n ? p : kNeedMore;
  }
  size_t depth = 0;
  size_t p = i;
  while (p < n) {
#if defined(__AVX2__)
    // Skip 32 bytes at a time to the next quote or bracket.
    const __m256i q = _mm256_set1_epi8('"'), lb = _mm256_set1_epi8('{'), rb = _mm256_set1_epi8('}'),
                  ls = _mm256_set1_epi8('['), rs = _mm256_set1_epi8(']');
    while (p + 32 <= n) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(buf + p));
      __m256i m = _mm256_or_si256(
          _mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, lb)),
          _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, rb), _mm256_cmpeq_epi8(v, ls)), _mm256_cmpeq_epi8(v, rs)));
      uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(m));
      if (mask) {
        p += static_cast<size_t>(__builtin_ctz(mask));
        break;
      }
      p += 32;
    }
    if (p >= n) break;
#endif
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
    size_t old = buf.size();
    buf.resize(old + kChunk);
    size_t got = in.Read(buf.data() + old, kChunk);
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
        // key : value, re-scanned from the key after each refill.
        size_t item = pos;
        size_t key_end, colon, value_start, value_end;
        bool complete = false;
        while (true) {
          key_end = ScanString(buf.data(), item, buf.size());
          if (key_end != kNeedMore) {
            colon = key_end;
            while (colon < buf.size() && IsWs(buf[colon])) ++colon;
            if (colon < buf.size()) {
              if (buf[colon] != ':') {
                Errorf("{}: byte {}{}: malformed JSON: expected ':' after a top-level key, found {}", path,
                       base + static_cast<int64_t>(colon), where, Describe(buf[colon]));
              }
              value_start = colon + 1;
              while (value_start < buf.size() && IsWs(buf[value_start])) ++value_start;
              if (value_start < buf.size()) {
                std::string_view key(buf.data() + item + 1, key_end - item - 2);
                if (key == "traceEvents") {
                  if (buf[value_start] != '[') {
                    Errorf("{}: byte {}{}: traceEvents is not an array", path, base + static_cast<int64_t>(value_start), where);
                  }
                  result.saw_trace_events = true;
                  pos = value_start + 1;
                  state = State::kEvents;
                  batch_start = batch_end = pos;
                  complete = true;
                  break;
                }
                value_end = ScanValue(buf.data(), value_start, buf.size());
                if (value_end != kNeedMore) {
                  result.header.emplace_back(std::string(key), buf.substr(value_start, value_end - value_start));
                  pos = value_end;
                  complete = true;
                  break;
                }
              }
            }
          }
          pos = item;
          if (!refill()) break;
          item = pos;
        }
        if (!complete) {
          truncated(base + static_cast<int64_t>(pos), "top-level object");
          state = State::kDone;
        }
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
        if (c != '{') {
          Errorf("{}: byte {}{}: malformed trace event: expected '{{', found {}", path, base + static_cast<int64_t>(pos),
                 where, Describe(c));
        }
        if (offsets.empty()) batch_start = pos;
        size_t end = ScanValue(buf.data(), pos, buf.size());
        if (end == kNeedMore) {
          // Hand over what we have, keep the partial event, read on.
          size_t item = pos;
          flush();
          pos = item;
          bool got = false;
          while (refill()) {
            end = ScanValue(buf.data(), pos, buf.size());
            if (end != kNeedMore) {
              got = true;
              break;
            }
          }
          if (!got) {
            truncated(base + static_cast<int64_t>(pos), "trace event");
            state = State::kDone;
            break;
          }
          batch_start = pos;
        }
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

}  // namespace tracesql
