// Chrome-trace JSON (the format Kineto writes and ui.perfetto.dev / chrome://tracing read): the events
// and the file around them, written as text. Used by `--format trace` (src/render/render.cc) and by
// `tracesql export` (src/export/). Times are integer ns written as µs with three decimals, exactly as
// Kineto writes them: never through a double.
#ifndef TRACESQL_CHROME_TRACE_H_
#define TRACESQL_CHROME_TRACE_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracesql::chrome_trace {

// Integer ns as Kineto writes µs: 1234567 -> "1234.567", -500 -> "-0.500".
std::string Micros(int64_t ns);

// One event. Text fields are raw text (the writer escapes them); pid, tid and args are JSON text.
struct Event {
  std::string ph;                   // "X", "i", "B", "E", "C", "M", "s", "f", ...
  char scope = 0;                   // instants: 't' (thread), 'p', 'g'; 0 writes no "s"
  std::optional<std::string> name;  // absent: no "name" member
  std::optional<std::string> cat;
  std::optional<std::string> cname;  // a colour name chrome://tracing knows ("good", "bad", "grey", ...)
  std::string pid;                   // JSON: 12, "tracesql"; empty: no "pid" member
  std::string tid;
  std::optional<int64_t> ts;  // ns
  std::optional<int64_t> dur;
  std::string extra;  // further members as JSON text without braces: "\"id\": 3, \"bp\": \"e\""
  std::string args;   // a JSON object; empty: no "args" member
};

// Appends e as one JSON object: {"ph": "X", "name": ..., "cat": ..., "pid": ..., "tid": ..., "ts": ...,
// "dur": ..., <extra>, "args": {...}} (members absent when unset).
void AppendEvent(std::string& out, const Event& e);

// Writes {"traceEvents": [\n ev,\n ev\n], <header members>}\n into out, calling flush (when given)
// whenever out holds 64 KB or more, so a large trace streams.
class Writer {
 public:
  using Flush = std::function<void(std::string&)>;
  Writer(std::string& out, const Flush* flush);
  void Add(const Event& e);
  // Ends the array; header_members (JSON text of object members, e.g. "\"baseTimeNanoseconds\": 5")
  // follow it in the root object.
  void Finish(std::string_view header_members = {});
  int64_t events() const { return events_; }

 private:
  std::string& out_;
  const Flush* flush_;
  int64_t events_ = 0;
};

// The rows of a query result as events (--format trace, the export's overlay): one per row, from the
// columns ts and dur (integer ns, required; a NULL dur makes an instant), name (else "row N"), cat,
// cname (a colour), args (a JSON object); every other column but track goes into args. The caller
// places the event (pid, tid) from track().
class ResultEvents {
 public:
  // Throws tracesql::Error "<what> needs a ts column (integer ns); the result has: a, b" when ts or dur
  // is missing.
  ResultEvents(sqlite3_stmt* stmt, std::string what);
  ~ResultEvents();
  ResultEvents(const ResultEvents&) = delete;
  ResultEvents& operator=(const ResultEvents&) = delete;
  // Steps the statement; false when done. Throws tracesql::Error on a SQL error or a bad value
  // ("<what>: row 3: ts is NULL, not integer nanoseconds").
  bool Next(Event& e);
  // The current row's track column as JSON (an integer as is, text as a JSON string); nullopt when the
  // result has no track column or it is NULL.
  std::optional<std::string> track() const;
  int64_t rows() const { return rows_; }

 private:
  sqlite3_stmt* stmt_;
  std::string what_;
  std::vector<std::string> names_;
  int ts_ = -1, dur_ = -1, name_ = -1, cat_ = -1, track_ = -1, args_ = -1, cname_ = -1;
  sqlite3_stmt* check_ = nullptr;  // validates and minifies an args column
  int64_t rows_ = 0;
};

}  // namespace tracesql::chrome_trace

#endif  // TRACESQL_CHROME_TRACE_H_
