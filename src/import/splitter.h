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
};

class Splitter {
 public:
  static constexpr size_t kChunk = 4 << 20;

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

}  // namespace tracesql

#endif  // SRC_IMPORT_SPLITTER_H_
