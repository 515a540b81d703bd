#include "import/writer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <unordered_map>

#include "import/row_writer.h"
#include "tracesql/error.h"
#include "util/beside.h"
#include "util/channel.h"

namespace tracesql {

namespace {

void BindId(Stmt& s, int i, const IdValue& v, const Interner& strings) {
  if (v.is_text) {
    s.BindText(i, strings.Get(v.text));
  } else {
    s.BindInt(i, v.i);
  }
}

void BindOptText(Stmt& s, int i, uint32_t id, const Interner& strings) {
  if (id == 0) {
    s.BindNull(i);
  } else {
    s.BindText(i, strings.Get(id));
  }
}

// Writes the trace's flows into `out`'s pages with ids from flow_base + 1; returns how many.
int64_t WriteFlows(const Trace& trace, ImportPages& out, const ComputedIds& w, int64_t flow_base) {
  RowWriter rows(out,
                 "flows (id, trace_id, cat, name, flow_id, src_event_id, dst_event_id, src_ts, dst_ts, src_thread_id,"
                 " dst_thread_id)",
                 11);
  const std::vector<uint32_t>& new_id = *w.new_id;
  auto text = [&](uint32_t id) -> RowWriter& { return id ? rows.Text(trace.strings.Get(id)) : rows.Null(); };
  int64_t id = flow_base;
  for (const FlowRow& r : trace.flow_rows) {
    const FlowPoint& any = trace.AnyPoint(r);
    const FlowPoint* src = r.src_point >= 0 ? &trace.flow_points[r.src_point] : nullptr;
    const FlowPoint* dst = r.dst_point >= 0 ? &trace.flow_points[r.dst_point] : nullptr;
    rows.Int(++id).Int(w.trace_id);
    text(any.cat);
    text(any.name);
    if (any.id.is_text) rows.Text(trace.strings.Get(any.id.text)); else rows.Int(any.id.i);
    rows.Opt(r.src >= 0 ? w.event_base + new_id[r.src] : kNullTs);
    rows.Opt(r.dst >= 0 ? w.event_base + new_id[r.dst] : kNullTs);
    rows.Opt(src && src->ts != kNullTs ? src->ts + w.base : kNullTs);
    rows.Opt(dst && dst->ts != kNullTs ? dst->ts + w.base : kNullTs);
    rows.Opt(src ? w.thread_base + src->thread + 1 : kNullTs);
    rows.Opt(dst ? w.thread_base + dst->thread + 1 : kNullTs);
    rows.EndRow();
  }
  return id - flow_base;
}

}  // namespace

void WriteStacks(const StackInterner& stacks, const Interner& strings, ImportPages& pages) {
  const std::vector<StackInterner::Node>& nodes = stacks.nodes();
  const std::vector<int64_t>& cpu_total = stacks.cpu_total();
  const std::vector<uint32_t>& cpu_slices = stacks.cpu_slices();
  size_t n = nodes.size();
  // cpu_self_ns: summed duration of the host slices on the path minus that of the paths directly
  // under it that have host slices, clipped at 0 (the flamegraph's self time over all traces).
  std::vector<int64_t> child_total(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (cpu_slices[i] && nodes[i].parent) child_total[nodes[i].parent - 1] += cpu_total[i];
  }
  // merged_id: the first path with the same names from the root, ProfilerStep#N read as
  // 'ProfilerStep#*' and a missing name as '?' (how the flamegraph folds steps together). Parents
  // are interned before their children, so a parent's merged id is known first.
  std::vector<uint32_t> merged(n, 0);
  std::unordered_map<std::string_view, uint32_t> name_code;
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, uint32_t>& k) const {
      uint64_t h = (static_cast<uint64_t>(k.first) * 0x9E3779B97F4A7C15ull) ^ k.second;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::pair<uint32_t, uint32_t>, uint32_t, PairHash> first;
  for (size_t i = 0; i < n; ++i) {
    const StackInterner::Node& nd = nodes[i];
    std::string_view name = nd.name ? strings.Get(nd.name) : std::string_view("?");
    if (name.starts_with("ProfilerStep#")) name = "ProfilerStep#*";
    uint32_t code = name_code.emplace(name, static_cast<uint32_t>(name_code.size())).first->second;
    uint32_t parent = nd.parent ? merged[nd.parent - 1] : 0;
    merged[i] = first.emplace(std::make_pair(parent, code), static_cast<uint32_t>(i + 1)).first->second;
  }
  // merged_cpu_self_ns: on the first path of each merged set, the sum of its paths' cpu_self_ns.
  auto self_ns = [&](size_t i) { return cpu_slices[i] ? std::max<int64_t>(cpu_total[i] - child_total[i], 0) : kNullTs; };
  std::vector<int64_t> merged_self(n, kNullTs);
  for (size_t i = 0; i < n; ++i) {
    if (int64_t v = self_ns(i); v != kNullTs) {
      int64_t& sum = merged_self[merged[i] - 1];
      sum = sum == kNullTs ? v : sum + v;
    }
  }
  RowWriter rows(pages, "stacks (id, parent_id, depth, name, cat, merged_id, cpu_self_ns, merged_cpu_self_ns)", 8);
  for (size_t i = 0; i < n; ++i) {
    const StackInterner::Node& nd = nodes[i];
    rows.Int(static_cast<int64_t>(i) + 1).Opt(nd.parent ? nd.parent : kNullTs).Int(nd.depth);
    if (nd.name) rows.Text(strings.Get(nd.name)); else rows.Null();
    if (nd.cat) rows.Text(strings.Get(nd.cat)); else rows.Null();
    rows.Int(merged[i]).Opt(self_ns(i)).Opt(merged_self[i]);
    rows.EndRow();
  }
}

ImportPages::ImportPages(Db& db, const std::string& dir, const std::string& db_label, const ComputedTables& computed)
    : spill(dir, static_cast<uint32_t>(db.QueryInt("PRAGMA page_size")), db_label),
      aux_spill(spill),
      runs(dir, db_label),
      aux_runs(dir, db_label) {
  std::string columns;
  Stmt s = db.Prepare("SELECT name FROM pragma_table_info('events') ORDER BY cid");
  while (s.Step()) columns += (columns.empty() ? "" : ", ") + s.ColumnText(0);
  if (columns != kColumns) Errorf("internal error: the events table's columns are not those its records are written for");
  tables.push_back(std::make_unique<btree::PagedTable>(db, "memory_args", spill, runs));
  tables.push_back(std::make_unique<btree::PagedTable>(db, "flows", spill, runs));
  tables.push_back(std::make_unique<btree::PagedTable>(db, "stacks", aux_spill, aux_runs));
  for (const char* t : computed.Tables()) tables.push_back(std::make_unique<btree::PagedTable>(db, t, aux_spill, aux_runs));
}

btree::PagedTable& ImportPages::Table(std::string_view name) {
  for (auto& t : tables) {
    if (t->name() == name) return *t;
  }
  Errorf("internal error: table {} is not written as pages", name);
}

void ImportPages::FlushAux() {
  for (size_t k = kMainTables; k < tables.size(); ++k) tables[k]->FlushRuns();
}

// The events' index keys, 128 bits each compared as (hi, lo): events_thread_ts (thread_id, ts, id)
// with ts biased so that 0 is below every value, for NULL; events_trace_correlation
// (correlation, id) within a trace. Appended as the rows are encoded, in 1 MB pieces to a scratch
// file (their 16 bytes an event would otherwise add to the import's peak memory), sorted when the
// pages are placed, trace by trace: thread and trace ids grow from trace to trace, so each
// trace's sorted entries follow the last's.
namespace {
constexpr uint64_t kSignBit = uint64_t{1} << 63;  // flipped: signed order as unsigned
}  // namespace

void ImportPages::AddIndexKeys(int64_t thread_id, int64_t ts, int64_t id, const int64_t* correlation) {
  if (thread_id < 0 || thread_id > UINT32_MAX || id < 0 || id > UINT32_MAX) {
    Errorf("internal error: event id {} or thread id {} beyond 32 bits", id, thread_id);
  }
  uint64_t t = ts == kNullTs ? 0 : static_cast<uint64_t>(ts) ^ kSignBit;
  thread_keys_.push_back({static_cast<uint64_t>(thread_id) << 32 | t >> 32, t << 32 | static_cast<uint64_t>(id)});
  if (correlation) correlation_keys_.push_back({static_cast<uint64_t>(*correlation) ^ kSignBit, static_cast<uint64_t>(id)});
  if (thread_keys_.size() == kKeysPerPiece) SpillKeys(thread_keys_, thread_pieces_);
  if (correlation_keys_.size() == kKeysPerPiece) SpillKeys(correlation_keys_, correlation_pieces_);
}

void ImportPages::SpillKeys(std::vector<Key>& keys, std::vector<std::pair<uint64_t, uint64_t>>& pieces) {
  if (keys.empty()) return;
  std::string_view bytes(reinterpret_cast<const char*>(keys.data()), keys.size() * sizeof(Key));
  pieces.emplace_back(runs.Add(bytes), bytes.size());
  keys.clear();
}

void ImportPages::EndTrace(int64_t trace_id) {
  SpillKeys(thread_keys_, thread_pieces_);
  SpillKeys(correlation_keys_, correlation_pieces_);
  traces_.push_back({trace_id, thread_pieces_.size(), correlation_pieces_.size()});
}

void ImportPages::WriteIndexEntries() {
  btree::Record rec;
  std::vector<Key> keys;
  auto load = [&](const std::vector<std::pair<uint64_t, uint64_t>>& pieces, size_t from, size_t to) {
    keys.clear();
    for (size_t k = from; k < to; ++k) {
      size_t had = keys.size();
      keys.resize(had + pieces[k].second / sizeof(Key));
      runs.Read(keys.data() + had, pieces[k].second, pieces[k].first);
    }
    std::sort(keys.begin(), keys.end());
  };
  size_t thread_from = 0, correlation_from = 0;
  for (const TraceKeys& t : traces_) {
    load(thread_pieces_, thread_from, t.thread_pieces);
    for (const Key& k : keys) {
      uint64_t ts = k.hi << 32 | k.lo >> 32;
      rec.Clear();
      rec.Int(static_cast<int64_t>(k.hi >> 32));
      if (ts == 0) rec.Null(); else rec.Int(static_cast<int64_t>(ts ^ kSignBit));
      thread_ts.Append(rec.Int(static_cast<int64_t>(k.lo & 0xffffffffu)).Encode());
    }
    load(correlation_pieces_, correlation_from, t.correlation_pieces);
    for (const Key& k : keys) {
      rec.Clear();
      rec.Int(t.trace_id).Int(static_cast<int64_t>(k.hi ^ kSignBit));
      trace_correlation.Append(rec.Int(static_cast<int64_t>(k.lo)).Encode());
    }
    thread_from = t.thread_pieces;
    correlation_from = t.correlation_pieces;
  }
  traces_.clear();
}

void ImportPages::Place(Db& db, const std::string& path, const std::function<void()>& aux_first,
                        const std::function<Db()>& reopen) {
  uint32_t root_events = 0, root_thread_ts = 0, root_correlation = 0;
  bool other = db.QueryInt("SELECT count(*) FROM events") != 0;
  {
    Stmt s = db.Prepare("SELECT name, sql, rootpage FROM sqlite_schema WHERE tbl_name = 'events' AND rootpage > 0");
    while (s.Step()) {
      std::string name = s.ColumnText(0), sql = s.ColumnText(1);
      auto root = static_cast<uint32_t>(s.ColumnInt(2));
      if (name == "events") root_events = root;
      else if (name == "events_thread_ts" && sql == kThreadTs) root_thread_ts = root;
      else if (name == "events_trace_correlation" && sql == kTraceCorrelation) root_correlation = root;
      else other = true;
    }
  }
  if (other || !root_events || !root_thread_ts || !root_correlation) {
    Errorf("internal error: the events table or its indexes are not those its pages are written for");
  }
  for (auto& t : tables) {
    // SQLite wrote none of their rows, nor indexes other than those read when the table was set up.
    if (db.QueryInt(fmt::format("SELECT count(*) FROM \"{}\"", t->name())) != 0 ||
        db.QueryInt(fmt::format("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = '{}'", t->name())) !=
            static_cast<int64_t>(t->indexes())) {
      Errorf("internal error: table {} changed in the database while written as pages", t->name());
    }
  }
  // On a second thread, aux_first (rows of aux tables known only now), then the aux tables' index
  // runs are merged (into their own spill) while this one sorts the events' index keys.
  std::vector<std::pair<btree::TreeWriter*, uint32_t>> trees{
      {&events, root_events}, {&thread_ts, root_thread_ts}, {&trace_correlation, root_correlation}};
  std::vector<std::pair<btree::TreeWriter*, uint32_t>> aux_trees;
  Beside aux([&] {
    aux_first();
    for (size_t k = kMainTables; k < tables.size(); ++k) tables[k]->Finish(aux_trees);
  });
  WriteIndexEntries();
  for (size_t k = 0; k < kMainTables; ++k) tables[k]->Finish(trees);
  aux.Join();
  trees.insert(trees.end(), aux_trees.begin(), aux_trees.end());
  int64_t max_pages = db.QueryInt("PRAGMA max_page_count");
  db.Exec("COMMIT");
  db.Close();
  btree::PlaceTrees(path, {&spill, &aux_spill}, trees, max_pages);
  db = reopen();
}

WriteCounts WriteTrace(Trace& trace, const TraceFile& file, int64_t trace_id, Db& db, ImportPages& pages,
                       const ComputedTables& computed) {
  const HeaderInfo& header = file.header;
  WriteCounts counts;
  int64_t base = header.has_base ? header.base_time_ns : 0;
  int64_t process_base = db.QueryInt("SELECT coalesce(max(id), 0) FROM processes");
  int64_t thread_base = db.QueryInt("SELECT coalesce(max(id), 0) FROM threads");
  int64_t event_base = pages.events.last_rowid();

  {
    Stmt s = db.Prepare(
        "INSERT INTO traces (id, path, rank, world_size, base_time_ns, start_ts, end_ts, event_count, metadata,"
        " file_bytes, json_bytes, compressed, root_shape, truncated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.BindInt(1, trace_id);
    s.BindText(2, trace.path);
    if (header.has_rank) s.BindInt(3, header.rank); else s.BindNull(3);
    if (header.has_world) s.BindInt(4, header.world_size); else s.BindNull(4);
    if (header.has_base) s.BindInt(5, header.base_time_ns); else s.BindNull(5);
    if (trace.min_ts <= trace.max_end) {
      s.BindInt(6, trace.min_ts + base);
      s.BindInt(7, trace.max_end + base);
    } else {
      s.BindNull(6);
      s.BindNull(7);
    }
    s.BindInt(8, static_cast<int64_t>(trace.events.size()));
    s.BindText(9, header.metadata);
    s.BindInt(10, file.file_bytes);
    s.BindInt(11, file.json_bytes);
    s.BindInt(12, file.compressed ? 1 : 0);
    s.BindText(13, file.root_shape);
    s.BindInt(14, file.truncated ? 1 : 0);
    s.Run();
  }
  {
    Stmt s = db.Prepare(
        "INSERT INTO devices (trace_id, device, name, compute_major, compute_minor, total_memory, num_sms, properties)"
        " VALUES (?,?,?,?,?,?,?,?)");
    for (const auto& d : header.devices) {
      s.BindInt(1, trace_id);
      if (d.has_id) s.BindInt(2, d.id); else s.BindNull(2);
      if (d.name.empty()) s.BindNull(3); else s.BindText(3, d.name);
      if (d.has_major) s.BindInt(4, d.major); else s.BindNull(4);
      if (d.has_minor) s.BindInt(5, d.minor); else s.BindNull(5);
      if (d.has_mem) s.BindInt(6, d.mem); else s.BindNull(6);
      if (d.has_sms) s.BindInt(7, d.sms); else s.BindNull(7);
      s.BindText(8, d.properties);
      s.Run();
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO processes (id, trace_id, pid, name, labels, sort_index) VALUES (?,?,?,?,?,?)");
    for (size_t i = 0; i < trace.processes.size(); ++i) {
      const ProcessRec& p = trace.processes[i];
      s.BindInt(1, process_base + static_cast<int64_t>(i) + 1);
      s.BindInt(2, trace_id);
      BindId(s, 3, p.pid, trace.strings);
      BindOptText(s, 4, p.name, trace.strings);
      BindOptText(s, 5, p.labels, trace.strings);
      if (p.has_sort) s.BindInt(6, p.sort_index); else s.BindNull(6);
      s.Run();
    }
  }
  {
    Stmt s = db.Prepare(
        "INSERT INTO threads (id, trace_id, process_id, pid, tid, name, sort_index, kind, event_count)"
        " VALUES (?,?,?,?,?,?,?,?,?)");
    for (size_t i = 0; i < trace.threads.size(); ++i) {
      const ThreadRec& t = trace.threads[i];
      s.BindInt(1, thread_base + static_cast<int64_t>(i) + 1);
      s.BindInt(2, trace_id);
      s.BindInt(3, process_base + t.process + 1);
      BindId(s, 4, t.pid, trace.strings);
      BindId(s, 5, t.tid, trace.strings);
      BindOptText(s, 6, t.name, trace.strings);
      if (t.has_sort) s.BindInt(7, t.sort_index); else s.BindNull(7);
      const char* kind = t.cpu_events > 0 ? "cpu" : t.gpu_events > 0 ? "gpu" : "other";
      s.BindText(8, kind);
      s.BindInt(9, t.events);
      s.Run();
    }
  }
  // Events, grouped by kind (file order within a kind): new_id[i] is the id offset of trace.events[i].
  // Args are streamed back from each kind's spill file in order.
  size_t n_events = trace.events.size();
  std::vector<uint32_t> new_id(n_events);
  std::vector<uint32_t> order(n_events);  // event indices in write order (sorted_'s room, freed)
  {
    std::array<uint32_t, kKindCount + 1> start{};
    for (int k = 0; k < kKindCount; ++k) start[k + 1] = start[k] + trace.kind_count[k];
    for (uint32_t i = 0; i < n_events; ++i) {
      uint32_t pos = start[trace.events[i].kind]++;
      order[pos] = i;
      new_id[i] = pos + 1;
    }
  }
  auto id_of = [&](uint32_t index_plus_1) { return event_base + new_id[index_plus_1 - 1]; };
  // The computed analysis tables are made into pages on a second thread (their own spill) while
  // this one makes the flows' and the events'. The computed tables are made from the builder's
  // arrays (they need only the launch and fwdbwd flows of the flow points, taken here: this thread
  // frees the flow points once the flows are written). Both threads read the builder; the second
  // one writes only trace.stats's views_by_sql and gpu_op_names, which this one does not touch until
  // the join.
  std::vector<std::pair<uint32_t, uint32_t>> launch_flows = LaunchFlows(trace);
  bool has_fwdbwd = false;
  std::vector<std::pair<uint32_t, uint32_t>> fwdbwd = FwdBwdFlows(trace, &has_fwdbwd);
  ComputedIds ids;
  static_cast<ComputedTables&>(ids) = computed;
  ids.trace_id = trace_id;
  ids.base = base;
  ids.event_base = event_base;
  ids.thread_base = thread_base;
  ids.new_id = &new_id;
  ids.launch_flows = &launch_flows;
  ids.fwdbwd = &fwdbwd;
  ids.has_fwdbwd = has_fwdbwd;
  int64_t flow_base = pages.Table("flows").last_rowid();
  Beside aux([&] {
    if (computed.any()) counts.sql_tables = WriteComputed(trace, pages, ids);
    pages.FlushAux();
  });
  {
    trace.args.Flush();
    std::sort(trace.end_args.begin(), trace.end_args.end(), [](const EndArgs& a, const EndArgs& b) { return a.event < b.event; });
    std::string chunk;
    int chunk_fd = -1;
    uint64_t chunk_off = 0;  // spill offset of chunk[0]
    auto pread_all = [&](int fd, char* buf, size_t want, uint64_t off) {
      size_t got = 0;
      while (got < want) {
        ssize_t r = pread(fd, buf + got, want - got, static_cast<off_t>(off + got));
        if (r < 0) Errorf("{}: cannot read temporary data: {}", trace.path, std::strerror(errno));
        if (r == 0) break;
        got += static_cast<size_t>(r);
      }
      return got;
    };
    auto read_args = [&](int kind, uint64_t off, uint32_t len) -> std::string_view {
      int fd = trace.args.fd(kind);
      if (fd != chunk_fd || off < chunk_off || off + len > chunk_off + chunk.size()) {
        size_t want = std::max<size_t>(len, 4 << 20);
        chunk.resize(want);
        chunk.resize(pread_all(fd, chunk.data(), want, off));
        chunk_fd = fd;
        chunk_off = off;
        if (chunk.size() < len) Errorf("{}: temporary data is short", trace.path);
      }
      return std::string_view(chunk).substr(off - chunk_off, len);
    };
    std::string end_text;
    auto read_end_args = [&](const EndArgs& a) -> std::string_view {
      end_text.resize(a.len);
      if (pread_all(trace.args.fd(ArgSpill::kEndFile), end_text.data(), a.len, a.off) < a.len) {
        Errorf("{}: temporary data is short", trace.path);
      }
      return end_text;
    };
    RowWriter mem(pages, "memory_args (event_id, bytes, addr, total_allocated, total_reserved, device_type, device_id)",
                  1 + kMemoryEnd - kMemoryFirst);
    std::string merged;
    std::vector<char> thread_is_cpu(trace.threads.size());  // threads.kind = 'cpu' (see the threads rows)
    for (size_t k = 0; k < trace.threads.size(); ++k) thread_is_cpu[k] = trace.threads[k].cpu_events > 0;
    // cpu_op_groups: the rows of the cpu_ops view that have a duration, counted per (name, parent
    // op's name, input shape, parent op's input shape); the parent op is the cpu_op_id of the event's
    // parent (the nearest enclosing CPU op, Python frames and annotations skipped).
    struct OpGroup {
      int64_t calls = 0, total = 0;
      uint32_t first = 0;  // write position (new_id) of the group's first op
    };
    struct KeyHash {
      size_t operator()(const std::array<uint32_t, 4>& k) const {
        uint64_t h = 0;
        for (uint32_t v : k) h = (h ^ v) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h ^ (h >> 31));
      }
    };
    std::unordered_map<std::array<uint32_t, 4>, OpGroup, KeyHash> op_groups;
    auto shape_of = [&](const EventRec& ev) -> uint32_t {
      if (!(ev.mask & (1u << kInputShape))) return 0;
      return static_cast<uint32_t>(trace.PromotedValue(ev, kInputShape));
    };
    // The cpu_ops view: the cpu_op kind (cat cpu_op, or Operator but not the ProfilerStep#N) where an
    // Operator's name is also NOT LIKE 'ProfilerStep#%' (LIKE ignores case; the kind does not) and
    // not NULL.
    const uint32_t cat_cpu_op = trace.strings.Find("cpu_op");
    auto in_cpu_ops_view = [&](const EventRec& ev) {
      if (ev.kind != kKindCpuOp) return false;
      if (cat_cpu_op && ev.cat == cat_cpu_op) return true;
      return ev.name && !LikeProfilerStep(trace.strings.Get(ev.name));
    };
    // The rows are prepared on a second thread, in blocks (values resolved, args read back from the
    // spill files and rewritten, groups and stack times counted), while this one encodes them into
    // the events pages and the memory_args rows into theirs (ImportPages).
    struct Row {
      int64_t v[27];       // column c + 1 (ids, times, promoted args, ...), unless NULL
      uint32_t nulls;      // bit c: column c + 1 is NULL
      uint32_t thread;     // trace.threads index (pid, tid)
      uint32_t ph, cat, name;
      uint32_t args_off, args_len;  // arg_values in Block::args (when column 26 is not NULL)
      bool mem;            // a memory_args row too
      uint8_t mem_nulls;   // bit k: memory_args column k + 2 is NULL
      int64_t mv[kMemoryEnd - kMemoryFirst];
    };
    struct Block {
      std::vector<Row> rows;
      std::string args;
    };
    constexpr size_t kBlockRows = 2048;
    // Where the next event of each kind has its args in that kind's spill file: the rows are made
    // in file order within a kind, the order their args were spilled in.
    std::array<uint64_t, kKindCount> args_at{};
    auto fill = [&](Row& r, uint32_t i, std::string& args) {
      const EventRec& e = trace.events[i];
      const uint64_t args_off = args_at[e.kind];
      args_at[e.kind] += e.args_len;
      uint32_t nulls = 0;
      auto put = [&](int col, bool present, int64_t v) {
        if (present) r.v[col - 1] = v; else nulls |= 1u << (col - 1);
      };
      put(1, true, event_base + new_id[i]);
      put(2, true, trace_id);
      put(3, true, thread_base + e.thread + 1);
      r.thread = e.thread;
      r.ph = e.ph;
      r.cat = e.cat;
      r.name = e.name;
      put(9, e.ts != kNullTs, e.ts + base);
      put(10, e.dur != kNullTs, e.dur);
      put(11, trace.depth[i] >= 0, trace.depth[i]);
      put(12, trace.parent[i] != 0, trace.parent[i] ? id_of(trace.parent[i]) : 0);
      put(13, trace.stack[i] != 0, trace.stack[i]);
      if (trace.stack[i] && e.dur != kNullTs && thread_is_cpu[e.thread]) trace.stacks.AddCpuSlice(trace.stack[i], e.dur);
      uint32_t pk = 0;  // the event's promoted values read so far
      for (int k = 0; k < kEventColumns; ++k) {
        bool has = (e.mask & (1u << k)) != 0;
        put(14 + k, has, has ? trace.PromotedAt(e, pk++) : 0);
      }
      r.mem = e.kind == kKindMemory && (e.mask & kMemoryBits);
      if (r.mem) {
        r.mem_nulls = 0;
        for (int k = kMemoryFirst; k < kMemoryEnd; ++k) {
          if (e.mask & (1u << k)) r.mv[k - kMemoryFirst] = trace.PromotedAt(e, pk++); else r.mem_nulls |= 1u << (k - kMemoryFirst);
        }
      } else {
        pk += static_cast<uint32_t>(__builtin_popcount(e.mask & kMemoryBits));
      }
      bool has_shape = (e.mask & (1u << kInputShape)) != 0;
      put(27, has_shape, has_shape ? trace.PromotedAt(e, pk++) : 0);
      size_t at = args.size();
      auto end_it = std::lower_bound(trace.end_args.begin(), trace.end_args.end(), i,
                                     [](const EndArgs& a, uint32_t ev) { return a.event < ev; });
      if (end_it != trace.end_args.end() && end_it->event == i) {
        // B/E pair: the E's args are appended to the slice's args.
        merged.assign(e.args_len ? read_args(e.kind, args_off, e.args_len) : std::string_view("[]"));
        uint32_t shape = e.shape;
        for (; end_it != trace.end_args.end() && end_it->event == i; ++end_it) {
          std::string_view extra = read_end_args(*end_it);
          if (merged.size() > 2) {
            merged.back() = ',';
            merged.append(extra.substr(1));
          } else {
            merged.assign(extra);
          }
          shape = trace.shapes.Concat(shape, end_it->shape);
        }
        put(25, true, shape);
        args.append(merged);
      } else if (e.args_len) {
        put(25, true, e.shape);
        args.append(read_args(e.kind, args_off, e.args_len));
      } else {
        put(25, false, 0);
        put(26, false, 0);
      }
      r.args_off = static_cast<uint32_t>(at);
      r.args_len = static_cast<uint32_t>(args.size() - at);
      if (e.dur != kNullTs && in_cpu_ops_view(e)) {
        uint32_t pop = trace.parent[i] ? trace.op[trace.parent[i] - 1] : 0;
        std::array<uint32_t, 4> key{e.name, pop ? trace.events[pop - 1].name : 0, shape_of(e),
                                    pop ? shape_of(trace.events[pop - 1]) : 0};
        OpGroup& g = op_groups[key];
        if (g.calls++ == 0) g.first = new_id[i];
        g.total += e.dur;
      }
      put(22, trace.op[i] != 0, trace.op[i] ? id_of(trace.op[i]) : 0);
      put(23, trace.top_op[i] != 0, trace.top_op[i] ? id_of(trace.top_op[i]) : 0);
      put(24, trace.Step(i) != kNullTs, trace.Step(i));
      r.nulls = nulls;
    };
    Channel<std::unique_ptr<Block>> full(3), spare(4);
    for (int k = 0; k < 4; ++k) spare.Push(std::make_unique<Block>());
    std::exception_ptr producer_error;
    std::thread producer([&] {
      try {
        for (size_t b = 0; b < order.size(); b += kBlockRows) {
          std::unique_ptr<Block> block;
          if (!spare.Pop(block)) break;
          size_t n = std::min(kBlockRows, order.size() - b);
          block->rows.resize(n);
          block->args.clear();
          for (size_t k = 0; k < n; ++k) fill(block->rows[k], order[b + k], block->args);
          if (!full.Push(std::move(block))) break;
        }
      } catch (...) {
        producer_error = std::current_exception();
      }
      full.Close();
    });
    try {
      // The flows first (the computed tables, made meanwhile on the computing thread, take longer
      // than the events' records: this balances the two), their arrays freed before the events'
      // records are made.
      counts.flows = WriteFlows(trace, pages, ids, flow_base);
      pages.Table("flows").FlushRuns();
      std::vector<FlowPoint>().swap(trace.flow_points);
      std::vector<FlowRow>().swap(trace.flow_rows);
      std::unique_ptr<Block> block;
      btree::Record rec;
      auto id_value = [&](const IdValue& v) -> btree::Record& {
        return v.is_text ? rec.Text(trace.strings.Get(v.text)) : rec.Int(v.i);
      };
      auto opt_text = [&](uint32_t id) -> btree::Record& { return id ? rec.Text(trace.strings.Get(id)) : rec.Null(); };
      auto encode = [&](const Row& r, const Block& b) {  // the record of row r, in ImportPages::kColumns order
        const ThreadRec& t = trace.threads[r.thread];
        auto col = [&](int c) -> btree::Record& {
          return r.nulls & (1u << (c - 1)) ? rec.Null() : rec.Int(r.v[c - 1]);
        };
        rec.Clear();
        rec.Null();  // id: the rowid (INTEGER PRIMARY KEY), stored as NULL in the record
        col(2);
        col(3);
        id_value(t.pid);
        id_value(t.tid);
        rec.Text(trace.strings.Get(r.ph));
        opt_text(r.cat);
        opt_text(r.name);
        for (int c = 9; c <= 25; ++c) col(c);
        if (r.nulls & (1u << 25)) rec.Null(); else rec.Text(std::string_view(b.args).substr(r.args_off, r.args_len));
        col(27);
        pages.events.Append(r.v[0], rec.Encode());
        pages.AddIndexKeys(r.v[2], r.nulls & (1u << 8) ? kNullTs : r.v[8], r.v[0],
                           r.nulls & (1u << 14) ? nullptr : &r.v[14]);
        if (r.mem) {
          mem.Int(r.v[0]);
          for (int k = 0; k < kMemoryEnd - kMemoryFirst; ++k) {
            if (r.mem_nulls & (1u << k)) mem.Null(); else mem.Int(r.mv[k]);
          }
          mem.EndRow();
        }
      };
      while (full.Pop(block)) {
        for (const Row& r : block->rows) encode(r, *block);
        spare.Push(std::move(block));
      }
    } catch (...) {
      full.Cancel();
      spare.Cancel();
      producer.join();
      throw;
    }
    producer.join();
    if (producer_error) std::rethrow_exception(producer_error);
    pages.EndTrace(trace_id);
    counts.events = static_cast<int64_t>(trace.events.size());
    aux.Join();
    // The groups, in the order of their first op.
    std::vector<std::pair<const std::array<uint32_t, 4>*, const OpGroup*>> groups;
    groups.reserve(op_groups.size());
    for (const auto& [key, g] : op_groups) groups.emplace_back(&key, &g);
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second->first < b.second->first; });
    Stmt gs = db.Prepare(
        "INSERT INTO cpu_op_groups (trace_id, name, parent_name, input_shape_id, parent_shape_id, calls, total_ns,"
        " first_event_id) VALUES (?,?,?,?,?,?,?,?)");
    for (const auto& [key, g] : groups) {
      gs.BindInt(1, trace_id);
      for (int k = 0; k < 2; ++k) {
        if ((*key)[k]) gs.BindText(2 + k, trace.strings.Get((*key)[k])); else gs.BindNull(2 + k);
      }
      for (int k = 2; k < 4; ++k) {
        if ((*key)[k]) gs.BindInt(2 + k, (*key)[k]); else gs.BindNull(2 + k);
      }
      gs.BindInt(6, g->calls);
      gs.BindInt(7, g->total);
      gs.BindInt(8, event_base + g->first);
      gs.Run();
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO input_shapes (id, input_dims, input_type) VALUES (?,?,?)");
    const auto& all = trace.input_shapes.shapes();
    for (size_t k = trace.input_shapes.written; k < all.size(); ++k) {
      s.BindInt(1, static_cast<int64_t>(k) + 1);
      if (all[k].has_dims) s.BindText(2, all[k].dims); else s.BindNull(2);
      if (all[k].has_types) s.BindText(3, all[k].types); else s.BindNull(3);
      s.Run();
    }
    trace.input_shapes.written = all.size();
  }
  {
    Stmt s = db.Prepare("INSERT INTO event_ranges (kind, trace_id, first_id, last_id, event_count) VALUES (?,?,?,?,?)");
    int64_t first = event_base + 1;
    for (int k = 0; k < kKindCount; ++k) {
      if (trace.kind_count[k] == 0) continue;
      s.BindText(1, kKindNames[k]);
      s.BindInt(2, trace_id);
      s.BindInt(3, first);
      s.BindInt(4, first + trace.kind_count[k] - 1);
      s.BindInt(5, trace.kind_count[k]);
      s.Run();
      first += trace.kind_count[k];
    }
  }
  {
    Stmt s = db.Prepare("INSERT INTO arg_keys (shape_id, idx, key, path) VALUES (?,?,?,?)");
    const auto& sigs = trace.shapes.sigs();
    for (size_t i = trace.shapes.written; i < sigs.size(); ++i) {
      std::string_view sig = sigs[i];
      int64_t idx = 0, pos = 0;
      while (sig.size() >= 4) {
        uint32_t len;
        std::memcpy(&len, sig.data(), 4);
        bool out_of_line = (len & ArgShapes::kOutOfLine) != 0;
        len &= ~ArgShapes::kOutOfLine;
        s.BindInt(1, static_cast<int64_t>(i) + 1);
        s.BindInt(2, idx);
        s.BindText(3, sig.substr(4, len));
        if (out_of_line) {
          s.BindNull(4);
        } else {
          std::string path = fmt::format("$[{}]", pos++);
          s.BindTextCopy(4, path);
        }
        s.Run();
        sig.remove_prefix(4 + len);
        ++idx;
      }
    }
    trace.shapes.written = sigs.size();
  }
  {
    Stmt s = db.Prepare("INSERT INTO import_stats (trace_id, name, value, severity, description) VALUES (?,?,?,?,?)");
    for (int k = 0; k < static_cast<int>(StatId::kCount); ++k) {
      if (!trace.stats.set[k]) continue;
      s.BindInt(1, trace_id);
      s.BindText(2, kStatInfo[k].name);
      s.BindInt(3, trace.stats.values[k]);
      s.BindText(4, kStatInfo[k].severity);
      s.BindText(5, kStatInfo[k].description);
      s.Run();
    }
  }
  return counts;
}

}  // namespace tracesql
