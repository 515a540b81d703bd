#include "import/parser.h"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "tracesql/error.h"
#include "tracesql/timestamp.h"

namespace tracesql {

namespace {

using simdjson::ondemand::json_type;

// Times are kept within +-(2^62 - 1) ns (about 146 years around the trace's origin), and so is
// baseTimeNanoseconds: ts + dur + baseTimeNanoseconds, and any difference of two times, then always
// fit in int64. Anything beyond is stored as NULL (counted in bad_timestamps).
constexpr int64_t kMaxTimeNs = (int64_t{1} << 62) - 1;

// A value in an event that is not JSON (e.g. `tru`, `1.2.3`, a bad escape): the event is malformed.
struct BadValue {
  std::string what;
};

[[noreturn]] void ThrowBadValue(std::string_view tok) {
  if (tok.size() > 40) tok = tok.substr(0, 40);
  throw BadValue{fmt::format("invalid JSON value '{}'", tok)};
}

// Stat increments of the event being parsed, applied only once the event is accepted: an event that
// is parsed again (the per-event fallback of ParseBatch) is counted once.
class StatLog {
 public:
  void Add(StatId id, int64_t n = 1) {
    for (int i = 0; i < n_; ++i) {
      if (items_[i].first == id) {
        items_[i].second += n;
        return;
      }
    }
    items_[n_++] = {id, n};
  }
  void Clear() { n_ = 0; }
  void CommitTo(Stats& stats) {
    for (int i = 0; i < n_; ++i) stats.Add(items_[i].first, items_[i].second);
    n_ = 0;
  }

 private:
  std::pair<StatId, int64_t> items_[static_cast<int>(StatId::kCount)];
  int n_ = 0;
};

// Text that must outlive the buffers it was read from: copied into blocks that never move, so the
// views handed out stay valid until Clear(), which keeps the blocks for the next batch.
class TextArena {
 public:
  std::string_view Keep(std::string_view s) {
    if (s.empty()) return {};
    if (blocks_.empty() || blocks_[cur_].size - used_ < s.size()) Grow(s.size());
    char* p = blocks_[cur_].data.get() + used_;
    std::memcpy(p, s.data(), s.size());
    used_ += s.size();
    return {p, s.size()};
  }
  void Clear() {
    // A block made for one huge value is not kept for the next batch.
    blocks_.erase(std::remove_if(blocks_.begin(), blocks_.end(), [](const Block& b) { return b.size > kBlock; }),
                  blocks_.end());
    cur_ = 0;
    used_ = 0;
  }

 private:
  static constexpr size_t kBlock = 1 << 20;
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };
  void Grow(size_t need) {
    // The next kept block that fits, else a new one (a large value gets a block of its own size).
    while (cur_ + 1 < blocks_.size()) {
      ++cur_;
      used_ = 0;
      if (blocks_[cur_].size >= need) return;
    }
    size_t size = std::max(kBlock, need);
    blocks_.push_back({std::unique_ptr<char[]>(new char[size]), size});  // not zeroed
    cur_ = blocks_.size() - 1;
    used_ = 0;
  }
  std::vector<Block> blocks_;
  size_t cur_ = 0, used_ = 0;
};

// A pid, tid or flow id as read: text is interned only when the event is added to the builder.
struct ParsedId {
  bool is_text = false;
  int64_t i = 0;
  std::string_view text;
};

// One event as parsed on a worker thread, its text in the batch's arena (see RawEvent).
struct ParsedEvent {
  std::string_view ph, cat, name, args, arg_sig, dims, types, meta_name;
  ParsedId pid, tid, id;
  int64_t ts = kNullTs, dur = kNullTs, meta_sort = 0;
  uint32_t promo = 0;  // index in ParsedBatch::promoted of the first promoted value (mask bit order)
  uint16_t mask = 0;
  bool has_cat = false, has_id = false, bp_enclosing = false, has_dims = false, has_types = false, has_meta_sort = false;
};

}  // namespace

// A batch's events, parsed in any order by the workers and added to the builder in file order.
struct ParsedBatch {
  uint64_t seq = 0;
  TextArena arena;
  std::vector<ParsedEvent> events;
  std::vector<int64_t> promoted;
  Stats stats;
  std::exception_ptr error;  // a malformed event: raised once the events before it are added
  void Clear() {
    arena.Clear();
    events.clear();
    promoted.clear();
    stats = Stats{};
    error = nullptr;
  }
};

namespace {

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The raw text of a scalar value (its trailing whitespace dropped).
std::string_view ScalarToken(simdjson::ondemand::value& v) { return TrimRight(v.raw_json_token()); }

// The JSON type of v, or nullopt for a token simdjson does not type (NaN, Infinity, garbage).
// Inlined: GCC otherwise calls it for every key's value and dispatches through a jump table whose
// mispredictions cost 7 % of the import's CPU (clang inlines it on its own).
[[gnu::always_inline]] inline std::optional<json_type> TypeOf(simdjson::ondemand::value& v) {
  json_type t;
  if (v.type().get(t)) return std::nullopt;
  return t;
}

// The raw text of a scalar value, checked: throws BadValue when it is not JSON; non-finite literals
// are accepted and counted.
std::string_view CheckedScalar(simdjson::ondemand::value& v, StatLog& log, ScalarKind* kind = nullptr) {
  std::string_view tok = ScalarToken(v);
  ScalarKind k = ClassifyScalar(tok);
  if (k == ScalarKind::kInvalid) ThrowBadValue(tok);
  if (k == ScalarKind::kNonFinite) log.Add(StatId::non_finite_numbers);
  if (kind) *kind = k;
  return tok;
}

// Values nested deeper than this are stored as a JSON string of their text: SQLite's JSON functions
// refuse deeper documents (1000 levels since 3.45, 2000 before), and real args nest 3 levels.
constexpr size_t kMaxJsonDepth = 256;

// Appends the minified `json` (already validated) to out, or, when it nests deeper than
// kMaxJsonDepth, a JSON string holding that text. Returns true in the second case.
bool ClampDepth(std::string& out, size_t start, size_t depth) {
  if (depth <= kMaxJsonDepth) return false;
  std::string text = out.substr(start);
  out.resize(start);
  AppendJsonString(out, text);
  return true;
}

// Appends the value's JSON text, minified and validated, to out (non-finite literals become strings).
void AppendValue(simdjson::ondemand::value& v, std::optional<json_type> t, std::string& out, StatLog& log) {
  std::string_view raw;
  if (t == json_type::object) {
    simdjson::ondemand::object o = v.get_object();
    raw = o.raw_json();
  } else if (t == json_type::array) {
    simdjson::ondemand::array a = v.get_array();
    raw = a.raw_json();
  } else {
    raw = TrimRight(v.raw_json_token());
  }
  int64_t non_finite = 0;
  size_t start = out.size(), depth = 0;
  if (!MinifyJsonValue(out, raw, &non_finite, &depth)) ThrowBadValue(raw);
  if (non_finite) log.Add(StatId::non_finite_numbers, non_finite);
  if (ClampDepth(out, start, depth)) log.Add(StatId::too_deep_values);
}

// Skips a value the importer ignores: scalars are checked, containers only delimited.
void SkipValue(simdjson::ondemand::value& v, StatLog& log) {
  auto t = TypeOf(v);
  if (t == json_type::object) {
    simdjson::ondemand::object o = v.get_object();
    (void)o.raw_json();
  } else if (t == json_type::array) {
    simdjson::ondemand::array a = v.get_array();
    (void)a.raw_json();
  } else if (t == json_type::string) {
    (void)v.raw_json_token();
  } else {
    (void)CheckedScalar(v, log);
  }
}

// Normalises a pid/tid value: integers stay, numeric strings become integers, other text stays
// (kept in the arena, interned when the event is added).
ParsedId ReadId(simdjson::ondemand::value v, TextArena& arena, StatLog& log, std::string& scratch) {
  ParsedId out;
  auto t = TypeOf(v);
  if (t == json_type::string) {
    std::string_view s = v.get_string();
    if (auto i = ParseInt64(s); i && !s.empty() && (s[0] != '-' || s.size() > 1) && !(s.size() > 1 && s[0] == '0')) {
      out.i = *i;
      log.Add(StatId::numeric_string_ids);
      return out;
    }
    out.is_text = true;
    out.text = arena.Keep(s);
    return out;
  }
  out.is_text = true;
  if (t == json_type::object || t == json_type::array) {
    log.Add(StatId::wrong_types);
    scratch.clear();
    AppendValue(v, t, scratch, log);
    out.text = arena.Keep(scratch);
    return out;
  }
  if (ShortJsonInt(ScalarToken(v), out.i)) {
    out.is_text = false;
    return out;
  }
  ScalarKind kind;
  std::string_view tok = CheckedScalar(v, log, &kind);
  if (kind == ScalarKind::kInteger) {
    if (auto i = ParseInt64(tok)) {
      out.is_text = false;
      out.i = *i;
      return out;
    }
    log.Add(StatId::big_integers);
  }
  // Floats, big integers, booleans...: keep the literal text.
  out.text = arena.Keep(tok);
  return out;
}

int PromotedIndex(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (Eq(key, "Addr")) return kAddr;
      break;
    case 5:
      if (Eq(key, "Bytes")) return kBytes;
      break;
    case 6:
      if (Eq(key, "device")) return kDevice;
      if (Eq(key, "stream")) return kStream;
      break;
    case 9:
      if (Eq(key, "Python id")) return kPythonId;
      if (Eq(key, "Device Id")) return kDeviceId;
      break;
    case 11:
      if (Eq(key, "External id") || Eq(key, "external id")) return kExternalId;
      if (Eq(key, "correlation")) return kCorrelation;
      if (Eq(key, "Device Type")) return kDeviceType;
      break;
    case 14:
      if (Eq(key, "Total Reserved")) return kTotalReserved;
      break;
    case 13:
      if (Eq(key, "Fwd thread id")) return kFwdThreadId;
      break;
    case 15:
      if (Eq(key, "Sequence number")) return kSeqNum;
      if (Eq(key, "Total Allocated")) return kTotalAllocated;
      break;
    case 16:
      if (Eq(key, "Python parent id")) return kPythonParentId;
      break;
    default:
      break;
  }
  return -1;
}

// Decodes the args object: values as a minified JSON array into `out`, the keys into `sig`,
// promoted values and metadata args into e. Every value is validated; a key that repeats keeps its
// last value (ArgsDedup).
class ArgsReader {
 public:
  // The slot of an arg key whose value may be kept in a column: its Promoted slot, kInputShape for
  // 'Input Dims' (2020: 'Input dims'), kTypesSlot for 'Input type' (both in input_shapes); else -1.
  static constexpr int kTypesSlot = kPromotedCount;
  static int SlotOf(std::string_view key) {
    if (key.size() == 10) {
      if (Eq(key, "Input Dims") || Eq(key, "Input dims")) return kInputShape;
      if (Eq(key, "Input type")) return kTypesSlot;
    }
    return PromotedIndex(key);
  }

  // promoted: the event's promoted values, indexed by Promoted; text goes to the arena.
  void Read(simdjson::ondemand::object obj, ParsedEvent& e, int64_t* promoted, TextArena& arena, StatLog& log) {
    std::string& out = out_;
    std::string& sig = sig_;
    out.clear();
    sig.clear();
    spans_.clear();
    out.push_back('[');
    e.mask = 0;
    e.has_meta_sort = false;
    e.meta_name = {};
    e.has_dims = e.has_types = false;
    size_t dims_at = 0, types_at = 0;  // index + 1 in spans_ of the last Input Dims / Input type
    seen_ = 0;
    deduped_ = false;
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      if (out.size() > 1) out.push_back(',');
      size_t value_start = out.size();
      uint32_t klen = static_cast<uint32_t>(key.size());
      size_t sig_at = sig.size();
      sig.append(reinterpret_cast<const char*>(&klen), 4);
      sig.append(key);
      simdjson::ondemand::value v = field.value();
      auto t = TypeOf(v);
      int slot = SlotOf(key);
      bool is_meta_name = Eq(key, "name") || Eq(key, "labels");
      bool is_sort = Eq(key, "sort_index");
      bool have_int = false, neg_zero = false;
      int64_t iv = 0;
      std::string_view int_tok;  // an integer's token, read in one pass (most values)
      if (t == json_type::number && ShortJsonInt(int_tok = ScalarToken(v), iv)) {
        have_int = true;
        neg_zero = iv == 0 && int_tok[0] == '-';
        out.append(int_tok);
      } else if (t == json_type::number) {
        ScalarKind kind;
        std::string_view tok = CheckedScalar(v, log, &kind);
        if (kind == ScalarKind::kInteger) {
          if (auto parsed = ParseInt64(tok)) {
            have_int = true;
            iv = *parsed;
            neg_zero = iv == 0 && tok[0] == '-';
            out.append(tok);
          } else {
            // Beyond int64: keep the exact digits as a JSON string.
            log.Add(StatId::big_integers);
            out.push_back('"');
            out.append(tok);
            out.push_back('"');
          }
        } else if (kind == ScalarKind::kNonFinite) {
          out.push_back('"');
          out.append(tok);
          out.push_back('"');
        } else {
          out.append(tok);
        }
      } else {
        AppendValue(v, t, out, log);
        if (t == json_type::string && is_meta_name) {
          std::string_view str = v.get_string();
          e.meta_name = arena.Keep(str);
        }
      }
      // The last occurrence of a key decides (a repeated key overrides an earlier value).
      if (slot >= 0 && slot < kInputShape) {
        if (have_int) {
          e.mask |= static_cast<uint16_t>(1u << slot);
          promoted[slot] = iv;
          if (neg_zero) e.mask |= kKeepInLine;
        } else {
          e.mask &= static_cast<uint16_t>(~(1u << slot));
        }
      }
      if (is_sort) {
        e.has_meta_sort = have_int;
        e.meta_sort = iv;
      }
      if (is_meta_name && t != json_type::string) e.meta_name = {};
      if (slot == kInputShape) dims_at = spans_.size() + 1;
      if (slot == kTypesSlot) types_at = spans_.size() + 1;
      if (slot >= 0) {
        last_[slot] = static_cast<uint32_t>(spans_.size());
        last_sig_at_[slot] = static_cast<uint32_t>(sig_at);
        seen_ |= 1u << slot;
      }
      spans_.push_back({value_start, out.size()});
    }
    out.push_back(']');
    auto span = [&](size_t at) {
      return std::string_view(out).substr(spans_[at - 1].first, spans_[at - 1].second - spans_[at - 1].first);
    };
    if (dims_at) {
      e.has_dims = true;
      e.dims = arena.Keep(span(dims_at));
    }
    if (types_at) {
      e.has_types = true;
      e.types = arena.Keep(span(types_at));
    }
    if (spans_.size() > 1 && HasDuplicateKeys(sig)) {
      Dedup(out, sig, log);
      deduped_ = true;  // last_ and last_sig_at_ no longer apply
    }
  }

  // Completes the args of the event whose Read was the last (once its ph and name are known): the
  // values that a column keeps are dropped from the values and their keys flagged kOutOfLine
  // (arg_keys.path NULL), then e.args / e.arg_sig are kept in the arena. `stored`: the event becomes
  // an events row with its own promoted columns (not an E, whose args join its B's, nor M);
  // `memory`: a [memory] instant, whose allocator args go to memory_args.
  void Finish(ParsedEvent& e, bool stored, bool memory, TextArena& arena) {
    uint32_t move = 0;
    if (stored) {
      if (!(e.mask & kKeepInLine)) move = e.mask & (kEventBits | (memory ? kMemoryBits : 0));
      if (e.has_dims || e.has_types) move |= 1u << kInputShape;
    }
    if (move) MoveOutOfLine(move);
    e.args = arena.Keep(out_);
    e.arg_sig = arena.Keep(sig_);
  }

 private:
  // Whether the key signature repeats a key. Each distinct signature is checked once.
  bool HasDuplicateKeys(const std::string& sig) {
    if (sig == last_clean_) return false;
    if (clean_.count(sig)) {
      last_clean_ = sig;
      return false;
    }
    std::vector<std::string_view> keys = Keys(sig);
    std::sort(keys.begin(), keys.end());
    if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) return true;
    if (clean_.size() < 100000) clean_.insert(sig);
    last_clean_ = sig;
    return false;
  }

  static std::vector<std::string_view> Keys(std::string_view sig) {
    std::vector<std::string_view> keys;
    while (sig.size() >= 4) {
      uint32_t len;
      std::memcpy(&len, sig.data(), 4);
      keys.push_back(sig.substr(4, len));
      sig.remove_prefix(4 + len);
    }
    return keys;
  }

  // Keeps only the last occurrence of each key, in its place.
  void Dedup(std::string& out, std::string& sig, StatLog& log) {
    std::vector<std::string_view> keys = Keys(sig);
    std::string new_out = "[", new_sig;
    std::vector<std::pair<size_t, size_t>> new_spans;
    for (size_t i = 0; i < keys.size(); ++i) {
      bool later = false;
      for (size_t j = i + 1; j < keys.size() && !later; ++j) later = keys[j] == keys[i];
      if (later) {
        log.Add(StatId::duplicate_keys);
        continue;
      }
      if (new_out.size() > 1) new_out.push_back(',');
      size_t start = new_out.size();
      new_out.append(out, spans_[i].first, spans_[i].second - spans_[i].first);
      new_spans.push_back({start, new_out.size()});
      uint32_t klen = static_cast<uint32_t>(keys[i].size());
      new_sig.append(reinterpret_cast<const char*>(&klen), 4);
      new_sig.append(keys[i]);
    }
    new_out.push_back(']');
    out = std::move(new_out);
    sig = std::move(new_sig);
    spans_ = std::move(new_spans);
  }

  // Drops the values of the keys that `move` names from out_ and flags those keys in sig_: for a
  // promoted slot, its last key (the one whose value was promoted); for kInputShape, the last
  // 'Input Dims' (2020: 'Input dims') and the last 'Input type' (their values are in input_shapes).
  void MoveOutOfLine(uint32_t move) {
    if (move & (1u << kInputShape)) move |= 1u << kTypesSlot;
    if (deduped_) FindLast();
    move &= seen_;
    uint32_t drop[kTypesSlot + 1];
    int n = 0;
    for (uint32_t m = move; m; m &= m - 1) {
      int slot = __builtin_ctz(m);
      uint32_t len;
      std::memcpy(&len, sig_.data() + last_sig_at_[slot], 4);
      len |= ArgShapes::kOutOfLine;
      std::memcpy(sig_.data() + last_sig_at_[slot], &len, 4);
      // insertion sort: a handful of positions
      int k = n++;
      for (; k > 0 && drop[k - 1] > last_[slot]; --k) drop[k] = drop[k - 1];
      drop[k] = last_[slot];
    }
    // Compact out_ in place: each run of kept values moves left as one piece (with its commas).
    char* p = out_.data();
    size_t w = 1;  // after '['
    uint32_t next = 0;  // first value not yet placed
    auto keep = [&](uint32_t a, uint32_t b) {  // values [a, b)
      if (a >= b) return;
      size_t from = spans_[a].first, len = spans_[b - 1].second - from;
      if (w > 1) p[w++] = ',';
      std::memmove(p + w, p + from, len);
      w += len;
    };
    for (int k = 0; k < n; ++k) {
      keep(next, drop[k]);
      next = drop[k] + 1;
    }
    keep(next, static_cast<uint32_t>(spans_.size()));
    p[w++] = ']';
    out_.resize(w);
  }

  // last_ / last_sig_at_ / seen_ recomputed from sig_ (after Dedup moved the keys).
  void FindLast() {
    seen_ = 0;
    size_t at = 0;
    for (uint32_t i = 0; at + 4 <= sig_.size(); ++i) {
      uint32_t len;
      std::memcpy(&len, sig_.data() + at, 4);
      int slot = SlotOf(std::string_view(sig_.data() + at + 4, len));
      if (slot >= 0) {
        last_[slot] = i;
        last_sig_at_[slot] = static_cast<uint32_t>(at);
        seen_ |= 1u << slot;
      }
      at += 4 + len;
    }
  }

  // Per slot (see SlotOf): the position of the last key of that slot in spans_ and the offset of its
  // length in sig_; seen_: which are set.
  uint32_t last_[kTypesSlot + 1];
  uint32_t last_sig_at_[kTypesSlot + 1];
  uint32_t seen_ = 0;
  bool deduped_ = false;
  std::string out_, sig_;                          // the values and keys being read
  std::vector<std::pair<size_t, size_t>> spans_;  // each value's [begin, end) in out
  std::unordered_set<std::string> clean_;         // signatures without repeated keys
  std::string last_clean_;
};

int64_t ReadTime(simdjson::ondemand::value v, StatLog& log) {
  std::string_view tok;
  auto t = TypeOf(v);
  if (t == json_type::string) {
    tok = v.get_string();  // a number written as a string
  } else if (t == json_type::object || t == json_type::array) {
    SkipValue(v, log);
    log.Add(StatId::bad_timestamps);
    return kNullTs;
  } else {
    if (int64_t ns; t == json_type::number && ShortMicros(ScalarToken(v), ns)) return ns;
    tok = CheckedScalar(v, log);
  }
  if (auto ns = MicrosToNanos(tok); ns && *ns >= -kMaxTimeNs && *ns <= kMaxTimeNs) return *ns;
  log.Add(StatId::bad_timestamps);
  return kNullTs;
}

// Parses batches into ParsedBatch records; one per worker thread (it owns a simdjson parser).
class EventParser {
 public:
  EventParser(const std::string& path, bool compressed) : path_(path), where_(compressed ? " of the decompressed JSON" : "") {}

  // Parses every event of the batch into out. The whole batch is parsed as one document; if that
  // fails (a malformed event, invalid UTF-8...), the remaining events are parsed one at a time,
  // repairing the strings of an event that needs it, so the error names the exact event.
  void ParseBatch(Batch& batch, ParsedBatch& out) {
    out_ = &out;
    size_t k = 0, n = batch.event_offsets.size();
    try {
      simdjson::ondemand::document doc = parser_.iterate(batch.text.data(), batch.text.size(), batch.text.capacity());
      simdjson::ondemand::array arr = doc.get_array();
      for (auto element : arr) {
        if (k >= n) break;
        simdjson::ondemand::object obj = element.get_object();
        ParseEvent(obj);
        ++k;
      }
      if (k == n) return;
    } catch (const simdjson::simdjson_error&) {
    } catch (const BadValue&) {
    }
    log_.Clear();
    for (; k < n; ++k) ParseAlone(batch, k);
  }

 private:
  void ParseAlone(const Batch& batch, size_t k) {
    size_t start = batch.event_offsets[k];
    size_t end = k + 1 < batch.event_offsets.size() ? batch.event_offsets[k + 1] : batch.text.size() - 1;
    while (end > start && (batch.text[end - 1] == ',' || batch.text[end - 1] == ' ' || batch.text[end - 1] == '\n' ||
                           batch.text[end - 1] == '\r' || batch.text[end - 1] == '\t')) {
      --end;
    }
    std::string text = batch.text.substr(start, end - start);
    int64_t at = batch.json_offset + static_cast<int64_t>(start) - 1;
    std::string error = ParseOne(text);
    if (error.empty()) return;
    if (RepairJsonStrings(text)) {
      std::string again = ParseOne(text);
      if (again.empty()) {
        out_->stats.Add(StatId::invalid_strings);
        return;
      }
      error = again;
    }
    Errorf("{}: byte {}{}: malformed trace event: {}", path_, at, where_, error);
  }

  // Parses one event on its own; returns an error message, empty on success.
  std::string ParseOne(const std::string& text) {
    simdjson::padded_string padded(text);
    try {
      simdjson::ondemand::document doc = alone_.iterate(padded);
      simdjson::ondemand::object obj = doc.get_object();
      ParseEvent(obj);
      return std::string();
    } catch (const simdjson::simdjson_error& err) {
      log_.Clear();
      return simdjson::error_message(err.error());
    } catch (const BadValue& bad) {
      log_.Clear();
      return bad.what;
    }
  }

  // The JSON text of a field that should have been a string.
  std::string_view AsText(simdjson::ondemand::value& v, std::optional<json_type> t) {
    log_.Add(StatId::wrong_types);
    text_.clear();
    if (t == json_type::object || t == json_type::array) {
      AppendValue(v, t, text_, log_);
    } else {
      text_.assign(CheckedScalar(v, log_));
    }
    return text_;
  }

  // A string field (ph, cat, name) kept in the arena, or its JSON text when it is not a string.
  std::string_view ReadText(simdjson::ondemand::value& v) {
    auto t = TypeOf(v);
    return out_->arena.Keep(t == json_type::string ? std::string_view(v.get_string()) : AsText(v, t));
  }

  void ParseEvent(simdjson::ondemand::object& obj) {
    ParsedEvent e;
    int64_t promoted[kPromotedCount];
    StatLog& log = log_;
    TextArena& arena = out_->arena;
    uint32_t seen = 0;  // known keys already read, to count repeats
    bool args_read = false;  // args_reader_ holds this event's args object (Finish it at the end)
    auto once = [&](uint32_t bit) {
      if (seen & bit) log.Add(StatId::duplicate_keys);
      seen |= bit;
    };
    for (auto field : obj) {
      std::string_view key = field.unescaped_key();
      simdjson::ondemand::value v = field.value();
      switch (key.size()) {
        case 2:
          if (Eq(key, "ph")) {
            once(1u << 0);
            e.ph = ReadText(v);
            continue;
          }
          if (Eq(key, "ts")) {
            once(1u << 1);
            e.ts = ReadTime(v, log);
            continue;
          }
          if (Eq(key, "id")) {
            once(1u << 2);
            e.has_id = true;
            e.id = ReadId(v, arena, log, text_);
            continue;
          }
          if (Eq(key, "bp")) {
            once(1u << 3);
            if (TypeOf(v) == json_type::string) {
              std::string_view bp = v.get_string();
              e.bp_enclosing = Eq(bp, "e");
            } else {
              log.Add(StatId::wrong_types);
              SkipValue(v, log);
              e.bp_enclosing = false;
            }
            continue;
          }
          break;
        case 3:
          if (Eq(key, "cat")) {
            once(1u << 4);
            if (v.is_null()) {
              e.has_cat = false;
              continue;
            }
            e.cat = ReadText(v);
            e.has_cat = true;
            continue;
          }
          if (Eq(key, "pid")) {
            once(1u << 5);
            e.pid = ReadId(v, arena, log, text_);
            continue;
          }
          if (Eq(key, "tid")) {
            once(1u << 6);
            e.tid = ReadId(v, arena, log, text_);
            continue;
          }
          if (Eq(key, "dur")) {
            once(1u << 7);
            e.dur = ReadTime(v, log);
            continue;
          }
          break;
        case 4:
          if (Eq(key, "name")) {
            once(1u << 8);
            e.name = ReadText(v);
            continue;
          }
          if (Eq(key, "args")) {
            once(1u << 9);
            auto t = TypeOf(v);
            if (t == json_type::object) {
              args_reader_.Read(v.get_object(), e, promoted, arena, log);
              args_read = true;
            } else {
              // Not an object (never seen in real traces): kept as one arg with an empty key.
              text_.assign("[");
              AppendValue(v, t, text_, log);
              text_.push_back(']');
              args_read = false;
              e.args = arena.Keep(text_);
              e.arg_sig = arena.Keep(std::string_view("\0\0\0\0", 4));
              e.mask = 0;
              e.has_dims = e.has_types = false;
              e.has_meta_sort = false;
              e.meta_name = {};
            }
            continue;
          }
          break;
        case 1:
          if (Eq(key, "s")) {
            once(1u << 10);
            SkipValue(v, log);
            continue;
          }
          break;
        default:
          break;
      }
      // Unknown key: skip its value.
      log.Add(StatId::unknown_event_keys);
      SkipValue(v, log);
    }
    // U+0000 (a \u0000 escape) is stored as is; counted because some SQLite functions stop at it.
    auto has_nul = [](std::string_view t) { return t.find('\0') != std::string_view::npos; };
    if (has_nul(e.name) || has_nul(e.cat) || has_nul(e.ph)) {
      log.Add(StatId::nul_characters);
    }
    // ts and dur are each within kMaxTimeNs, so their sum cannot overflow; the end must be too.
    if (e.ts != kNullTs && e.dur != kNullTs && (e.ts + e.dur > kMaxTimeNs || e.ts + e.dur < -kMaxTimeNs)) {
      e.dur = kNullTs;
      log.Add(StatId::bad_timestamps);
    }
    if (args_read) {
      bool stored = !Eq(e.ph, "E") && !Eq(e.ph, "M");
      args_reader_.Finish(e, stored, stored && IsMemoryInstant(e.ph, e.name), arena);
    }
    e.promo = static_cast<uint32_t>(out_->promoted.size());
    for (int k = 0; k < kPromotedCount; ++k) {
      if (e.mask & (1u << k)) out_->promoted.push_back(promoted[k]);
    }
    out_->events.push_back(e);
    log.CommitTo(out_->stats);
  }

  const std::string& path_;
  const char* where_;
  ParsedBatch* out_ = nullptr;
  simdjson::ondemand::parser parser_;
  simdjson::ondemand::parser alone_;  // for the per-event fallback
  StatLog log_;
  ArgsReader args_reader_;
  std::string text_;
};

// Adds a parsed batch's events to the builder (interning their text), then its counts; raises its
// error, if any, after the events before it.
void AddParsed(const ParsedBatch& b, TraceBuilder& builder) {
  Interner& strings = builder.strings();
  auto id = [&](const ParsedId& p) {
    IdValue v;
    v.is_text = p.is_text;
    v.i = p.i;
    if (p.is_text) v.text = strings.Intern(p.text);
    return v;
  };
  RawEvent r;
  for (const ParsedEvent& e : b.events) {
    r.ph = e.ph;
    r.cat = e.cat;
    r.name = e.name;
    r.has_cat = e.has_cat;
    r.pid = id(e.pid);
    r.tid = id(e.tid);
    r.ts = e.ts;
    r.dur = e.dur;
    r.has_id = e.has_id;
    r.id = e.has_id ? id(e.id) : IdValue{};
    r.bp_enclosing = e.bp_enclosing;
    r.args = e.args;
    r.arg_sig = e.arg_sig;
    r.mask = e.mask;
    const int64_t* p = b.promoted.data() + e.promo;
    for (int k = 0; k < kPromotedCount; ++k) {
      if (e.mask & (1u << k)) r.promoted[k] = *p++;
    }
    r.has_dims = e.has_dims;
    r.has_types = e.has_types;
    r.dims = e.dims;
    r.types = e.types;
    r.meta_name = e.meta_name;
    r.has_meta_sort = e.has_meta_sort;
    r.meta_sort = e.meta_sort;
    builder.AddEvent(r);
  }
  Stats& stats = builder.stats();
  for (int i = 0; i < static_cast<int>(StatId::kCount); ++i) {
    if (b.stats.set[i]) stats.Add(static_cast<StatId>(i), b.stats.values[i]);
  }
  if (b.error) std::rethrow_exception(b.error);
}

}  // namespace

// Header values: validated and minified (iteratively: no depth limit), strings repaired, repeated
// keys resolved (the last wins); the few keys tracesql reads are then decoded with the DOM parser.
HeaderInfo ReadHeader(const SplitResult& split, const std::string& path, Stats& stats) {
  HeaderInfo h;
  simdjson::dom::parser parser;
  std::string meta = "{";
  bool first = true;
  const auto& header = split.header;
  std::unordered_map<std::string_view, size_t> last;  // key -> index of its last occurrence
  for (size_t i = 0; i < header.size(); ++i) last[header[i].first] = i;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& key = header[i].first;  // raw (escaped) text between the quotes
    if (last[key] != i) {
      stats.Add(StatId::duplicate_keys);
      continue;
    }
    std::string key_json = "\"" + key + "\"";
    std::string raw = header[i].second;
    bool repaired = RepairJsonStrings(key_json);
    repaired = RepairJsonStrings(raw) || repaired;
    std::string value;
    int64_t non_finite = 0;
    std::string checked_key;
    if (!MinifyJsonValue(checked_key, key_json, nullptr)) Errorf("{}: malformed JSON in a top-level key: {}", path, key_json);
    size_t depth = 0;
    if (!MinifyJsonValue(value, raw, &non_finite, &depth)) {
      Errorf("{}: malformed JSON in top-level key {}: {}", path, key_json, raw.substr(0, 60));
    }
    if (ClampDepth(value, 0, depth)) stats.Add(StatId::too_deep_values);
    if (repaired) stats.Add(StatId::invalid_strings);
    if (non_finite) stats.Add(StatId::non_finite_numbers, non_finite);
    if (!first) meta.push_back(',');
    first = false;
    meta += checked_key;
    meta.push_back(':');
    meta += value;
    if (key == "baseTimeNanoseconds") {
      // An integer, or an integer written as a string; anything else is not a usable time base.
      std::string_view text = value;
      if (text.size() >= 2 && text.front() == '"') text = text.substr(1, text.size() - 2);
      std::optional<int64_t> v = ParseInt64(text);
      if (v && *v >= 0 && *v <= kMaxTimeNs) {
        h.has_base = true;
        h.base_time_ns = *v;
      } else {
        stats.Add(StatId::bad_timestamps);
      }
      continue;
    }
    if (key != "distributedInfo" && key != "deviceProperties") continue;
    simdjson::dom::element el;
    if (parser.parse(value).get(el)) continue;  // e.g. nested beyond the DOM parser's depth: not decoded
    if (key == "distributedInfo" && el.is_object()) {
      int64_t v;
      if (!el["rank"].get_int64().get(v)) {
        h.has_rank = true;
        h.rank = v;
      }
      if (!el["world_size"].get_int64().get(v)) {
        h.has_world = true;
        h.world_size = v;
      }
    } else if (key == "deviceProperties" && el.is_array()) {
      for (simdjson::dom::element d : el.get_array()) {
        if (!d.is_object()) continue;
        HeaderInfo::Device dev;
        int64_t v;
        std::string_view s;
        if (!d["id"].get_int64().get(v)) dev.has_id = true, dev.id = v;
        if (!d["name"].get_string().get(s)) dev.name = std::string(s);
        if (!d["computeMajor"].get_int64().get(v)) dev.has_major = true, dev.major = v;
        if (!d["computeMinor"].get_int64().get(v)) dev.has_minor = true, dev.minor = v;
        if (!d["totalGlobalMem"].get_int64().get(v)) dev.has_mem = true, dev.mem = v;
        if (!d["numSms"].get_int64().get(v)) dev.has_sms = true, dev.sms = v;
        dev.properties = simdjson::minify(d);
        h.devices.push_back(std::move(dev));
      }
    }
  }
  meta.push_back('}');
  h.metadata = std::move(meta);
  return h;
}


ParallelParser::ParallelParser(BatchQueue& in, const std::string& path, bool compressed, int workers,
                               bool (*interrupted)())
    : in_(in), interrupted_(interrupted), running_(workers) {
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this, &path, compressed] { Work(path, compressed); });
  }
}

ParallelParser::~ParallelParser() { Stop(); }

bool ParallelParser::AddNext(TraceBuilder& builder) {
  std::unique_ptr<ParsedBatch> b = Next();
  if (!b || interrupted_()) return false;
  AddParsed(*b, builder);
  Recycle(std::move(b));
  return true;
}

std::unique_ptr<ParsedBatch> ParallelParser::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(50),
                       [&] { return ready_.count(next_) || running_ == 0 || error_; })) {
    if (interrupted_()) return nullptr;  // the caller checks for the interrupt
  }
  if (error_) std::rethrow_exception(error_);
  auto it = ready_.find(next_);
  if (it == ready_.end()) return nullptr;
  std::unique_ptr<ParsedBatch> b = std::move(it->second);
  ready_.erase(it);
  ++next_;
  cv_.notify_all();  // a worker holding the next batch may be waiting for a slot
  return b;
}

void ParallelParser::Recycle(std::unique_ptr<ParsedBatch> b) {
  b->Clear();
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(b));
  cv_.notify_all();
}

void ParallelParser::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ParallelParser::Work(const std::string& path, bool compressed) {
  try {
    EventParser parser(path, compressed);
    SeqBatch b;
    // Tests: the worker that takes the first batch stalls, so the other fills every slot first.
    static const bool slow_first = std::getenv("TRACESQL_TEST_SLOW_FIRST_BATCH") != nullptr;
    while (in_.Pop(b, interrupted_)) {
      if (slow_first && b.seq == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
      std::unique_ptr<ParsedBatch> out;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // The batch the main thread waits for never waits for a slot (the others may hold them
        // all, each waiting for its turn behind it): it may take one beyond kSlots.
        cv_.wait(lock, [&] { return stop_ || !free_.empty() || slots_ < kSlots || b.seq == next_; });
        if (stop_) break;
        if (!free_.empty()) {
          out = std::move(free_.back());
          free_.pop_back();
        } else {
          ++slots_;
          lock.unlock();
          out = std::make_unique<ParsedBatch>();
        }
      }
      out->seq = b.seq;
      try {
        parser.ParseBatch(b.batch, *out);
      } catch (const Error&) {
        out->error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu_);
      ready_[out->seq] = std::move(out);
      cv_.notify_all();
    }
  } catch (...) {
    // Not a malformed event (that is the batch's error) but e.g. out of memory: the batch is
    // lost, so everything stops and Next() raises it.
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = std::current_exception();
    stop_ = true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  cv_.notify_all();
}

// Threads that parse batches, one per core up to three: parsing is ~3/4 of the first stage's CPU
// (the reader's split and the main thread's AddParsed share the rest), so on two cores two workers
// keep both busy, and beyond three the single reader and main thread become the limit.
int ParseWorkers() {
  unsigned n = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(n, 1u, 3u));
}

}  // namespace tracesql
