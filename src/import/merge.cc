// `tracesql merge PARTS... -o job.db`: one database from tracesql databases (the partitions of a
// job, or any databases of this schema version), equal to importing their traces together.
//
// The inputs are attached one at a time. Their rows are written as b-tree pages, as the importer
// writes its own (btree::PagedTable: each table's rows in the order of the merged rowids, read
// from the input's file by btree::TableReader or through SQLite; indexes whose first column grows
// from input to input filled input by input), and the pages placed into the database at the end
// (btree::PlaceTrees); the rows that come last in an import (those the views' SQL computed) and
// the small interned tables are then inserted by SQL. Every id is moved to what the one import
// gives:
// - ids that continue across traces (traces, events, threads, processes, flows) by the rows of the
//   inputs before (an input's ids are 1..n, consecutive per trace);
// - interned ids shared by the traces (stacks, arg_keys shapes, input_shapes, gpu_op_names) by
//   value, in the input's id order: an input's ids follow the order its traces first met the
//   values, so interning them in that order gives the ids the one import gives (the argument of
//   src/import/remap.cc, here over tables instead of a built trace);
// - flows, which the importer orders by interned (cat, flow id) string ids, are put back in the
//   order those give (MergeFlowOrder).
// The columns that sum over the traces (stacks.cpu_self_ns and .merged_cpu_self_ns,
// gpu_op_names.ops and .timed) and stacks.merged_id are computed again over the whole job;
// import_stats gets the duplicate_rank rows of traces of one rank. Every table of the schema has a rule below (kRules); a table
// without one is an error, so a new table cannot be dropped silently.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "btree/btree_writer.h"
#include "import/stats.h"
#include "tracesql/db.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/partitions.h"

namespace tracesql {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// What a column holds, and so how its value moves.
enum class Id {
  kTrace,       // traces.id: + the traces of the inputs before
  kEvent,       // events.id: + their events
  kThread,      // threads.id
  kProcess,     // processes.id
  kFlow,        // flows.id: reordered (MergeFlowOrder)
  kStack,       // stacks.id: interned by value
  kArgShape,    // arg_keys.shape_id: interned by value
  kInputShape,  // input_shapes.id: interned by value
  kGpuName,     // gpu_op_names.id: interned by value
  kGpuNameList  // gpu_segments.name_ids: a comma-separated ascending list of gpu_op_names ids
};
constexpr int kMapped = static_cast<int>(Id::kFlow);  // kFlow and after: looked up in a map

struct ColumnRule {
  const char* column;
  Id id;
};
struct TableRule {
  const char* table;
  std::vector<ColumnRule> columns;  // the columns holding ids; the others are copied as they are
};

// The per-trace tables: every input's rows, ids moved. Tables of the schema not here are handled
// on their own (kOwnTables) or are an error.
const std::vector<TableRule> kRules = {
    {"traces", {{"id", Id::kTrace}}},
    {"devices", {{"trace_id", Id::kTrace}}},
    {"processes", {{"id", Id::kProcess}, {"trace_id", Id::kTrace}}},
    {"threads", {{"id", Id::kThread}, {"trace_id", Id::kTrace}, {"process_id", Id::kProcess}}},
    {"events",
     {{"id", Id::kEvent}, {"trace_id", Id::kTrace}, {"thread_id", Id::kThread}, {"parent_id", Id::kEvent},
      {"stack_id", Id::kStack}, {"cpu_op_id", Id::kEvent}, {"top_cpu_op_id", Id::kEvent},
      {"arg_shape_id", Id::kArgShape}, {"input_shape_id", Id::kInputShape}}},
    {"memory_args", {{"event_id", Id::kEvent}}},
    {"event_ranges", {{"trace_id", Id::kTrace}, {"first_id", Id::kEvent}, {"last_id", Id::kEvent}}},
    {"flows",
     {{"id", Id::kFlow}, {"trace_id", Id::kTrace}, {"src_event_id", Id::kEvent}, {"dst_event_id", Id::kEvent},
      {"src_thread_id", Id::kThread}, {"dst_thread_id", Id::kThread}}},
    {"cpu_op_groups",
     {{"trace_id", Id::kTrace}, {"input_shape_id", Id::kInputShape}, {"parent_shape_id", Id::kInputShape},
      {"first_event_id", Id::kEvent}}},
    {"critical_path", {{"trace_id", Id::kTrace}, {"event_id", Id::kEvent}}},
    {"memory_devices", {{"trace_id", Id::kTrace}, {"peak_event_id", Id::kEvent}}},
    {"memory_levels", {{"id", Id::kEvent}, {"trace_id", Id::kTrace}, {"cpu_op_id", Id::kEvent}}},
    {"op_kernel_links",
     {{"trace_id", Id::kTrace}, {"gpu_event_id", Id::kEvent}, {"launch_event_id", Id::kEvent},
      {"launch_thread_id", Id::kThread}, {"op_event_id", Id::kEvent}, {"top_op_event_id", Id::kEvent},
      {"name_id", Id::kGpuName}, {"launch_name_id", Id::kEvent}}},
    {"op_gpu_totals",
     {{"op_event_id", Id::kEvent}, {"trace_id", Id::kTrace}, {"input_shape_id", Id::kInputShape},
      {"top_op_event_id", Id::kEvent}, {"name_id", Id::kGpuName}}},
    {"gpu_segments", {{"trace_id", Id::kTrace}, {"name_ids", Id::kGpuNameList}}},
    {"stream_queue", {{"trace_id", Id::kTrace}}},
    {"steps", {{"trace_id", Id::kTrace}, {"event_id", Id::kEvent}, {"thread_id", Id::kThread}}},
    {"idle_gaps",
     {{"trace_id", Id::kTrace}, {"prev_event_id", Id::kEvent}, {"next_event_id", Id::kEvent},
      {"next_launch_event_id", Id::kEvent}, {"host_event_id", Id::kEvent}}},
    {"stream_idle_gaps", {{"trace_id", Id::kTrace}, {"prev_event_id", Id::kEvent}, {"next_event_id", Id::kEvent}}},
    {"autograd_pairs", {{"trace_id", Id::kTrace}, {"fwd_event_id", Id::kEvent}, {"bwd_event_id", Id::kEvent}}},
    {"matrix_ops", {{"op_event_id", Id::kEvent}, {"trace_id", Id::kTrace}, {"input_shape_id", Id::kInputShape}}},
    {"recomputed_ops", {{"op_event_id", Id::kEvent}, {"trace_id", Id::kTrace}, {"backward_event_id", Id::kEvent}}},
};

// Tables merged by their own code: interned ones (written once, at the end), import_stats (the
// duplicate_rank rows), the metadata, and the constant tables the schema fills.
const std::set<std::string, std::less<>> kOwnTables = {
    "stacks",       "arg_keys",   "input_shapes",       "gpu_op_names", "short_names",
    "import_stats", "tracesql_meta", "kernel_class_rules", "device_peaks", "op_models", "dtype_sizes"};

// The traces of the input attached as p that the importer left to the views' SQL (import_stats
// views_by_sql: their times could overflow a sum), as a condition on a row r.
const std::string kViewsBySqlTrace = "r.trace_id IN (SELECT trace_id FROM p.import_stats WHERE name = 'views_by_sql')";

// The computed tables kept in rowid order, and which of their rows the importer leaves to the
// view's SQL (a condition on a row r of the input attached as p), rows that come after every
// input's others: every table's of a views_by_sql trace but memory_devices', memory_devices' of a
// trace with a [memory] event without an integer device or total, autograd_pairs' of a trace
// without fwdbwd flows (link 'seq').
const std::vector<std::pair<std::string, std::string>> kLeftToSql = {
    {"memory_devices",
     "r.trace_id IN (SELECT trace_id FROM p.memory_devices WHERE without_total <> 0 OR typeof(device_type) <> "
     "'integer' OR typeof(device_id) <> 'integer')"},
    {"steps", kViewsBySqlTrace},
    {"idle_gaps", kViewsBySqlTrace},
    {"stream_idle_gaps", kViewsBySqlTrace},
    {"autograd_pairs", "r.link = 'seq' OR " + kViewsBySqlTrace},
};

// The computed tables whose rows of a trace the importer may leave to their SQL (import_stats
// views_by_sql: values the SQL computes may be REAL) and whose order is their key's, not the order
// the rows were added in: the rows of such traces are copied by SQL after the pages are placed.
const std::set<std::string, std::less<>> kKeyedComputed = {"op_kernel_links", "op_gpu_totals", "memory_levels",
                                                           "gpu_segments", "stream_queue"};

// The condition (on a row r of the attached input p) of the rows of a table copied after the
// others, by SQL; empty: none. sql_traces: the input has traces left to the views' SQL.
std::string LaterRows(std::string_view table, bool sql_traces) {
  for (const auto& [t, cond] : kLeftToSql) {
    if (t == table) return cond;
  }
  if (sql_traces && kKeyedComputed.count(table)) return kViewsBySqlTrace;
  return "";
}

const TableRule* RuleFor(std::string_view table) {
  for (const TableRule& r : kRules) {
    if (r.table == table) return &r;
  }
  return nullptr;
}

// A value as a map key: NULL apart from every text.
std::string Key(const Stmt& s, int col) {
  return s.ColumnIsNull(col) ? std::string(1, '\0') : "t" + s.ColumnText(col);
}
std::optional<std::string> OptText(const Stmt& s, int col) {
  if (s.ColumnIsNull(col)) return std::nullopt;
  return s.ColumnText(col);
}

// Values interned by key in first-seen order: ids 1, 2, ...
template <typename Row>
struct InternTable {
  std::unordered_map<std::string, int64_t> ids;
  std::vector<Row> rows;  // rows[id - 1]
  // The id of key, adding row when new; new is set when it was.
  int64_t Intern(const std::string& key, const Row& row, bool* added = nullptr) {
    auto [it, fresh] = ids.emplace(key, static_cast<int64_t>(rows.size()) + 1);
    if (fresh) rows.push_back(row);
    if (added) *added = fresh;
    return it->second;
  }
};

struct StackRow {
  int64_t parent = 0, depth = 0;
  std::optional<std::string> name, cat;
  int64_t cpu_total = 0;
  bool cpu_slices = false;
};
struct ShapeRow {
  std::vector<std::pair<std::string, std::optional<std::string>>> keys;  // (key, path)
};
struct InputShapeRow {
  std::optional<std::string> dims, types;
};
struct GpuNameRow {
  std::optional<std::string> name;
  std::string kind_sql;  // the kind as a SQL literal (any type)
  int64_t timed = 0, ops = 0;
};

struct MergeState {
  // The current input's old id -> new id, per mapped kind (index: id; 0: none).
  std::vector<int64_t> maps[4 + 1];
  InternTable<StackRow> stacks;
  InternTable<ShapeRow> shapes;
  InternTable<InputShapeRow> input_shapes;
  InternTable<GpuNameRow> gpu_names;
  // Flow ordering: each flow cat and text flow id string's rank in the one import's interner.
  std::unordered_map<std::string, int64_t> cat_rank, text_rank;
  std::map<int64_t, int64_t> first_of_rank;  // distributedInfo rank -> its first trace's id
  std::vector<int64_t>& map(Id id) { return maps[static_cast<int>(id) - kMapped]; }
};

// tq_map(kind, id): the current input's id moved to the merged one's; NULL stays NULL.
void SqlMap(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  auto* st = static_cast<MergeState*>(sqlite3_user_data(ctx));
  int kind = sqlite3_value_int(argv[0]);
  int64_t id = sqlite3_value_int64(argv[1]);
  const std::vector<int64_t>& m = st->maps[kind - kMapped];
  if (id <= 0 || id >= static_cast<int64_t>(m.size()) || m[static_cast<size_t>(id)] == 0) {
    return sqlite3_result_error(ctx, fmt::format("id {} of kind {} has no row to refer to", id, kind).c_str(), -1);
  }
  sqlite3_result_int64(ctx, m[static_cast<size_t>(id)]);
}

// tq_map_list(ids): each id of a comma-separated list moved to the merged one's, ascending.
void SqlMapList(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  auto* st = static_cast<MergeState*>(sqlite3_user_data(ctx));
  const std::vector<int64_t>& m = st->map(Id::kGpuName);
  std::string_view text(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                        static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  std::vector<int64_t> ids;
  for (size_t b = 0; b <= text.size();) {
    size_t e = text.find(',', b);
    if (e == std::string_view::npos) e = text.size();
    int64_t id = std::atoll(std::string(text.substr(b, e - b)).c_str());
    if (id <= 0 || id >= static_cast<int64_t>(m.size()) || m[static_cast<size_t>(id)] == 0) {
      return sqlite3_result_error(ctx, "gpu_segments.name_ids names an unknown gpu_op_names id", -1);
    }
    ids.push_back(m[static_cast<size_t>(id)]);
    b = e + 1;
  }
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  sqlite3_result_text(ctx, out.c_str(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

// Builds the map of an interned kind for the input attached as p: its rows in id order, each
// interned by key; ids missing from the table (gaps) map to 0.
void MapStacks(Db& db, MergeState& st) {
  std::vector<int64_t>& m = st.map(Id::kStack);
  m.assign(static_cast<size_t>(db.QueryInt("SELECT coalesce(max(id), 0) FROM p.stacks")) + 1, 0);
  Stmt s = db.Prepare("SELECT id, parent_id, depth, name, cat FROM p.stacks ORDER BY id");
  while (s.Step()) {
    StackRow row;
    row.parent = s.ColumnIsNull(1) ? 0 : m.at(static_cast<size_t>(s.ColumnInt(1)));
    row.depth = s.ColumnInt(2);
    row.name = OptText(s, 3);
    row.cat = OptText(s, 4);
    std::string key = fmt::format("{}/{}/", row.parent, row.depth) + Key(s, 3) + '\x1f' + Key(s, 4);
    m[static_cast<size_t>(s.ColumnInt(0))] = st.stacks.Intern(key, row);
  }
}

void MapArgShapes(Db& db, MergeState& st) {
  std::vector<int64_t>& m = st.map(Id::kArgShape);
  int64_t max_id = db.QueryInt("SELECT coalesce(max(shape_id), 0) FROM p.arg_keys");
  m.assign(static_cast<size_t>(max_id) + 1, 0);
  std::vector<ShapeRow> rows(static_cast<size_t>(max_id) + 1);
  Stmt s = db.Prepare("SELECT shape_id, key, path FROM p.arg_keys ORDER BY shape_id, idx");
  while (s.Step()) rows.at(static_cast<size_t>(s.ColumnInt(0))).keys.emplace_back(s.ColumnText(1), OptText(s, 2));
  for (size_t id = 1; id < rows.size(); ++id) {  // a shape of no keys has no rows: the empty key
    std::string key;
    for (const auto& [k, path] : rows[id].keys) key += k + '\x1f' + (path ? "v" : "p") + '\x1e';
    m[id] = st.shapes.Intern(key, rows[id]);
  }
}

void MapInputShapes(Db& db, MergeState& st) {
  std::vector<int64_t>& m = st.map(Id::kInputShape);
  m.assign(static_cast<size_t>(db.QueryInt("SELECT coalesce(max(id), 0) FROM p.input_shapes")) + 1, 0);
  Stmt s = db.Prepare("SELECT id, input_dims, input_type FROM p.input_shapes ORDER BY id");
  while (s.Step()) {
    InputShapeRow row{OptText(s, 1), OptText(s, 2)};
    m[static_cast<size_t>(s.ColumnInt(0))] = st.input_shapes.Intern(Key(s, 1) + '\x1f' + Key(s, 2), row);
  }
}

void MapGpuNames(Db& db, MergeState& st, bool present) {
  std::vector<int64_t>& m = st.map(Id::kGpuName);
  m.assign(1, 0);
  if (!present) return;
  m.assign(static_cast<size_t>(db.QueryInt("SELECT coalesce(max(id), 0) FROM p.gpu_op_names")) + 1, 0);
  Stmt s = db.Prepare("SELECT id, name, quote(kind), timed, ops FROM p.gpu_op_names ORDER BY id");
  while (s.Step()) {
    GpuNameRow row{OptText(s, 1), s.ColumnText(2), 0, 0};
    int64_t id = st.gpu_names.Intern(Key(s, 1) + '\x1f' + row.kind_sql, row);
    GpuNameRow& g = st.gpu_names.rows[static_cast<size_t>(id) - 1];
    g.timed = std::max(g.timed, s.ColumnInt(3));
    g.ops += s.ColumnInt(4);
    m[static_cast<size_t>(s.ColumnInt(0))] = id;
  }
}

// The strings of `order` not yet ranked get the next ranks, in that order.
void Rank(std::unordered_map<std::string, int64_t>& ranks, const std::vector<std::string>& order) {
  for (const auto& s : order) ranks.emplace(s, static_cast<int64_t>(ranks.size()));
}

// The flows of the input attached as p, trace by trace, in the order the one import gives them.
// The importer emits a trace's flows grouped by (cat, flow id), the groups in the order of the
// interned string ids of cat and of a text flow id (integer ids before text ones, by value), each
// group's rows in an order of their own. Within an input that order shows which of two cats
// (or two text ids under one cat) was interned first; across inputs, a string met by an earlier
// trace was interned first. So each string gets a rank: the earlier traces' first, then this
// trace's in the order its flows show (text ids: a topological order of the chains each cat
// shows, ties by first appearance). Exact unless a flow's cat or text id string was first met by
// an earlier trace in another role (an event name, say) and not as a flow cat or id.
void MapFlows(Db& db, MergeState& st, int64_t flow_base) {
  std::vector<int64_t>& m = st.map(Id::kFlow);
  m.assign(static_cast<size_t>(db.QueryInt("SELECT coalesce(max(id), 0) FROM p.flows")) + 1, 0);
  struct Row {
    int64_t id;
    std::optional<std::string> cat;
    bool is_text;
    std::string text;
    int64_t value;
  };
  int64_t next = flow_base;
  Stmt traces = db.Prepare("SELECT id FROM p.traces ORDER BY id");
  while (traces.Step()) {
    std::vector<Row> rows;
    Stmt s = db.Prepare("SELECT id, cat, typeof(flow_id) = 'text', flow_id FROM p.flows WHERE trace_id = ? ORDER BY id");
    s.BindInt(1, traces.ColumnInt(0));
    while (s.Step()) {
      rows.push_back({s.ColumnInt(0), OptText(s, 1), s.ColumnInt(2) != 0, s.ColumnInt(2) ? s.ColumnText(3) : "",
                      s.ColumnInt(2) ? 0 : s.ColumnInt(3)});
    }
    std::vector<std::string> cats;
    std::set<std::string> seen_cat;
    // Text ids: nodes in first-appearance order, edges from each cat's chain.
    std::unordered_map<std::string, size_t> node;
    std::vector<std::string> names;
    std::vector<std::set<size_t>> after;
    std::vector<int> before;
    std::map<std::optional<std::string>, size_t> last_in_cat;
    for (const Row& r : rows) {
      if (r.cat && seen_cat.insert(*r.cat).second) cats.push_back(*r.cat);
      if (!r.is_text) continue;
      auto [it, fresh] = node.emplace(r.text, names.size());
      if (fresh) {
        names.push_back(r.text);
        after.emplace_back();
        before.push_back(0);
      }
      auto last = last_in_cat.find(r.cat);
      if (last != last_in_cat.end() && last->second != it->second && after[last->second].insert(it->second).second) {
        ++before[it->second];
      }
      last_in_cat[r.cat] = it->second;
    }
    Rank(st.cat_rank, cats);
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t k = 0; k < names.size(); ++k) {
      if (before[k] == 0) ready.push(k);
    }
    std::vector<std::string> topo;
    while (!ready.empty()) {
      size_t k = ready.top();
      ready.pop();
      topo.push_back(names[k]);
      for (size_t n : after[k]) {
        if (--before[n] == 0) ready.push(n);
      }
    }
    for (size_t k = 0; k < names.size(); ++k) {
      if (before[k] > 0) topo.push_back(names[k]);  // a cycle (cannot happen in an import's order)
    }
    Rank(st.text_rank, topo);
    auto cat_rank = [&](const Row& r) { return r.cat ? st.cat_rank.at(*r.cat) : -1; };
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      int64_t ca = cat_rank(a), cb = cat_rank(b);
      if (ca != cb) return ca < cb;
      if (a.is_text != b.is_text) return a.is_text < b.is_text;
      return a.is_text ? st.text_rank.at(a.text) < st.text_rank.at(b.text) : a.value < b.value;
    });
    for (const Row& r : rows) m.at(static_cast<size_t>(r.id)) = ++next;
  }
}

// The SQL expression that moves column c of rule r.
std::string Moved(const std::string& column, const TableRule* rule, const int64_t base[4]) {
  if (rule) {
    for (const ColumnRule& c : rule->columns) {
      if (column != c.column) continue;
      int k = static_cast<int>(c.id);
      if (k < kMapped) return fmt::format("\"{}\" + {}", column, base[k]);
      if (c.id == Id::kGpuNameList) return fmt::format("tq_map_list(\"{}\")", column);
      return fmt::format("tq_map({}, \"{}\")", k, column);
    }
  }
  return fmt::format("\"{}\"", column);
}

std::vector<std::string> Columns(Db& db, const std::string& schema, const std::string& table) {
  std::vector<std::string> out;
  Stmt s = db.Prepare(fmt::format("SELECT name FROM pragma_table_info('{}', '{}') ORDER BY cid", table, schema));
  while (s.Step()) out.push_back(s.ColumnText(0));
  return out;
}

struct SchemaObject {
  std::string type, name, sql;
};

// The tables, indexes and views of a database (as created, in order), less SQLite's own.
std::vector<SchemaObject> SchemaOf(Db& db, const std::string& schema) {
  std::vector<SchemaObject> out;
  Stmt s = db.Prepare(fmt::format(
      "SELECT type, name, sql FROM \"{}\".sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
      schema));
  while (s.Step()) out.push_back({s.ColumnText(0), s.ColumnText(1), s.ColumnText(2)});
  return out;
}

// Checks an input: a tracesql database of this schema version. Returns its number of traces.
int64_t CheckInput(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) Errorf("{}: no such file", path);
  if (fs::is_directory(path, ec)) Errorf("{}: is a directory without {}, not a partition directory", path, kManifestName);
  if (!IsEmptyOrSqliteFile(path)) Errorf("{}: not a SQLite database", path);
  try {
    Db db = Db::Open(path, false, true);
    if (db.QueryInt("PRAGMA application_id") != kApplicationId) Errorf("not a tracesql database");
    int64_t v = db.QueryInt("PRAGMA user_version");
    if (v != kSchemaVersion) Errorf("made by a tracesql of schema version {}; this one merges {}", v, kSchemaVersion);
    return db.QueryInt("SELECT count(*) FROM traces");
  } catch (const Error& e) {
    RethrowNamingDatabase(e, path);
  }
}

std::string SqlText(const std::optional<std::string>& s) {
  if (!s) return "NULL";
  std::string out = "'";
  for (char c : *s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}


// Whether table t of schema has a rowid (is no WITHOUT ROWID table).
bool HasRowid(Db& db, std::string_view schema, const std::string& t) {
  sqlite3_stmt* probe = nullptr;
  bool rowid = sqlite3_prepare_v2(db.get(), fmt::format("SELECT rowid FROM {}.\"{}\"", schema, t).c_str(), -1, &probe,
                                  nullptr) == SQLITE_OK;
  sqlite3_finalize(probe);
  return rowid;
}

// The INSERT ... SELECT that copies the rows of table t from the input attached as p (those where
// `where` holds, when given) in rowid order, ids moved.
std::string InsertSql(Db& db, const std::string& t, const TableRule* rule, const std::string& where,
                      const int64_t base[4]) {
  std::string cols, exprs;
  for (const std::string& c : Columns(db, "main", t)) {
    cols += (cols.empty() ? "\"" : ", \"") + c + "\"";
    exprs += (exprs.empty() ? "" : ", ") + Moved(c, rule, base);
  }
  bool rowid = HasRowid(db, "p", t);  // a WITHOUT ROWID table has no rowid to keep the order of
  return fmt::format("INSERT INTO main.\"{}\" ({}) SELECT {} FROM p.\"{}\" AS r{}{}", t, cols, exprs, t,
                     where.empty() ? "" : " WHERE " + where, rowid ? " ORDER BY r.rowid" : "");
}

// A Copy::Fed index's rowid that numbers the rows (a table whose rowid is no id).
constexpr int kRowNumber = -2;

// A table of kRules and how its rows are copied: as b-tree pages (btree::PagedTable: rows read
// from each input in the order of the merged rowid, ids moved here), or, for a table that cannot
// be written so (one with an index SQLite makes for a PRIMARY KEY or UNIQUE constraint), by SQL.
struct Copy {
  std::string name;
  const TableRule* rule = nullptr;
  std::vector<int> kinds;  // per column: its Id, -1 when it holds none
  std::string order;       // the ORDER BY of the input's rows (empty: any order)
  // Columns whose values grow from input to input and are never NULL (ids moved by an offset:
  // NOT NULL, a primary key, or a trace id): an index they begin (or a WITHOUT ROWID table whose
  // key they begin) is written as each input's rows are copied.
  std::vector<int> growing;
  std::unique_ptr<btree::PagedTable> pages;
  // Indexes whose entries are read from the input's own index, in its order: every key column
  // unmoved or moved by an offset (the input's order is kept), the first growing, and the rowid
  // an id moved by an offset or (kRowNumber) the row's number, where the input's rowids are 1..n.
  // So the keys need no sort.
  struct Fed {
    size_t index;
    std::string sql;         // the input's entries, in key order
    std::vector<int> kinds;  // per value (the key columns, then the rowid): its Id, -1: none
  };
  std::vector<Fed> fed;
  bool sequential = false;  // a rowid table whose rowid is no id: rows numbered as they come
  bool raw = false;  // a rowid table: its rows can be read from the file (btree::TableReader)
  int ipk = -1;      // its INTEGER PRIMARY KEY column (the rowid), -1 if none
  // The last rowid written (an id table's last id).
  int64_t LastId(Db& db) const {
    if (pages) return pages->last_rowid();
    return db.QueryInt(fmt::format("SELECT coalesce(max(rowid), 0) FROM main.\"{}\"", name));
  }
};

Copy MakeCopy(Db& db, const std::string& name, const TableRule* rule, btree::PageSpill& spill, btree::RunSpill& runs) {
  Copy c;
  c.name = name;
  c.rule = rule;
  std::string rowid_column;
  int keys = 0;
  std::vector<std::string> names;  // the columns, in order
  Stmt s = db.Prepare("SELECT name, type, pk, \"notnull\" FROM pragma_table_info(?, 'main') ORDER BY cid");
  s.BindText(1, name);
  while (s.Step()) {
    std::string col = s.ColumnText(0);
    names.push_back(col);
    int kind = -1;
    for (const ColumnRule& r : rule->columns) {
      if (col == r.column) kind = static_cast<int>(r.id);
    }
    if (kind >= 0 && kind < kMapped && (s.ColumnInt(3) != 0 || s.ColumnInt(2) != 0 || col == "trace_id")) {
      c.growing.push_back(static_cast<int>(c.kinds.size()));
    }
    c.kinds.push_back(kind);
    if (s.ColumnInt(2) > 0) {
      ++keys;
      if (s.ColumnText(1) == "INTEGER") rowid_column = col;
    }
  }
  bool rowid = HasRowid(db, "main", name);
  if (rowid) {
    // The input's rows in the order of their merged rowids: an id moved by an offset keeps the
    // input's order; a flow id is reordered.
    c.order = " ORDER BY r.rowid";
    if (keys == 1 && !rowid_column.empty()) {
      for (const ColumnRule& r : rule->columns) {
        if (rowid_column == r.column && static_cast<int>(r.id) >= kMapped) {
          c.order = fmt::format(" ORDER BY tq_map({}, r.\"{}\")", static_cast<int>(r.id), rowid_column);
        }
      }
    }
  }
  if (db.QueryInt(fmt::format("SELECT count(*) FROM main.sqlite_schema WHERE type = 'index' AND tbl_name = '{}' AND sql IS NULL",
                              name)) == 0) {
    c.pages = std::make_unique<btree::PagedTable>(db, name, spill, runs);
    // The rows the views' SQL computes may hold REALs (in any column: their declared types are
    // the SQL's); the importer's own tables never do (a REAL in an index of one is an error).
    if (IsMaterializedView(name)) c.pages->AllowReals();
    c.raw = rowid;
    if (keys == 1 && !rowid_column.empty()) {
      c.ipk = static_cast<int>(std::find(names.begin(), names.end(), rowid_column) - names.begin());
    }
    int rowid_kind = -1;
    for (const ColumnRule& r : rule->columns) {
      if (keys == 1 && r.column == rowid_column) rowid_kind = static_cast<int>(r.id);
    }
    if (rowid && c.ipk < 0) {
      c.sequential = true;
      rowid_kind = kRowNumber;
    }
    for (size_t i = 0; rowid && (rowid_kind == kRowNumber || (rowid_kind >= 0 && rowid_kind < kMapped)) &&
                       i < c.pages->indexes();
         ++i) {
      const std::vector<int>& cols = c.pages->IndexColumns(i);
      bool fits = !cols.empty() && std::find(c.growing.begin(), c.growing.end(), cols[0]) != c.growing.end();
      Copy::Fed f{i, "", {}};
      std::string list;
      for (int col : cols) {
        int kind = c.kinds[static_cast<size_t>(col)];
        fits = fits && kind < kMapped;
        f.kinds.push_back(kind);
        list += fmt::format("\"{}\", ", names[static_cast<size_t>(col)]);
      }
      f.kinds.push_back(rowid_kind);
      if (!fits) continue;
      const std::string& where = c.pages->IndexWhere(i);
      f.sql = fmt::format("SELECT {0}r.rowid FROM p.\"{1}\" AS r INDEXED BY \"{2}\"{3} ORDER BY {0}r.rowid", list, name,
                          c.pages->IndexName(i), where.empty() ? "" : " WHERE " + where);
      c.fed.push_back(std::move(f));
    }
  }
  return c;
}

btree::Value ColumnValue(sqlite3_stmt* s, int c) {
  switch (sqlite3_column_type(s, c)) {
    case SQLITE_INTEGER:
      return {btree::Value::kInt, sqlite3_column_int64(s, c), {}};
    case SQLITE_TEXT: {
      const char* p = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
      return {btree::Value::kText, 0, {p, static_cast<size_t>(sqlite3_column_bytes(s, c))}};
    }
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(s, c);
      int64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return {btree::Value::kReal, bits, {}};
    }
    case SQLITE_BLOB: {
      const char* p = static_cast<const char*>(sqlite3_column_blob(s, c));
      return {btree::Value::kBlob, 0, {p, static_cast<size_t>(sqlite3_column_bytes(s, c))}};
    }
    default:
      return {};
  }
}

[[noreturn]] void NoRow(int kind, const btree::Value& v) {
  if (v.type == btree::Value::kInt) Errorf("id {} of kind {} has no row to refer to", v.i, kind);
  Errorf("an id of kind {} that is not an integer", kind);
}

// Copies the rows of table c from the input attached as p into its pages (but those of the
// condition `later`), ids moved. The events also give each stack's summed host slices (its self
// time sums over the traces: tests/invariants/stacks_columns.sql).
void CopyPaged(Db& db, Copy& c, const std::string& later, const int64_t base[4], MergeState& st,
               const std::string& path) {
  // The rows straight from the input's file (btree::TableReader) where they are read in rowid
  // order, all of them, from a file in rollback-journal mode; else through SQLite.
  std::optional<btree::TableReader> reader;
  Stmt s;
  if (c.order == " ORDER BY r.rowid" && later.empty() && c.raw) {
    Stmt j = db.Prepare("PRAGMA p.journal_mode");
    bool wal = j.Step() && j.ColumnText(0) == "wal";
    if (!wal) {
      Stmt r = db.Prepare("SELECT rootpage FROM p.sqlite_schema WHERE type = 'table' AND name = ?");
      r.BindText(1, c.name);
      if (!r.Step()) Errorf("no table {}", c.name);
      reader.emplace(path, static_cast<uint32_t>(r.ColumnInt(0)));
    }
  }
  if (!reader) {
    s = db.Prepare(fmt::format("SELECT * FROM p.\"{}\" AS r{}{}", c.name,
                               later.empty() ? "" : fmt::format(" WHERE NOT coalesce(({}), 0)", later), c.order));
  }
  const size_t n = c.kinds.size();
  if (!reader && static_cast<size_t>(sqlite3_column_count(s.get())) != n) {
    Errorf("internal error: the columns of {}", c.name);
  }
  std::vector<btree::Value> row(n);
  std::vector<std::string> lists(n);
  // The events: host slices' durations summed per (input) stack id.
  bool events = c.name == "events";
  std::vector<char> cpu_thread;
  std::vector<int64_t> stack_sum;
  std::vector<char> stack_has;
  size_t thread_col = 0, dur_col = 0, stack_col = 0;
  if (events) {
    Stmt cols = db.Prepare("SELECT cid, name FROM pragma_table_info('events', 'p')");
    while (cols.Step()) {
      std::string name = cols.ColumnText(1);
      auto k = static_cast<size_t>(cols.ColumnInt(0));
      if (name == "thread_id") thread_col = k;
      if (name == "dur") dur_col = k;
      if (name == "stack_id") stack_col = k;
    }
    Stmt t = db.Prepare("SELECT id FROM p.threads WHERE kind = 'cpu'");
    while (t.Step()) {
      auto id = static_cast<size_t>(std::max<int64_t>(t.ColumnInt(0), 0));
      if (id >= cpu_thread.size()) cpu_thread.resize(id + 1, 0);
      cpu_thread[id] = 1;
    }
    stack_sum.assign(st.map(Id::kStack).size(), 0);
    stack_has.assign(st.map(Id::kStack).size(), 0);
  }
  int64_t rowid = 0;
  while (reader ? reader->Next(&rowid, row) : s.Step()) {
    if (reader && c.ipk >= 0) row[static_cast<size_t>(c.ipk)] = {btree::Value::kInt, rowid, {}};
    for (size_t k = 0; k < n; ++k) {
      btree::Value& v = row[k];
      if (!reader) v = ColumnValue(s.get(), static_cast<int>(k));
      if (events && k == stack_col) {
        // thread_id and dur come before stack_id: the thread id is moved already.
        const btree::Value& th = row[thread_col];
        const btree::Value& dur = row[dur_col];
        int64_t thread = th.i - base[static_cast<int>(Id::kThread)];
        if (v.type == btree::Value::kInt && th.type == btree::Value::kInt && dur.type == btree::Value::kInt &&
            thread > 0 && static_cast<size_t>(thread) < cpu_thread.size() && cpu_thread[static_cast<size_t>(thread)] &&
            v.i > 0 && static_cast<size_t>(v.i) < stack_sum.size()) {
          stack_sum[static_cast<size_t>(v.i)] += dur.i;
          stack_has[static_cast<size_t>(v.i)] = 1;
        }
      }
      int kind = c.kinds[k];
      if (kind < 0 || v.type == btree::Value::kNull) continue;
      if (kind < kMapped) {
        if (v.type != btree::Value::kInt) NoRow(kind, v);
        v.i += base[kind];
      } else if (kind == static_cast<int>(Id::kGpuNameList)) {
        const std::vector<int64_t>& m = st.map(Id::kGpuName);
        if (v.type != btree::Value::kText) Errorf("gpu_segments.name_ids names an unknown gpu_op_names id");
        std::vector<int64_t> ids;
        std::string_view text = v.s;
        for (size_t b = 0; b <= text.size();) {
          size_t e = text.find(',', b);
          if (e == std::string_view::npos) e = text.size();
          int64_t id = std::atoll(std::string(text.substr(b, e - b)).c_str());
          if (id <= 0 || id >= static_cast<int64_t>(m.size()) || m[static_cast<size_t>(id)] == 0) {
            Errorf("gpu_segments.name_ids names an unknown gpu_op_names id");
          }
          ids.push_back(m[static_cast<size_t>(id)]);
          b = e + 1;
        }
        std::sort(ids.begin(), ids.end());
        std::string& out = lists[k];
        out.clear();
        for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
        v.s = out;
      } else {
        std::vector<int64_t>& m = st.maps[kind - kMapped];
        if (kind == static_cast<int>(Id::kArgShape) && v.type == btree::Value::kInt &&
            v.i >= static_cast<int64_t>(m.size())) {
          // Shapes past the last in arg_keys: shapes of no keys (they have no rows there).
          while (static_cast<int64_t>(m.size()) <= v.i) m.push_back(st.shapes.Intern("", ShapeRow{}));
        }
        if (v.type != btree::Value::kInt || v.i <= 0 || v.i >= static_cast<int64_t>(m.size()) ||
            m[static_cast<size_t>(v.i)] == 0) {
          NoRow(kind, v);
        }
        v.i = m[static_cast<size_t>(v.i)];
      }
    }
    c.pages->Add(row.data());
  }
  if (events) {
    const std::vector<int64_t>& m = st.map(Id::kStack);
    for (size_t id = 1; id < stack_sum.size(); ++id) {
      if (!stack_has[id]) continue;
      if (m[id] == 0) Errorf("id {} of kind {} has no row to refer to", id, static_cast<int>(Id::kStack));
      StackRow& r = st.stacks.rows.at(static_cast<size_t>(m[id]) - 1);
      r.cpu_total += stack_sum[id];
      r.cpu_slices = true;
    }
  }
}

// The entries of an index of c (Copy::Fed) from the input attached as p, in its order, ids moved.
// rowid_base: the rows of c before this input's (a table whose rowid is no id: the input's rowid r
// is rowid_base + r in the merged table).
void FeedIndex(Db& db, Copy& c, const Copy::Fed& f, const int64_t base[4], int64_t rowid_base) {
  Stmt s = db.Prepare(f.sql);
  const size_t n = f.kinds.size();
  std::vector<btree::Value> key(n);
  while (s.Step()) {
    for (size_t k = 0; k < n; ++k) {
      btree::Value& v = key[k];
      v = ColumnValue(s.get(), static_cast<int>(k));
      int kind = f.kinds[k];
      if (kind == kRowNumber) {
        v.i += rowid_base;
        continue;
      }
      if (kind < 0 || v.type == btree::Value::kNull) continue;
      if (v.type != btree::Value::kInt) NoRow(kind, v);
      v.i += base[kind];
    }
    c.pages->AddIndexEntry(f.index, key.data());
  }
}

// An input whose rows of some table are copied after the pages are placed (LaterRows): its maps
// and bases, kept for then.
struct Deferred {
  size_t input = 0;
  bool sql_traces = false;
  int64_t base[4] = {0, 0, 0, 0};
  std::vector<int64_t> maps[5];
};

}  // namespace

MergeSummary MergeDatabases(const std::vector<std::string>& args, const std::string& out, const MergeOptions& options) {
  auto t0 = Clock::now();
  auto warn = options.warn ? options.warn : [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); };
  // The inputs: databases, and the partitions of each partition directory in manifest order.
  std::vector<std::string> inputs;
  for (const auto& a : args) {
    if (IsPartitionDir(a)) {
      for (const Partition& p : OpenPartitionDir(a).parts) inputs.push_back(p.path);
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) Errorf("no databases to merge");
  int64_t traces_in = 0;
  for (const auto& in : inputs) traces_in += CheckInput(in);

  fs::path target(out);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) Errorf("{}: cannot create database: directory {} does not exist", out, dir.string());
  for (const auto& in : inputs) {
    if (SameFile(in, out)) Errorf("{}: is an input of this merge, never overwritten (choose another -o)", out);
  }
  if (fs::exists(target, ec)) {
    if (fs::is_directory(target, ec)) Errorf("{}: cannot create database: is a directory", out);
    if (!options.force) Errorf("{}: database already exists (use --force to replace it)", out);
    if (!IsEmptyOrSqliteFile(out)) Errorf("{}: exists and is not a SQLite database: --force replaces only a database", out);
  }
  std::string tmp = (dir / fmt::format(".{}.tmp-{}", target.filename().string(), getpid())).string();
  fs::remove(tmp, ec);
  TempDbGuard guard(tmp);

  MergeState st;
  MergeSummary summary;
  {
    auto open = [&](bool create) {
      Db d = Db::Open(tmp, create);
      d.Exec("PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
             " PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -65536;");
      for (auto [name, fn, n] : {std::tuple{"tq_map", &SqlMap, 2}, std::tuple{"tq_map_list", &SqlMapList, 1}}) {
        if (sqlite3_create_function(d.get(), name, n, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &st, fn, nullptr, nullptr) !=
            SQLITE_OK) {
          Errorf("{}: cannot register {}: {}", out, name, sqlite3_errmsg(d.get()));
        }
      }
      return d;
    };
    Db db = open(/*create=*/true);
    auto attach = [&](const std::string& path) {
      Stmt a = db.Prepare("ATTACH DATABASE ? AS p");
      a.BindText(1, path);
      a.Run();
    };
    // The schema: the first input's, in its order (every input has the same: checked as each is
    // attached). The indexes of the tables written as pages are created empty and filled with them.
    std::vector<SchemaObject> schema;
    {
      Db first = Db::Open(inputs[0], false, true);
      schema = SchemaOf(first, "main");
    }
    db.Exec(fmt::format("PRAGMA main.application_id = {}; PRAGMA main.user_version = {};", kApplicationId, kSchemaVersion));
    std::vector<std::string> tables;
    bool has_gpu_names = false;
    for (const SchemaObject& o : schema) {
      if (o.type == "table") {
        if (!RuleFor(o.name) && !kOwnTables.count(o.name)) {
          Errorf("{}: table {} has no merge rule (src/import/merge.cc knows the tables of schema version {})", inputs[0],
                 o.name, kSchemaVersion);
        }
        tables.push_back(o.name);
        has_gpu_names = has_gpu_names || o.name == "gpu_op_names";
      }
      db.Exec(o.sql);
    }
    db.Exec("BEGIN");
    std::vector<Copy> copies;
    btree::PageSpill spill(dir.string(), static_cast<uint32_t>(db.QueryInt("PRAGMA page_size")), out);
    btree::RunSpill runs(dir.string(), out);
    for (const std::string& t : tables) {
      if (const TableRule* rule = RuleFor(t)) copies.push_back(MakeCopy(db, t, rule, spill, runs));
    }
    auto copy_of = [&](std::string_view name) -> Copy& {
      for (Copy& c : copies) {
        if (c.name == name) return c;
      }
      Errorf("internal error: no table {}", name);
    };
    attach(inputs[0]);
    for (const char* t : {"kernel_class_rules", "device_peaks", "op_models", "dtype_sizes"}) {
      if (std::find(tables.begin(), tables.end(), t) != tables.end()) {
        db.Exec(fmt::format("INSERT INTO main.{0} SELECT * FROM p.{0}", t));
      }
    }
    // SQLite attaches and detaches outside transactions: one transaction per input.
    db.Exec("COMMIT");
    db.Exec("DETACH DATABASE p");

    std::map<int64_t, std::vector<int64_t>> same_rank;  // rank -> its traces after the first
    int64_t base[4] = {0, 0, 0, 0};  // traces, events, threads, processes before this input
    std::vector<Deferred> deferred;  // inputs with rows copied after the pages are placed
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string& in = inputs[i];
      try {
        attach(in);
        std::vector<SchemaObject> theirs = SchemaOf(db, "p");
        // The same objects, in any order.
        auto sorted = [](std::vector<SchemaObject> v) {
          std::sort(v.begin(), v.end(), [](const SchemaObject& a, const SchemaObject& b) {
            return std::tie(a.type, a.name, a.sql) < std::tie(b.type, b.name, b.sql);
          });
          return v;
        };
        std::vector<SchemaObject> mine = sorted(schema);
        theirs = sorted(theirs);
        bool same = theirs.size() == mine.size();
        for (size_t k = 0; same && k < mine.size(); ++k) {
          same = theirs[k].type == mine[k].type && theirs[k].name == mine[k].name && theirs[k].sql == mine[k].sql;
        }
        if (!same) {
          Errorf("its tables and views are not those of {} (made by another tracesql, or one imported with "
                 "--no-materialize and the other without?)",
                 inputs[0]);
        }
        db.Exec("BEGIN");
        MapStacks(db, st);
        MapArgShapes(db, st);
        MapInputShapes(db, st);
        MapGpuNames(db, st, has_gpu_names);
        MapFlows(db, st, copy_of("flows").LastId(db));
        bool sql_traces = db.QueryInt("SELECT EXISTS (SELECT 1 FROM p.import_stats WHERE name = 'views_by_sql')") != 0;
        bool defers = false;
        for (Copy& c : copies) {
          std::string later = LaterRows(c.name, sql_traces);
          if (!later.empty()) {
            if (db.QueryInt(fmt::format("SELECT EXISTS (SELECT 1 FROM p.\"{}\" AS r WHERE {})", c.name, later)) != 0) {
              defers = true;
            } else {
              later.clear();  // every row is copied now
            }
          }
          if (c.pages) {
            // An input whose rows of this table are not all copied now, or (a table whose rowid
            // is no id) whose rowids are not 1..n, makes its index entries from the rows.
            bool feed = later.empty() && !c.fed.empty();
            if (feed && c.sequential) {
              feed = db.QueryInt(fmt::format(
                         "SELECT count(*) = coalesce(max(rowid), 0) AND coalesce(min(rowid), 1) = 1 FROM p.\"{}\"",
                         c.name)) != 0;
            }
            int64_t rowid_base = c.pages->last_rowid();
            for (const Copy::Fed& f : c.fed) c.pages->FeedIndex(f.index, feed);
            CopyPaged(db, c, later, base, st, in);
            for (const Copy::Fed& f : c.fed) {
              if (feed) FeedIndex(db, c, f, base, rowid_base);
            }
            c.pages->EndSegment(c.growing);
          } else {
            std::string now = later.empty() ? "" : fmt::format("NOT coalesce(({}), 0)", later);
            db.Exec(InsertSql(db, c.name, c.rule, now, base));
          }
        }
        if (defers) {
          Deferred d;
          d.input = i;
          d.sql_traces = sql_traces;
          std::copy(std::begin(base), std::end(base), std::begin(d.base));
          for (size_t k = 0; k < std::size(st.maps); ++k) d.maps[k] = st.maps[k];
          deferred.push_back(std::move(d));
        }
        // import_stats, trace by trace in the order the importer writes them (kStatInfo), with
        // the duplicate_rank row of a trace whose rank an earlier trace has.
        Stmt tr = db.Prepare("SELECT id, rank FROM p.traces ORDER BY id");
        while (tr.Step()) {
          int64_t id = tr.ColumnInt(0) + base[0];
          struct StatRow {
            size_t order;
            std::string name;
            int64_t value;
            std::string severity, description;
          };
          std::vector<StatRow> rows;
          auto order_of = [](const std::string& name) {
            for (size_t k = 0; k < std::size(kStatInfo); ++k) {
              if (name == kStatInfo[k].name) return k;
            }
            return std::size(kStatInfo);
          };
          Stmt s = db.Prepare("SELECT name, value, severity, description FROM p.import_stats WHERE trace_id = ? "
                              "AND name <> 'duplicate_rank' ORDER BY rowid");
          s.BindInt(1, tr.ColumnInt(0));
          while (s.Step()) rows.push_back({order_of(s.ColumnText(0)), s.ColumnText(0), s.ColumnInt(1), s.ColumnText(2), s.ColumnText(3)});
          if (!tr.ColumnIsNull(1)) {
            auto [it, fresh] = st.first_of_rank.emplace(tr.ColumnInt(1), id);
            if (!fresh) {
              const StatInfo& d = kStatInfo[static_cast<int>(StatId::duplicate_rank)];
              rows.push_back({order_of(d.name), d.name, it->second, d.severity, d.description});
              same_rank[tr.ColumnInt(1)].push_back(id);
            }
          }
          std::stable_sort(rows.begin(), rows.end(), [](const StatRow& a, const StatRow& b) { return a.order < b.order; });
          Stmt ins = db.Prepare("INSERT INTO main.import_stats (trace_id, name, value, severity, description) VALUES (?,?,?,?,?)");
          for (const StatRow& r : rows) {
            ins.BindInt(1, id);
            ins.BindText(2, r.name);
            ins.BindInt(3, r.value);
            ins.BindText(4, r.severity);
            ins.BindText(5, r.description);
            ins.Run();
          }
        }
        db.Exec("INSERT INTO main.import_stats SELECT * FROM p.import_stats WHERE trace_id IS NULL");
        if (std::find(tables.begin(), tables.end(), "short_names") != tables.end()) {
          db.Exec("INSERT OR IGNORE INTO main.short_names SELECT * FROM p.short_names");
        }
        db.Exec("COMMIT");
        db.Exec("DETACH DATABASE p");
      } catch (const Error& e) {
        RethrowNamingDatabase(e, in, out);
      }
      base[0] = copy_of("traces").LastId(db);
      base[1] = copy_of("events").LastId(db);
      base[2] = copy_of("threads").LastId(db);
      base[3] = copy_of("processes").LastId(db);
    }
    std::string repeated;
    for (const auto& [rank, ids] : same_rank) {
      repeated += fmt::format("{}rank {}: traces {}", repeated.empty() ? "" : "; ", rank, st.first_of_rank.at(rank));
      for (int64_t id : ids) repeated += fmt::format(", {}", id);
    }
    if (!repeated.empty()) {
      warn(fmt::format("warning: {}: traces of one rank (distributedInfo): {}; cross-rank queries (collectives, "
                       "stragglers) take each rank's traces as one rank (import_stats duplicate_rank)",
                       out, repeated));
    }
    summary.traces = base[0];
    summary.events = base[1];
    if (summary.traces != traces_in) Errorf("internal error: merged {} traces of {}", summary.traces, traces_in);

    // The pages into the database file: the index runs merged into index pages, SQLite's file
    // committed and closed, the trees placed after its pages (btree::PlaceTrees).
    {
      std::vector<std::pair<btree::TreeWriter*, uint32_t>> trees;
      for (Copy& c : copies) {
        if (c.pages) c.pages->Finish(trees);
      }
      int64_t max_pages = db.QueryInt("PRAGMA max_page_count");
      db.Close();
      btree::PlaceTrees(tmp, {&spill}, trees, max_pages);
      copies.clear();
      db = open(/*create=*/false);
    }
    // The rows left for later, input by input in order: they come after the others (in tables
    // whose order is their rowid's; elsewhere SQLite puts them in key order).
    for (Deferred& d : deferred) {
      const std::string& in = inputs[d.input];
      try {
        for (size_t k = 0; k < std::size(st.maps); ++k) st.maps[k] = std::move(d.maps[k]);
        attach(in);
        db.Exec("BEGIN");
        for (const std::string& t : tables) {
          const TableRule* rule = RuleFor(t);
          if (!rule) continue;
          std::string later = LaterRows(t, d.sql_traces);
          if (!later.empty()) db.Exec(InsertSql(db, t, rule, fmt::format("coalesce(({}), 0)", later), d.base));
        }
        db.Exec("COMMIT");
        db.Exec("DETACH DATABASE p");
      } catch (const Error& e) {
        RethrowNamingDatabase(e, in, out);
      }
    }

    // The interned tables, over the whole job.
    db.Exec("BEGIN");
    {
      const auto& rows = st.stacks.rows;
      std::vector<int64_t> child_total(rows.size(), 0), merged(rows.size(), 0);
      for (size_t k = 0; k < rows.size(); ++k) {
        if (rows[k].cpu_slices && rows[k].parent) child_total[static_cast<size_t>(rows[k].parent) - 1] += rows[k].cpu_total;
      }
      // merged_id as WriteStacks (src/import/writer.cc) computes it: ProfilerStep#N read as
      // ProfilerStep#*, a missing name as '?'.
      std::map<std::pair<int64_t, std::string>, int64_t> first;
      for (size_t k = 0; k < rows.size(); ++k) {
        const StackRow& r = rows[k];
        std::string name = r.name ? *r.name : "?";
        if (name.starts_with("ProfilerStep#")) name = "ProfilerStep#*";
        int64_t parent = r.parent ? merged[static_cast<size_t>(r.parent) - 1] : 0;
        merged[k] = first.emplace(std::make_pair(parent, name), static_cast<int64_t>(k) + 1).first->second;
      }
      // cpu_self_ns, and merged_cpu_self_ns: on the first path of each merged set, the sum of its
      // paths' cpu_self_ns (NULL when none has one).
      std::vector<std::optional<int64_t>> self(rows.size()), merged_self(rows.size());
      for (size_t k = 0; k < rows.size(); ++k) {
        if (!rows[k].cpu_slices) continue;
        self[k] = std::max<int64_t>(rows[k].cpu_total - child_total[k], 0);
        std::optional<int64_t>& sum = merged_self[static_cast<size_t>(merged[k]) - 1];
        sum = sum.value_or(0) + *self[k];
      }
      Stmt s = db.Prepare(
          "INSERT INTO main.stacks (id, parent_id, depth, name, cat, merged_id, cpu_self_ns, merged_cpu_self_ns)"
          " VALUES (?,?,?,?,?,?,?,?)");
      for (size_t k = 0; k < rows.size(); ++k) {
        const StackRow& r = rows[k];
        s.BindInt(1, static_cast<int64_t>(k) + 1);
        if (r.parent) s.BindInt(2, r.parent); else s.BindNull(2);
        s.BindInt(3, r.depth);
        if (r.name) s.BindText(4, *r.name); else s.BindNull(4);
        if (r.cat) s.BindText(5, *r.cat); else s.BindNull(5);
        s.BindInt(6, merged[k]);
        if (self[k]) s.BindInt(7, *self[k]); else s.BindNull(7);
        if (merged_self[k]) s.BindInt(8, *merged_self[k]); else s.BindNull(8);
        s.Run();
      }
    }
    {
      Stmt s = db.Prepare("INSERT INTO main.arg_keys (shape_id, idx, key, path) VALUES (?,?,?,?)");
      for (size_t k = 0; k < st.shapes.rows.size(); ++k) {
        int64_t idx = 0;
        for (const auto& [key, path] : st.shapes.rows[k].keys) {
          s.BindInt(1, static_cast<int64_t>(k) + 1);
          s.BindInt(2, idx++);
          s.BindText(3, key);
          if (path) s.BindText(4, *path); else s.BindNull(4);
          s.Run();
        }
      }
    }
    {
      Stmt s = db.Prepare("INSERT INTO main.input_shapes (id, input_dims, input_type) VALUES (?,?,?)");
      for (size_t k = 0; k < st.input_shapes.rows.size(); ++k) {
        const InputShapeRow& r = st.input_shapes.rows[k];
        s.BindInt(1, static_cast<int64_t>(k) + 1);
        if (r.dims) s.BindText(2, *r.dims); else s.BindNull(2);
        if (r.types) s.BindText(3, *r.types); else s.BindNull(3);
        s.Run();
      }
    }
    if (has_gpu_names) {
      for (size_t k = 0; k < st.gpu_names.rows.size(); ++k) {
        const GpuNameRow& r = st.gpu_names.rows[k];
        db.Exec(fmt::format("INSERT INTO main.gpu_op_names (id, name, kind, timed, ops) VALUES ({}, {}, {}, {}, {})", k + 1,
                            SqlText(r.name), r.kind_sql, r.timed, r.ops));
      }
    }
    {
      Stmt s = db.Prepare("INSERT INTO main.tracesql_meta (key, value) VALUES (?, ?)");
      for (auto [k, v] : {std::pair<const char*, std::string>{"tracesql_version", TRACESQL_VERSION},
                          {"schema_version", std::to_string(kSchemaVersion)},
                          {"sqlite_version", sqlite3_libversion()}}) {
        s.BindText(1, k);
        s.BindText(2, v);
        s.Run();
      }
    }
    db.Exec("COMMIT");
    db.Exec("PRAGMA journal_mode = DELETE");
    db.Close();
  }
  int fd = open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  bool synced = fd >= 0 && fsync(fd) == 0;
  if (fd >= 0) close(fd);
  if (!synced) Errorf("{}: cannot write database: {}", out, std::strerror(errno));
  if (!options.force) {
    if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
      if (errno == EEXIST) Errorf("{}: database already exists (created meanwhile; use --force to replace it)", out);
      if (std::rename(tmp.c_str(), out.c_str()) != 0) Errorf("{}: cannot move the database into place: {}", out, std::strerror(errno));
    }
  } else if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    Errorf("{}: cannot move the database into place: {}", out, std::strerror(errno));
  }
  guard.Release();
  summary.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return summary;
}

}  // namespace tracesql
