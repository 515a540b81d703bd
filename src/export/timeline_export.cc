#include "tracesql/timeline_export.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "tracesql/advise.h"
#include "tracesql/chrome_trace.h"
#include "tracesql/critical_path.h"
#include "tracesql/error.h"
#include "tracesql/queries.h"
#include "tracesql/render.h"

namespace tracesql::timeline {
namespace {

using chrome_trace::Event;

// The advise findings (temp.advise_findings, left by Advise) as instants on the track 'advisor
// findings', most time lost first. A finding is placed at the first time its evidence names
// (' ts N', '(ts N', 'first_ts N', as the rules write them) when that lies in the trace, else at the
// trace's start; args say which. The numbers are the rules'; this only places them.
constexpr const char* kFindingsSql = R"sql(
WITH f AS (
  SELECT a.*,
         (SELECT min(p) FROM (SELECT instr(a.evidence, ' ts ') AS p UNION ALL SELECT instr(a.evidence, '(ts ')
                              UNION ALL SELECT instr(a.evidence, '_ts ')) WHERE p > 0) AS at
  FROM temp.advise_findings AS a
  WHERE a.trace_id = ?1 OR a.trace_id IS NULL
),
placed AS (
  SELECT f.*, CASE WHEN substr(f.evidence, f.at + 4, 1) GLOB '[0-9]'
                   THEN CAST(substr(f.evidence, f.at + 4) AS INTEGER) END AS mark
  FROM f
)
SELECT 'advisor findings' AS track,
       CASE WHEN p.mark BETWEEN t.start_ts AND t.end_ts THEN p.mark ELSE t.start_ts END AS ts,
       NULL AS dur, p.rule AS name, 'finding' AS cat,
       CASE p.severity WHEN 'high' THEN 'terrible' WHEN 'medium' THEN 'bad' ELSE 'good' END AS cname,
       json_object('severity', p.severity, 'time_lost_ns', p.time_lost_ns, 'title', p.title,
                   'evidence', p.evidence, 'advice', p.advice,
                   'placed_at', CASE WHEN p.mark BETWEEN t.start_ts AND t.end_ts THEN 'evidence'
                                     ELSE 'trace start' END) AS args
FROM placed AS p JOIN traces AS t ON t.id = ?1
ORDER BY p.time_lost_ns DESC, p.rule
)sql";

std::string Text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(s, col)));
}

std::optional<std::string> OptText(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) == SQLITE_NULL) return std::nullopt;
  return Text(s, col);
}

// A pid or tid column as JSON: integers as numbers, text as a string; empty for NULL (no member).
std::string IdJson(sqlite3_stmt* s, int col) {
  switch (sqlite3_column_type(s, col)) {
    case SQLITE_NULL: return "";
    case SQLITE_INTEGER: return std::to_string(sqlite3_column_int64(s, col));
    default: return JsonString(Text(s, col));
  }
}

std::optional<int64_t> OptInt(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(s, col);
}

// A bundled query (never a user's of the same name: the export's tracks are tracesql's own).
Stmt BundledQuery(Db& db, const char* name, int64_t trace_id) {
  auto q = FindQuery(name, {});
  if (!q) Errorf("the bundled query {} is missing", name);
  Stmt s = db.Prepare(q->text);
  int i = sqlite3_bind_parameter_index(s.get(), ":trace_id");
  if (i > 0) s.BindInt(i, trace_id);
  return s;
}

int64_t ResolveTrace(Db& db, const std::optional<int64_t>& trace_id) {
  if (trace_id) {
    Stmt s = db.Prepare("SELECT id FROM traces WHERE id = ?1");
    s.BindInt(1, *trace_id);
    if (!s.Step()) Errorf("no trace {} (see the traces table)", *trace_id);
    return *trace_id;
  }
  int64_t n = db.QueryInt("SELECT count(*) FROM traces");
  if (n == 0) Errorf("the database holds no trace");
  if (n > 1) Errorf("the database holds {} traces: choose one with --trace-id (traces.id)", n);
  return db.QueryInt("SELECT id FROM traces");
}

// The critical path of each step window of the trace (of the whole trace when it has no steps),
// written to critical_path as `tracesql critical-path --step N` writes it, unless the trace already
// has rows there (the user's own windows are kept and drawn).
void EnsureCriticalPath(Db& db, int64_t trace_id, std::vector<std::string>& notes) {
  bool has_table =
      db.QueryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'critical_path'") > 0;
  if (has_table) {
    Stmt s = db.Prepare("SELECT count(DISTINCT window) FROM critical_path WHERE trace_id = ?1");
    s.BindInt(1, trace_id);
    s.Step();
    if (int64_t n = s.ColumnInt(0); n > 0) {
      notes.push_back(fmt::format("critical path: the {} window{} already in critical_path", n, n == 1 ? "" : "s"));
      return;
    }
  }
  std::vector<critical_path::WindowRequest> requests;
  {
    Stmt s = db.Prepare("SELECT step FROM step_windows WHERE trace_id = ?1 AND w_end > w_ts ORDER BY step");
    s.BindInt(1, trace_id);
    while (s.Step()) requests.push_back({trace_id, s.ColumnInt(0), std::nullopt, std::nullopt});
  }
  if (requests.empty()) requests.push_back({trace_id, std::nullopt, std::nullopt, std::nullopt});
  size_t written = 0;
  try {
    for (const auto& r : requests) {
      critical_path::Window w = critical_path::ResolveWindow(db, r);
      critical_path::Write(db, w, critical_path::Compute(db, w));
      ++written;
    }
  } catch (const Error& e) {
    notes.push_back(fmt::format("critical path not written: {}", e.what()));
    return;
  }
  notes.push_back(requests.front().step
                      ? fmt::format("critical path computed for {} step{} (critical_path)", written, written == 1 ? "" : "s")
                      : std::string("critical path computed for the whole trace (critical_path)"));
}

// The overlay's tracks: each a thread of the overlay process, numbered in the order they first
// appear, named by thread_name metadata.
class OverlayTracks {
 public:
  OverlayTracks(chrome_trace::Writer& w, int64_t pid) : writer_(w), pid_(std::to_string(pid)) {}
  const std::string& pid() const { return pid_; }
  // The tid of the track named name, writing its metadata when it is new.
  std::string Tid(const std::string& name) {
    auto [it, fresh] = tids_.emplace(name, std::to_string(tids_.size() + 1));
    if (fresh) {
      Event m;
      m.ph = "M";
      m.pid = pid_;
      m.tid = it->second;
      m.name = "thread_name";
      m.args = "{\"name\": " + JsonString(name) + "}";
      writer_.Add(m);
      m.name = "thread_sort_index";
      m.args = "{\"sort_index\": " + it->second + "}";
      writer_.Add(m);
    }
    return it->second;
  }

 private:
  chrome_trace::Writer& writer_;
  std::string pid_;
  std::map<std::string, std::string> tids_;
};

// Rows of a query in the shape --format trace reads, as events on the overlay's tracks; times
// shifted by -base so they read as the trace's own (relative to baseTimeNanoseconds).
int64_t WriteOverlayRows(sqlite3_stmt* stmt, const char* what, int64_t base, OverlayTracks& tracks,
                         chrome_trace::Writer& w) {
  chrome_trace::ResultEvents rows(stmt, what);
  Event e;
  while (rows.Next(e)) {
    auto track = rows.track();
    // track() is JSON: a string's text is what names the track.
    std::string name = track ? (track->front() == '"' ? track->substr(1, track->size() - 2) : *track) : "result";
    e.pid = tracks.pid();
    e.tid = tracks.Tid(name);
    *e.ts -= base;
    w.Add(e);
  }
  return rows.rows();
}

// One metadata event ("M") of a track: {"name": ..., "args": {"KEY": VALUE_JSON}}.
void AddMetadata(chrome_trace::Writer& w, const std::string& pid, const std::string& tid, std::string name,
                 std::string_view key, const std::string& value_json) {
  Event m;
  m.ph = "M";
  m.pid = pid;
  m.tid = tid;
  m.name = std::move(name);
  m.args = fmt::format("{{\"{}\": {}}}", key, value_json);
  w.Add(m);
}

// The trace's own tracks: process and thread metadata as Kineto writes it.
void WriteTrackMetadata(Db& db, int64_t trace_id, chrome_trace::Writer& w) {
  Stmt p = db.Prepare("SELECT pid, name, labels, sort_index FROM processes WHERE trace_id = ?1 ORDER BY id");
  p.BindInt(1, trace_id);
  while (p.Step()) {
    const std::string pid = IdJson(p.get(), 0);
    if (auto name = OptText(p.get(), 1)) {
      AddMetadata(w, pid, "0", "process_name", "name", JsonString(*name));
    }
    if (auto labels = OptText(p.get(), 2)) {
      AddMetadata(w, pid, "0", "process_labels", "labels", JsonString(*labels));
    }
    if (auto sort = OptInt(p.get(), 3)) {
      AddMetadata(w, pid, "0", "process_sort_index", "sort_index", std::to_string(*sort));
    }
  }
  Stmt t = db.Prepare("SELECT pid, tid, name, sort_index FROM threads WHERE trace_id = ?1 ORDER BY id");
  t.BindInt(1, trace_id);
  while (t.Step()) {
    const std::string pid = IdJson(t.get(), 0);
    const std::string tid = IdJson(t.get(), 1);
    if (auto name = OptText(t.get(), 2)) {
      AddMetadata(w, pid, tid, "thread_name", "name", JsonString(*name));
    }
    if (auto sort = OptInt(t.get(), 3)) {
      AddMetadata(w, pid, tid, "thread_sort_index", "sort_index", std::to_string(*sort));
    }
  }
}

// The trace's events, from events and event_args. In time order, a slice before the slices it
// encloses (longest first, then by depth), so that importing the file nests them as they were: at
// equal ts and dur the importer takes file order. A B/E pair is written as B with its args and the E
// right after it.
int64_t WriteTraceEvents(Db& db, int64_t trace_id, int64_t base, chrome_trace::Writer& w) {
  Stmt s = db.Prepare(
      "SELECT e.ph, e.name, e.cat, e.pid, e.tid, e.ts, e.dur,"
      "       (SELECT a.args FROM event_args AS a WHERE a.event_id = e.id)"
      " FROM events AS e WHERE e.trace_id = ?1"
      " ORDER BY e.ts, e.dur DESC, e.depth, e.id");
  s.BindInt(1, trace_id);
  int64_t n = 0;
  sqlite3_stmt* r = s.get();
  while (s.Step()) {
    Event e;
    e.ph = Text(r, 0);
    e.name = OptText(r, 1);
    e.cat = OptText(r, 2);
    e.pid = IdJson(r, 3);
    e.tid = IdJson(r, 4);
    e.ts = OptInt(r, 5);
    if (e.ts) *e.ts -= base;
    std::optional<int64_t> dur = OptInt(r, 6);
    if (auto args = OptText(r, 7)) e.args = std::move(*args);
    const bool pair = e.ph == "B" && dur && e.ts;
    if (!pair) e.dur = dur;
    w.Add(e);
    if (pair) {
      Event end;
      end.ph = "E";
      end.pid = e.pid;
      end.tid = e.tid;
      end.ts = *e.ts + *dur;
      w.Add(end);
    }
    ++n;
  }
  return n;
}

// The trace's flows, one start per (cat, id, start point) and one end per row. An end bound to a
// slice that starts at or before it was bound to the slice enclosing it ("bp": "e", as Kineto writes
// every end); one bound to a later slice, to the next slice to start (no "bp").
int64_t WriteTraceFlows(Db& db, int64_t trace_id, int64_t base, chrome_trace::Writer& w) {
  Stmt s = db.Prepare(
      "SELECT f.cat, f.name, f.flow_id, f.src_ts, st.pid, st.tid, f.dst_ts, dt.pid, dt.tid, d.ts"
      " FROM flows AS f"
      " LEFT JOIN threads AS st ON st.id = f.src_thread_id"
      " LEFT JOIN threads AS dt ON dt.id = f.dst_thread_id"
      " LEFT JOIN events AS d ON d.id = f.dst_event_id"
      " WHERE f.trace_id = ?1 ORDER BY f.id");
  s.BindInt(1, trace_id);
  sqlite3_stmt* r = s.get();
  std::set<std::tuple<std::string, std::string, std::string, int64_t, std::string, std::string>> starts;
  int64_t n = 0;
  while (s.Step()) {
    Event e;
    e.cat = OptText(r, 0);
    e.name = OptText(r, 1);
    std::string id = IdJson(r, 2);
    e.extra = "\"id\": " + (id.empty() ? std::string("null") : id);
    if (auto src = OptInt(r, 3)) {
      std::string pid = IdJson(r, 4), tid = IdJson(r, 5);
      if (starts.emplace(e.cat.value_or(""), e.name.value_or(""), id, *src, pid, tid).second) {
        Event st = e;
        st.ph = "s";
        st.pid = pid;
        st.tid = tid;
        st.ts = *src - base;
        w.Add(st);
        ++n;
      }
    }
    if (auto dst = OptInt(r, 6)) {
      e.ph = "f";
      e.pid = IdJson(r, 7);
      e.tid = IdJson(r, 8);
      e.ts = *dst - base;
      auto bound = OptInt(r, 9);
      if (!bound || *bound <= *dst) e.extra += ", \"bp\": \"e\"";
      w.Add(e);
    }
  }
  return n;
}

// The arrows of timeline_flows: an end on an event is placed at the event's start on its thread,
// an end on an overlay track at the slice there.
int64_t WriteOverlayFlows(Db& db, int64_t trace_id, int64_t base, OverlayTracks& tracks, chrome_trace::Writer& w) {
  Stmt q = BundledQuery(db, "timeline_flows", trace_id);
  Stmt where = db.Prepare("SELECT pid, tid FROM events WHERE id = ?1");
  auto place = [&](Event& e, sqlite3_stmt* r, int event_col, int track_col, int ts_col) {
    e.ts = sqlite3_column_int64(r, ts_col) - base;
    if (sqlite3_column_type(r, event_col) != SQLITE_NULL) {
      where.Reset();
      where.BindInt(1, sqlite3_column_int64(r, event_col));
      if (!where.Step()) return false;
      e.pid = IdJson(where.get(), 0);
      e.tid = IdJson(where.get(), 1);
      return true;
    }
    if (sqlite3_column_type(r, track_col) == SQLITE_NULL) return false;
    e.pid = tracks.pid();
    e.tid = tracks.Tid(Text(r, track_col));
    return true;
  };
  int64_t n = 0;
  sqlite3_stmt* r = q.get();
  // Columns: kind, src_event_id, src_ts, dst_event_id, dst_track, dst_ts.
  while (q.Step()) {
    Event s, f;
    s.ph = "s";
    f.ph = "f";
    s.cat = f.cat = "tracesql";
    s.name = f.name = Text(r, 0);
    s.extra = f.extra = fmt::format("\"id\": {}", n + 1);
    f.extra += ", \"bp\": \"e\"";
    if (sqlite3_column_type(r, 2) == SQLITE_NULL || sqlite3_column_type(r, 5) == SQLITE_NULL) continue;
    if (!place(s, r, 1, -1, 2) || !place(f, r, 3, 4, 5)) continue;
    w.Add(s);
    w.Add(f);
    ++n;
  }
  return n;
}

}  // namespace

int64_t OverlayPid(Db& db, int64_t trace_id) {
  Stmt s = db.Prepare(
      "SELECT coalesce(max(pid), 0) + 1 FROM processes WHERE trace_id = ?1 AND typeof(pid) = 'integer'");
  s.BindInt(1, trace_id);
  s.Step();
  return s.ColumnInt(0);
}

ExportSummary Export(Db& db, const ExportOptions& o, const std::function<void(std::string&)>& sink) {
  ExportSummary sum;
  sum.trace_id = ResolveTrace(db, o.trace_id);
  if (o.compute_critical_path) EnsureCriticalPath(db, sum.trace_id, sum.notes);
  bool findings = o.findings;
  if (findings) {
    AdviseOptions ao;
    ao.rule_dirs = o.rule_dirs;
    try {
      AdviseResult r = Advise(db.get(), ao);
      size_t mine = 0;
      for (const auto& f : r.findings) mine += !f.trace_id || *f.trace_id == sum.trace_id;
      sum.notes.push_back(fmt::format("advisor: {} finding{}", mine, mine == 1 ? "" : "s"));
    } catch (const Error& e) {
      findings = false;
      sum.notes.push_back(fmt::format("advisor findings left out: {}", e.what()));
    }
  }
  int64_t base = 0;
  std::string metadata;
  {
    Stmt s = db.Prepare("SELECT coalesce(base_time_ns, 0), metadata FROM traces WHERE id = ?1");
    s.BindInt(1, sum.trace_id);
    s.Step();
    base = s.ColumnInt(0);
    metadata = s.ColumnText(1);
  }
  // The header: the trace's own top-level keys with --with-trace (so it imports back the same),
  // else only baseTimeNanoseconds, which the times are relative to.
  std::string header;
  if (o.with_trace) {
    if (metadata.size() > 2 && metadata.front() == '{' && metadata.back() == '}') {
      header = metadata.substr(1, metadata.size() - 2);
    }
  } else if (base != 0) {
    header = fmt::format("\"baseTimeNanoseconds\": {}", base);
  }
  std::string buf;
  chrome_trace::Writer::Flush flush = [&](std::string& text) {
    sink(text);
    text.clear();
  };
  chrome_trace::Writer w(buf, &flush);
  sum.overlay_pid = OverlayPid(db, sum.trace_id);
  {
    Event m;
    m.ph = "M";
    m.pid = std::to_string(sum.overlay_pid);
    m.tid = "0";
    m.name = "process_name";
    m.args = "{\"name\": \"tracesql\"}";
    w.Add(m);
    m.name = "process_labels";
    m.args = "{\"labels\": \"overlay\"}";
    w.Add(m);
    m.name = "process_sort_index";
    m.args = "{\"sort_index\": -1}";
    w.Add(m);
  }
  OverlayTracks tracks(w, sum.overlay_pid);
  if (findings) {
    Stmt s = db.Prepare(kFindingsSql);
    s.BindInt(1, sum.trace_id);
    sum.overlay_events += WriteOverlayRows(s.get(), "export (findings)", base, tracks, w);
  }
  {
    Stmt s = BundledQuery(db, "timeline_overlay", sum.trace_id);
    sum.overlay_events += WriteOverlayRows(s.get(), "timeline_overlay", base, tracks, w);
  }
  if (o.with_trace) {
    WriteTrackMetadata(db, sum.trace_id, w);
    sum.trace_events = WriteTraceEvents(db, sum.trace_id, base, w);
    sum.flows += WriteTraceFlows(db, sum.trace_id, base, w);
    sum.flows += WriteOverlayFlows(db, sum.trace_id, base, tracks, w);
  }
  w.Finish(header);
  sink(buf);
  return sum;
}

}  // namespace tracesql::timeline
