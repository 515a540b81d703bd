#include "shell/json_shim.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <deque>
#include <optional>
#include <string_view>
#include <new>
#include <utility>

#include "tracesql/error.h"

namespace tracesql::shell {
namespace {

constexpr unsigned kJsonSubtype = 74;  // 'J', the subtype SQLite's JSON functions put on JSON text

// The scalar JSON functions of SQLite 3.38+ (json_each/json_tree are innocuous virtual tables already).
constexpr const char* kScalarFunctions[] = {
    "json",       "json_array",  "json_array_length", "json_extract", "->",          "->>",
    "json_insert", "json_object", "json_patch",        "json_quote",   "json_remove", "json_replace",
    "json_set",   "json_type",   "json_valid",
};

// ---------------------------------------------------------------------------------------------------
// Fast path for the calls tracesql's views make on every arg: json_extract / json_type / -> / ->> of
// '$[N]' on a minified JSON array (events.arg_values), json_extract of several such paths, and json()
// of one minified value. Forwarding costs about a microsecond a call and
// loses SQLite's per-statement parse cache, so these are answered here when the document is a strictly
// valid, whitespace-free JSON array (a subset of what SQLite accepts) and the answer needs no
// conversion SQLite might do differently (reals, big integers, escaped strings and, for
// json_extract / ->>, arrays and objects go to SQLite). Anything else is forwarded.

// Validates one minified JSON value at [p, end); returns the byte after it, or nullptr. kind receives
// 's' string (escaped: 'S'), 'i' integer, 'r' real, 't' true, 'f' false, 'n' null, 'a' array, 'o' object.
const char* ScanValue(const char* p, const char* end, int depth, char* kind);

const char* ScanString(const char* p, const char* end, bool* escaped) {
  ++p;  // opening quote
  while (p < end) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"') return p + 1;
    if (c < 0x20) return nullptr;
    if (c == '\\') {
      *escaped = true;
      if (++p >= end) return nullptr;
      char e = *p;
      if (e == 'u') {
        for (int k = 0; k < 4; ++k) {
          if (++p >= end || !std::isxdigit(static_cast<unsigned char>(*p))) return nullptr;
        }
      } else if (!std::strchr("\"\\/bfnrt", e) || e == 0) {
        return nullptr;
      }
    }
    ++p;
  }
  return nullptr;
}

const char* ScanNumber(const char* p, const char* end, char* kind) {
  auto digit = [&](const char* q) { return q < end && *q >= '0' && *q <= '9'; };
  *kind = 'i';
  if (p < end && *p == '-') ++p;
  if (!digit(p)) return nullptr;
  if (*p == '0') {
    ++p;
  } else {
    while (digit(p)) ++p;
  }
  if (p < end && *p == '.') {
    *kind = 'r';
    ++p;
    if (!digit(p)) return nullptr;
    while (digit(p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    *kind = 'r';
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (!digit(p)) return nullptr;
    while (digit(p)) ++p;
  }
  return p;
}

const char* ScanValue(const char* p, const char* end, int depth, char* kind) {
  if (p >= end || depth > 1000) return nullptr;
  switch (*p) {
    case '"': {
      bool escaped = false;
      const char* q = ScanString(p, end, &escaped);
      *kind = escaped ? 'S' : 's';
      return q;
    }
    case '[':
    case '{': {
      bool object = *p == '{';
      char close = object ? '}' : ']';
      *kind = object ? 'o' : 'a';
      ++p;
      if (p < end && *p == close) return p + 1;
      for (;;) {
        char k;
        if (object) {
          if (p >= end || *p != '"') return nullptr;
          bool escaped = false;
          p = ScanString(p, end, &escaped);
          if (!p || p >= end || *p != ':') return nullptr;
          ++p;
        }
        p = ScanValue(p, end, depth + 1, &k);
        if (!p || p >= end) return nullptr;
        if (*p == close) return p + 1;
        if (*p != ',') return nullptr;
        ++p;
      }
    }
    case 't':
      *kind = 't';
      return end - p >= 4 && std::memcmp(p, "true", 4) == 0 ? p + 4 : nullptr;
    case 'f':
      *kind = 'f';
      return end - p >= 5 && std::memcmp(p, "false", 5) == 0 ? p + 5 : nullptr;
    case 'n':
      *kind = 'n';
      return end - p >= 4 && std::memcmp(p, "null", 4) == 0 ? p + 4 : nullptr;
    default:
      return ScanNumber(p, end, kind);
  }
}

// Scans doc into cache when it is not the array scanned last. Returns false when doc is not a valid
// minified JSON array.
bool ScanArray(std::string_view doc, JsonShim::ScannedArray& cache) {
  if (doc.size() == cache.doc.size() && std::memcmp(doc.data(), cache.doc.data(), doc.size()) == 0) {
    return cache.valid;
  }
  cache.doc.assign(doc.data(), doc.size());
  cache.valid = false;
  cache.elements.clear();
  cache.kinds.clear();
  if (doc.size() > 0xFFFFFFF0u) return false;
  const char* base = doc.data();
  const char* p = base;
  const char* end = p + doc.size();
  if (p == end || *p != '[') return false;
  ++p;
  if (p < end && *p == ']') {
    cache.valid = p + 1 == end;
    return cache.valid;
  }
  for (;;) {
    char kind = 0;
    const char* start = p;
    p = ScanValue(p, end, 1, &kind);
    if (!p || p >= end) return false;
    cache.elements.emplace_back(static_cast<uint32_t>(start - base), static_cast<uint32_t>(p - start));
    cache.kinds += kind;
    if (*p == ']') {
      cache.valid = p + 1 == end;
      return cache.valid;
    }
    if (*p != ',') return false;
    ++p;
  }
}

// "$[N]" -> N.
std::optional<uint64_t> ArrayPath(sqlite3_value* v) {
  if (sqlite3_value_type(v) != SQLITE_TEXT) return std::nullopt;
  std::string_view path(reinterpret_cast<const char*>(sqlite3_value_text(v)), static_cast<size_t>(sqlite3_value_bytes(v)));
  if (path.size() < 4 || path.substr(0, 2) != "$[" || path.back() != ']' || path.size() > 22) return std::nullopt;
  uint64_t n = 0;
  for (char c : path.substr(2, path.size() - 3)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

enum class FastOp { kExtract, kType, kArrow, kArrow2, kJson, kObject };

std::string_view TextOf(sqlite3_value* v) {
  return {reinterpret_cast<const char*>(sqlite3_value_text(v)), static_cast<size_t>(sqlite3_value_bytes(v))};
}

// json(X) of one valid minified JSON value: SQLite writes X back unchanged (it keeps every token's
// text), with the JSON subtype. event_args marks each value's text as JSON this way.
bool TryFastJson(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc != 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) return false;
  std::string_view doc = TextOf(argv[0]);
  char kind = 0;
  if (doc.empty() || ScanValue(doc.data(), doc.data() + doc.size(), 1, &kind) != doc.data() + doc.size()) {
    return false;
  }
  sqlite3_result_text(ctx, doc.data(), static_cast<int>(doc.size()), SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, kJsonSubtype);
  return true;
}

// json_extract(doc, '$[N]', '$[M]', ...): SQLite writes '[' + each element's text (null when there is
// none) + ']', with the JSON subtype. event_args cuts a value's exact text out of it.
bool TryFastExtractMany(sqlite3_context* ctx, int argc, sqlite3_value** argv, JsonShim::ScannedArray& scanned) {
  std::string out = "[";
  for (int i = 1; i < argc; ++i) {
    std::optional<uint64_t> index = ArrayPath(argv[i]);
    if (!index) return false;
    if (i > 1) out += ',';
    if (*index < scanned.elements.size()) {
      const auto& [offset, length] = scanned.elements[*index];
      out.append(scanned.doc, offset, length);
    } else {
      out += "null";
    }
  }
  out += ']';
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, kJsonSubtype);
  return true;
}

void AppendJsonString(std::string& out, const unsigned char* z, int n);

// json_object(label, value, ...) whose labels are text and values NULL, integers or text without the
// JSON subtype: SQLite 3.40 writes '{' "label":value, ... '}' (labels and text values as JSON string
// literals, integers as their decimal text), with the JSON subtype. timeline_overlay makes one per
// row. Anything else (reals, JSON values, blobs, errors) is forwarded.
bool TryFastObject(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc % 2) return false;
  std::string out = "{";
  for (int i = 0; i < argc; i += 2) {
    if (sqlite3_value_type(argv[i]) != SQLITE_TEXT) return false;
    if (i) out += ',';
    AppendJsonString(out, sqlite3_value_text(argv[i]), sqlite3_value_bytes(argv[i]));
    out += ':';
    sqlite3_value* v = argv[i + 1];
    switch (sqlite3_value_type(v)) {
      case SQLITE_NULL:
        out += "null";
        break;
      case SQLITE_INTEGER: {
        fmt::format_int text(sqlite3_value_int64(v));
        out.append(text.data(), text.size());
        break;
      }
      case SQLITE_TEXT:
        if (sqlite3_value_subtype(v) == kJsonSubtype) return false;
        AppendJsonString(out, sqlite3_value_text(v), sqlite3_value_bytes(v));
        break;
      default:
        return false;
    }
  }
  out += '}';
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, kJsonSubtype);
  return true;
}

// Answers the call here when it can; false means "forward it".
bool TryFast(FastOp op, sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (op == FastOp::kJson) return TryFastJson(ctx, argc, argv);
  if (op == FastOp::kObject) return TryFastObject(ctx, argc, argv);
  if (argc < 2 || (argc > 2 && op != FastOp::kExtract) || sqlite3_value_type(argv[0]) != SQLITE_TEXT) return false;
  std::optional<uint64_t> index = ArrayPath(argv[1]);
  if (!index) return false;
  std::string_view doc = TextOf(argv[0]);
  auto* fn = static_cast<JsonShim::Function*>(sqlite3_user_data(ctx));
  JsonShim::ScannedArray& scanned = fn->shim->scanned();
  if (!ScanArray(doc, scanned)) return false;
  if (argc > 2) return TryFastExtractMany(ctx, argc, argv, scanned);
  if (*index >= scanned.elements.size()) {
    sqlite3_result_null(ctx);
    return true;
  }
  const auto& [offset, length] = scanned.elements[*index];
  const char kind = scanned.kinds[*index];
  std::string_view t = std::string_view(scanned.doc).substr(offset, length);
  auto text = [&](std::string_view v) {
    sqlite3_result_text(ctx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  };
  if (op == FastOp::kType) {
    static constexpr std::pair<char, const char*> kTypes[] = {{'s', "text"}, {'S', "text"}, {'i', "integer"},
                                                             {'r', "real"}, {'t', "true"}, {'f', "false"},
                                                             {'n', "null"}, {'a', "array"}, {'o', "object"}};
    for (const auto& [k, name] : kTypes) {
      if (k == kind) sqlite3_result_text(ctx, name, -1, SQLITE_STATIC);
    }
    return true;
  }
  if (op == FastOp::kArrow) {  // JSON text of the element, with the JSON subtype
    text(t);
    sqlite3_result_subtype(ctx, kJsonSubtype);
    return true;
  }
  switch (kind) {  // json_extract and ->>: the SQL value
    case 's':
      text(t.substr(1, t.size() - 2));
      return true;
    case 'i': {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc() || end != t.data() + t.size()) return false;  // beyond int64: SQLite makes a real
      sqlite3_result_int64(ctx, v);
      return true;
    }
    case 't':
      sqlite3_result_int(ctx, 1);
      return true;
    case 'f':
      sqlite3_result_int(ctx, 0);
      return true;
    case 'n':
      sqlite3_result_null(ctx);
      return true;
    case 'a':
    case 'o':  // minified already: the text is what SQLite would render
      text(t);
      if (op == FastOp::kExtract) sqlite3_result_subtype(ctx, kJsonSubtype);
      return true;
    default:
      return false;
  }
}

void ForwardScalar(sqlite3_context* ctx, int argc, sqlite3_value** argv);

template <FastOp kOp>
void FastScalar(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (!TryFast(kOp, ctx, argc, argv)) ForwardScalar(ctx, argc, argv);
}

void ForwardScalar(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* fn = static_cast<JsonShim::Function*>(sqlite3_user_data(ctx));
  uint64_t json_args = 0;
  for (int i = 0; i < argc && i < 64; ++i) {
    if (sqlite3_value_subtype(argv[i]) == kJsonSubtype) json_args |= uint64_t{1} << i;
  }
  sqlite3_stmt* stmt = fn->shim->Statement(fn->name, argc, json_args);
  if (!stmt) {
    sqlite3_result_error(ctx, sqlite3_errmsg(fn->shim->helper()), -1);
    return;
  }
  for (int i = 0; i < argc; ++i) sqlite3_bind_value(stmt, i + 1, argv[i]);
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    sqlite3_value* v = sqlite3_column_value(stmt, 0);
    sqlite3_result_value(ctx, v);
    unsigned subtype = sqlite3_value_subtype(v);
    if (subtype) sqlite3_result_subtype(ctx, subtype);
  } else {
    sqlite3_result_error(ctx, sqlite3_errmsg(fn->shim->helper()), -1);
  }
  sqlite3_reset(stmt);
}

// SQLite 3.40 json.c jsonAppendString: a JSON string literal, escaping '"', '\\' and control bytes.
void AppendJsonString(std::string& out, const unsigned char* z, int n) {
  static constexpr char kSpecial[32] = {0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0,   0,   0,   0, 0,   0,   0, 0};
  out += '"';
  for (int i = 0; i < n; ++i) {
    unsigned char c = z[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c <= 0x1f) {
      if (kSpecial[c]) {
        out += '\\';
        out += kSpecial[c];
      } else {
        out += fmt::format("\\u{:04x}", c);
      }
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// SQLite 3.40 json.c jsonAppendValue. Returns false for a blob (JSON cannot hold one).
bool AppendJsonValue(std::string& out, sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      out += "null";
      return true;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: {
      const unsigned char* z = sqlite3_value_text(v);
      out.append(reinterpret_cast<const char*>(z), static_cast<size_t>(sqlite3_value_bytes(v)));
      return true;
    }
    case SQLITE_TEXT: {
      const unsigned char* z = sqlite3_value_text(v);
      int n = sqlite3_value_bytes(v);
      if (sqlite3_value_subtype(v) == kJsonSubtype) {
        out.append(reinterpret_cast<const char*>(z), static_cast<size_t>(n));
      } else {
        AppendJsonString(out, z, n);
      }
      return true;
    }
    default:
      return false;
  }
}

// Aggregate state of json_group_array / json_group_object: the rendered elements, in order (a deque
// so that the window form can drop the oldest one).
struct GroupState {
  bool live;
  alignas(std::deque<std::string>) unsigned char storage[sizeof(std::deque<std::string>)];
  std::deque<std::string>& items() { return *std::launder(reinterpret_cast<std::deque<std::string>*>(storage)); }
};

GroupState* State(sqlite3_context* ctx, bool create) {
  auto* s = static_cast<GroupState*>(sqlite3_aggregate_context(ctx, create ? static_cast<int>(sizeof(GroupState)) : 0));
  if (s && !s->live) {
    if (!create) return nullptr;
    new (s->storage) std::deque<std::string>();
    s->live = true;
  }
  return s;
}

void GroupArrayStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  GroupState* s = State(ctx, true);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  std::string item;
  if (!AppendJsonValue(item, argv[0])) {
    sqlite3_result_error(ctx, "JSON cannot hold BLOB values", -1);
    return;
  }
  s->items().push_back(std::move(item));
}

void GroupObjectStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  GroupState* s = State(ctx, true);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  std::string item;
  AppendJsonString(item, sqlite3_value_text(argv[0]), sqlite3_value_bytes(argv[0]));
  item += ':';
  if (!AppendJsonValue(item, argv[1])) {
    sqlite3_result_error(ctx, "JSON cannot hold BLOB values", -1);
    return;
  }
  s->items().push_back(std::move(item));
}

void GroupInverse(sqlite3_context* ctx, int, sqlite3_value**) {
  GroupState* s = State(ctx, false);
  if (s && !s->items().empty()) s->items().pop_front();
}

void GroupResult(sqlite3_context* ctx, char open, char close, bool final) {
  GroupState* s = State(ctx, false);
  std::string out(1, open);
  if (s) {
    bool first = true;
    for (const auto& item : s->items()) {
      if (!first) out += ',';
      first = false;
      out += item;
    }
  }
  out += close;
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  sqlite3_result_subtype(ctx, kJsonSubtype);
  if (final && s) {
    using Deque = std::deque<std::string>;
    s->items().~Deque();
    s->live = false;
  }
}

void GroupArrayValue(sqlite3_context* ctx) { GroupResult(ctx, '[', ']', false); }
void GroupArrayFinal(sqlite3_context* ctx) { GroupResult(ctx, '[', ']', true); }
void GroupObjectValue(sqlite3_context* ctx) { GroupResult(ctx, '{', '}', false); }
void GroupObjectFinal(sqlite3_context* ctx) { GroupResult(ctx, '{', '}', true); }

}  // namespace

bool JsonShim::Needed() {
  static const bool needed = [] {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      sqlite3_close(db);
      return true;
    }
    bool refused = false;
    if (sqlite3_exec(db, "CREATE VIEW v AS SELECT json('1') AS j", nullptr, nullptr, nullptr) == SQLITE_OK) {
      sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
      sqlite3_stmt* s = nullptr;
      refused = sqlite3_prepare_v2(db, "SELECT j FROM v", -1, &s, nullptr) != SQLITE_OK;
      sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return refused;
  }();
  return needed;
}

std::unique_ptr<JsonShim> JsonShim::Install(sqlite3* db) {
  auto shim = std::make_unique<JsonShim>();
  if (sqlite3_open_v2(":memory:", &shim->helper_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Errorf("cannot open the JSON helper connection: {}", sqlite3_errmsg(shim->helper_));
  }
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  for (const char* name : kScalarFunctions) {
    shim->functions_.push_back(std::make_unique<Function>(Function{shim.get(), name}));
    std::string_view n = name;
    void (*fn)(sqlite3_context*, int, sqlite3_value**) = &ForwardScalar;
    if (n == "json") fn = &FastScalar<FastOp::kJson>;
    if (n == "json_extract") fn = &FastScalar<FastOp::kExtract>;
    if (n == "json_type") fn = &FastScalar<FastOp::kType>;
    if (n == "->") fn = &FastScalar<FastOp::kArrow>;
    if (n == "->>") fn = &FastScalar<FastOp::kArrow2>;
    if (n == "json_object") fn = &FastScalar<FastOp::kObject>;
    if (sqlite3_create_function_v2(db, name, -1, kFlags, shim->functions_.back().get(), fn, nullptr, nullptr,
                                   nullptr) != SQLITE_OK) {
      Errorf("cannot register {}(): {}", name, sqlite3_errmsg(db));
    }
  }
  if (sqlite3_create_window_function(db, "json_group_array", 1, kFlags, nullptr, &GroupArrayStep, &GroupArrayFinal,
                                     &GroupArrayValue, &GroupInverse, nullptr) != SQLITE_OK ||
      sqlite3_create_window_function(db, "json_group_object", 2, kFlags, nullptr, &GroupObjectStep, &GroupObjectFinal,
                                     &GroupObjectValue, &GroupInverse, nullptr) != SQLITE_OK) {
    Errorf("cannot register json_group_array(): {}", sqlite3_errmsg(db));
  }
  return shim;
}

JsonShim::~JsonShim() {
  for (auto& [key, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close(helper_);
}

sqlite3_stmt* JsonShim::Statement(const std::string& name, int argc, uint64_t json_args) {
  std::string key = fmt::format("{}/{}/{:x}", name, argc, json_args);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  auto arg = [&](int i) {
    bool json = i < 64 && (json_args >> i) & 1;
    return json ? fmt::format("json(?{})", i + 1) : fmt::format("?{}", i + 1);
  };
  std::string sql;
  if (name == "->" || name == "->>") {
    sql = argc == 2 ? fmt::format("SELECT {} {} {}", arg(0), name, arg(1)) : "SELECT json_extract()";
  } else {
    sql = "SELECT " + name + "(";
    for (int i = 0; i < argc; ++i) sql += (i ? ", " : "") + arg(i);
    sql += ")";
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(helper_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return nullptr;
  }
  cache_.emplace(std::move(key), stmt);
  return stmt;
}

}  // namespace tracesql::shell
