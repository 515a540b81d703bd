#include "tracesql/chrome_trace.h"

#include <fmt/format.h>

#include "tracesql/error.h"
#include "tracesql/render.h"

namespace tracesql::chrome_trace {

std::string Micros(int64_t ns) {
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", mag / 1000, mag % 1000);
}

void AppendEvent(std::string& out, const Event& e) {
  out += "{\"ph\": ";
  out += JsonString(e.ph);
  if (e.scope) {
    out += ", \"s\": \"";
    out += e.scope;
    out += '"';
  }
  if (e.name) out += ", \"name\": " + JsonString(*e.name);
  if (e.cat) out += ", \"cat\": " + JsonString(*e.cat);
  if (e.cname) out += ", \"cname\": " + JsonString(*e.cname);
  if (!e.pid.empty()) out += ", \"pid\": " + e.pid;
  if (!e.tid.empty()) out += ", \"tid\": " + e.tid;
  if (e.ts) out += ", \"ts\": " + Micros(*e.ts);
  if (e.dur) out += ", \"dur\": " + Micros(*e.dur);
  if (!e.extra.empty()) out += ", " + e.extra;
  if (!e.args.empty()) out += ", \"args\": " + e.args;
  out += '}';
}

Writer::Writer(std::string& out, const Flush* flush) : out_(out), flush_(flush) { out_ += "{\"traceEvents\": ["; }

void Writer::Add(const Event& e) {
  out_ += events_++ ? ",\n" : "\n";
  AppendEvent(out_, e);
  if (flush_ && out_.size() >= (64 << 10)) (*flush_)(out_);
}

void Writer::Finish(std::string_view header_members) {
  out_ += events_ ? "\n]" : "]";
  if (!header_members.empty()) {
    out_ += ", ";
    out_ += header_members;
  }
  out_ += "}\n";
}

ResultEvents::ResultEvents(sqlite3_stmt* stmt, std::string what) : stmt_(stmt), what_(std::move(what)) {
  int n = sqlite3_column_count(stmt);
  std::string have;
  for (int i = 0; i < n; ++i) {
    const char* c = sqlite3_column_name(stmt, i);
    names_.emplace_back(c ? c : "");
    have += (have.empty() ? "" : ", ") + names_.back();
    int* slot = names_.back() == "ts"      ? &ts_
                : names_.back() == "dur"   ? &dur_
                : names_.back() == "name"  ? &name_
                : names_.back() == "cat"   ? &cat_
                : names_.back() == "track" ? &track_
                : names_.back() == "args"  ? &args_
                : names_.back() == "cname" ? &cname_
                                           : nullptr;
    if (slot && *slot < 0) *slot = i;
  }
  if (ts_ < 0 || dur_ < 0) {
    Errorf("{} needs a {} column (integer ns); the result has: {}", what_, ts_ < 0 ? "ts" : "dur",
           have.empty() ? "no columns" : have);
  }
  if (args_ >= 0) {
    sqlite3* db = sqlite3_db_handle(stmt);
    if (sqlite3_prepare_v2(db, "SELECT json(?1) WHERE json_valid(?1) AND json_type(?1) = 'object'", -1, &check_,
                           nullptr) != SQLITE_OK) {
      Errorf("{}", sqlite3_errmsg(db));
    }
  }
}

ResultEvents::~ResultEvents() { sqlite3_finalize(check_); }

namespace {

std::optional<std::string> Text(sqlite3_stmt* s, int col) {
  if (col < 0 || sqlite3_column_type(s, col) == SQLITE_NULL) return std::nullopt;
  const unsigned char* t = sqlite3_column_text(s, col);
  return std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, col)));
}

}  // namespace

bool ResultEvents::Next(Event& e) {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) return false;
  if (rc != SQLITE_ROW) Errorf("{}", sqlite3_errmsg(sqlite3_db_handle(stmt_)));
  ++rows_;
  auto integer = [&](int col, const char* what) {
    if (sqlite3_column_type(stmt_, col) != SQLITE_INTEGER) {
      auto t = Text(stmt_, col);
      Errorf("{}: row {}: {} is {}, not integer nanoseconds", what_, rows_, what, t ? "'" + *t + "'" : "NULL");
    }
    return sqlite3_column_int64(stmt_, col);
  };
  e = Event{};
  e.ts = integer(ts_, "ts");
  const bool instant = sqlite3_column_type(stmt_, dur_) == SQLITE_NULL;
  if (instant) {
    e.ph = "i";
    e.scope = 't';
  } else {
    e.ph = "X";
    e.dur = integer(dur_, "dur");
    if (*e.dur < 0) Errorf("{}: row {}: dur is negative ({})", what_, rows_, *e.dur);
  }
  e.name = Text(stmt_, name_);
  if (!e.name) e.name = fmt::format("row {}", rows_);
  e.cat = Text(stmt_, cat_);
  e.cname = Text(stmt_, cname_);
  std::string extra;
  for (int i = 0; i < static_cast<int>(names_.size()); ++i) {
    if (i == ts_ || i == dur_ || i == name_ || i == cat_ || i == track_ || i == args_ || i == cname_) continue;
    extra += (extra.empty() ? "" : ", ") + JsonString(names_[static_cast<size_t>(i)]) + ": " + ColumnJson(stmt_, i);
  }
  std::string object = "{}";
  if (auto a = Text(stmt_, args_)) {
    sqlite3_reset(check_);
    sqlite3_bind_text(check_, 1, a->data(), static_cast<int>(a->size()), SQLITE_TRANSIENT);
    if (sqlite3_step(check_) != SQLITE_ROW) Errorf("{}: row {}: args is not a JSON object", what_, rows_);
    object = reinterpret_cast<const char*>(sqlite3_column_text(check_, 0));
  }
  if (!extra.empty()) object = object == "{}" ? "{" + extra + "}" : object.substr(0, object.size() - 1) + ", " + extra + "}";
  e.args = std::move(object);
  return true;
}

std::optional<std::string> ResultEvents::track() const {
  if (track_ < 0) return std::nullopt;
  switch (sqlite3_column_type(stmt_, track_)) {
    case SQLITE_NULL: return std::nullopt;
    case SQLITE_INTEGER: return std::to_string(sqlite3_column_int64(stmt_, track_));
    default: return JsonString(*Text(stmt_, track_));
  }
}

}  // namespace tracesql::chrome_trace
