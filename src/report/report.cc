// The HTML report: runs the bundled queries the page draws, embeds their result sets as JSON next to
// the page's own CSS and script (src/report/assets/, embedded at build time), and writes one file.
#include "tracesql/report.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "tracesql/combine.h"
#include "tracesql/error.h"
#include "tracesql/files.h"
#include "tracesql/output_file.h"
#include "tracesql/params.h"
#include "tracesql/queries.h"
#include "tracesql/render.h"
#include "tracesql/sql_bundle.h"
#include "tracesql/user_db.h"

namespace tracesql {
namespace {

namespace fs = std::filesystem;

std::string_view Asset(std::string_view name) {
  std::string path = "src/report/assets/" + std::string(name);
  for (const auto& f : EmbeddedFiles()) {
    if (f.path == path) return f.text;
  }
  Errorf("report asset {} is not in the binary", path);
}

// A JSON string literal that is also safe inside <script>: '<' is escaped so no "</script>" or
// "<!--" can appear, and bytes that are not UTF-8 become U+FFFD.
void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '<': out += "\\u003c"; break;
        case '>': out += "\\u003e"; break;
        case '&': out += "\\u0026"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            out += fmt::format("\\u{:04x}", c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Multi-byte UTF-8: copied when well formed.
    size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

// One column value as JSON. Integers beyond 2^53 are strings of their exact digits (a JavaScript
// number would round them: epoch nanoseconds are ~1.7e18).
void AppendValue(std::string& out, sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL: out += "null"; break;
    case SQLITE_INTEGER: {
      int64_t v = sqlite3_column_int64(stmt, i);
      constexpr int64_t kExact = int64_t{1} << 53;
      if (v > kExact || v < -kExact) {
        out += fmt::format("\"{}\"", v);
      } else {
        out += std::to_string(v);
      }
      break;
    }
    case SQLITE_FLOAT: {
      std::string t = FormatDouble(sqlite3_column_double(stmt, i));
      out += t.find_first_of("0123456789") == std::string::npos ? "null" : t;
      break;
    }
    case SQLITE_BLOB: {
      const char* b = static_cast<const char*>(sqlite3_column_blob(stmt, i));
      int n = sqlite3_column_bytes(stmt, i);
      AppendJsonString(out, Base64(std::string_view(b ? b : "", b ? static_cast<size_t>(n) : 0)));
      break;
    }
    default: {
      const unsigned char* t = sqlite3_column_text(stmt, i);
      int n = sqlite3_column_bytes(stmt, i);
      AppendJsonString(out, std::string_view(reinterpret_cast<const char*>(t ? t : reinterpret_cast<const unsigned char*>("")),
                                             t ? static_cast<size_t>(n) : 0));
    }
  }
}

// Runs every statement of sql, params bound; the last statement that returns columns is written
// to out as "columns":[...],"rows":[[...],...]. Throws tracesql::Error with SQLite's message.
void RunInto(sqlite3* db, std::string_view sql, const Params& params, std::string& out) {
  std::string result = "\"columns\":[],\"rows\":[]";
  const char* p = sql.data();
  const char* end = sql.data() + sql.size();
  while (p < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db, p, static_cast<int>(end - p), &stmt, &tail) != SQLITE_OK) {
      Errorf("{}", sqlite3_errmsg(db));
    }
    p = tail;
    if (!stmt) continue;  // whitespace or a comment
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    BindParams(stmt, params);
    int ncol = sqlite3_column_count(stmt);
    std::string cols, body;
    for (int i = 0; i < ncol; ++i) {
      if (i) cols += ',';
      const char* n = sqlite3_column_name(stmt, i);
      AppendJsonString(cols, n ? n : "");
    }
    int rc;
    bool first = true;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      body += first ? "[" : ",[";
      first = false;
      for (int i = 0; i < ncol; ++i) {
        if (i) body += ',';
        AppendValue(body, stmt, i);
      }
      body += ']';
    }
    if (rc != SQLITE_DONE) Errorf("{}", sqlite3_errmsg(db));
    if (ncol > 0) result = "\"columns\":[" + cols + "],\"rows\":[" + body + "]";
  }
  out += result;
}

// `"KEY":{"key":...,"query":...,"command":...[,"source":...],` : a dataset's opening, its rows to follow.
// source: where the rows come from when not from running the query here ("advise"), else empty.
void AppendDatasetHead(std::string& out, const std::string& key, const std::string& query_name,
                       const std::string& command, const std::string& source) {
  AppendJsonString(out, key);
  out += ":{\"key\":";
  AppendJsonString(out, key);
  out += ",\"query\":";
  AppendJsonString(out, query_name);
  out += ",\"command\":";
  AppendJsonString(out, command);
  if (!source.empty()) {
    out += ",\"source\":";
    AppendJsonString(out, source);
  }
  out += ',';
}

// The dataset's rows: run(body) writes them ("columns":[...],"rows":[...]); its tracesql::Error is the
// dataset's "error" (the page shows the query as failed).
void AppendRows(std::string& out, const std::function<void(std::string&)>& run) {
  std::string body;
  try {
    run(body);
    out += body;
  } catch (const Error& e) {
    out += "\"columns\":[],\"rows\":[],\"error\":";
    AppendJsonString(out, e.what());
  }
  out += '}';
}

void AppendDataset(std::string& out, sqlite3* db, const std::string& key, const std::string& query_name,
                   const std::string& sql, const std::string& command, const Params& params,
                   const std::string& source) {
  AppendDatasetHead(out, key, query_name, command, source);
  AppendRows(out, [&](std::string& body) { RunInto(db, sql, params, body); });
}

// A dataset this page cannot have, and why (the page shows it as not available).
void AppendUnavailable(std::string& out, const std::string& key, const std::string& query_name,
                       const std::string& command, const std::string& why) {
  AppendDatasetHead(out, key, query_name, command, {});
  out += "\"columns\":[],\"rows\":[],\"unavailable\":";
  AppendJsonString(out, why);
  out += '}';
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// The template with each @NAME@ marker replaced, in one pass over the template only (a value that
// holds a marker's text is never searched).
std::string FillTemplate(std::string_view tpl, const std::vector<std::pair<std::string_view, std::string_view>>& values) {
  std::string out;
  size_t pos = 0;
  while (pos < tpl.size()) {
    size_t at = tpl.find('@', pos);
    if (at == std::string_view::npos) break;
    bool replaced = false;
    for (const auto& [marker, value] : values) {
      if (tpl.substr(at, marker.size()) == marker) {
        out.append(tpl.substr(pos, at - pos));
        out.append(value);
        pos = at + marker.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out.append(tpl.substr(pos, at + 1 - pos));
      pos = at + 1;
    }
  }
  out.append(tpl.substr(std::min(pos, tpl.size())));
  return out;
}

}  // namespace

std::string ShellWord(std::string_view s) {
  bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%") ==
                                 std::string_view::npos;
  if (plain) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}


const std::vector<ReportDataset>& ReportDatasets() {
  // cost_ms: CPU ms of the query on the 16-rank, 2.19 M-event database of bench/README.md (Report).
  static const std::vector<ReportDataset> kDatasets = {
      {"overview", "overview", {}, 220},
      {"devices", "worst_devices", {{"limit", std::to_string(kDeviceCharts)}}, 500},
      {"temporal", "temporal_breakdown", {}, 270},
      {"util", "gpu_utilization", {{"buckets", "200"}}, 300},
      {"steps", "step_breakdown", {}, 330},
      {"step_summary", "step_summary", {}, 30},
      {"kernels", "top_kernels", {{"limit", "20"}}, 200},
      {"cpu_ops", "op_summary", {{"sort", "cpu_self"}, {"limit", "20"}}, 80},
      {"idle", "idle_breakdown", {{"top_ops", "10"}}, 550},
      {"comm", "comm_overlap", {{"per_step", "0"}}, 50},
      {"collectives", "collectives", {}, 350},
      {"coll_ranks", "collective_ranks", {{"top", "100"}}, 310},
      {"memory", "memory_timeline", {{"points", "400"}}, 1220},
      {"memory_peak", "memory_peak", {}, 10},
      {"launch_hist", "launch_delay_histogram", {}, 190},
      {"launch_worst", "launch_delays", {{"limit", "15"}}, 290},
  };
  return kDatasets;
}

std::vector<ReportDataset> ReportDatasetsFor(int64_t devices) {
  struct Budget {
    const char* key;
    const char* param;
    int64_t points;  // over all devices
    int64_t floor;   // per device
  };
  // 16 devices get ReportDatasets()'s values (200 buckets, 400 points, 100 collectives); 256 devices
  // 16 buckets, 25 points and 10 collectives each (the page: 14 MB -> under 3 MB).
  static constexpr Budget kBudgets[] = {
      {"util", "buckets", 3200, 16},
      {"memory", "points", 6400, 25},
      {"coll_ranks", "top", 1600, 10},
  };
  std::vector<ReportDataset> out = ReportDatasets();
  if (devices <= 0) return out;
  if (devices <= kDeviceCharts) {
    // Every device gets its charts: no need to choose them (worst_devices costs about as much as
    // overview and collectives together).
    out.erase(std::remove_if(out.begin(), out.end(), [](const ReportDataset& d) { return d.key == "devices"; }),
              out.end());
    return out;
  }
  for (ReportDataset& d : out) {
    for (const Budget& b : kBudgets) {
      if (d.key != b.key) continue;
      for (auto& [name, value] : d.params) {
        if (name != b.param) continue;
        int64_t most = std::stoll(value);
        value = std::to_string(std::min(most, std::max(b.floor, b.points / devices)));
      }
    }
  }
  return out;
}

namespace {

// The database's traces (ReportOptions::devices when not given): one GPU each in a job of one trace
// per rank. A partition directory holds one trace a partition (ReportJob in src/cli/report.cc).
int64_t CountTraces(const std::string& db_path) {
  UserDb db = UserDb::Open(db_path, /*any_db=*/false);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(), "SELECT count(*) FROM traces", -1, &stmt, nullptr) != SQLITE_OK) {
    Errorf("{}: {}", db_path, sqlite3_errmsg(db.get()));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
  return sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
}

// One dataset of the page: its bundled query and parameters, the `tracesql run` line that prints it,
// and its JSON once made.
struct DatasetJob {
  std::string key, query, sql, command;
  QueryFile file;  // the bundled query
  Params params;
  std::string json;
  bool after_findings = false;  // runs on the findings job's connection, after it (Findings::shared)
  int cost_ms = 0;              // ReportDataset::cost_ms: the longest start first
};

// The jobs of ReportDatasets(), their `tracesql run` lines naming label.
std::vector<DatasetJob> DatasetJobs(const std::string& label, int64_t devices) {
  std::vector<DatasetJob> jobs;
  for (const ReportDataset& d : ReportDatasetsFor(devices)) {
    auto q = FindQuery(d.query, {});
    if (!q || !q->builtin) Errorf("bundled query {} is missing", d.query);
    DatasetJob job{d.key, d.query, q->text, "tracesql run " + ShellWord(label) + " " + d.query, *q, {}, {}, false, d.cost_ms};
    for (const auto& [k, v] : d.params) {
      job.params[k] = v;
      job.command += " -p " + ShellWord(k + "=" + v);
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

size_t Threads(const ReportOptions& options) {
  return options.threads > 0 ? static_cast<size_t>(options.threads)
                             : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
}

// The page: the datasets' JSON (in jobs' order) with the page's HTML, CSS and script.
std::string PageHtml(const std::string& label, const std::vector<const std::string*>& datasets) {
  std::string data = "{\"meta\":{\"database\":";
  AppendJsonString(data, label);
  data += ",\"version\":";
  AppendJsonString(data, TRACESQL_VERSION);
  data += ",\"written\":";
  AppendJsonString(data, UtcNow());
  data += "},\"datasets\":{";
  for (size_t i = 0; i < datasets.size(); ++i) {
    if (i) data += ',';
    data += *datasets[i];
  }
  data += "}}";

  // "job/" names the directory job.
  fs::path name = fs::path(label).lexically_normal();
  if (name.filename().empty()) name = name.parent_path();
  std::string title = HtmlEscape(name.filename().string());
  return FillTemplate(Asset("report.html"), {{"@VERSION@", TRACESQL_VERSION},
                                             {"@TITLE@", title},
                                             {"@CSS@", Asset("report.css")},
                                             {"@DATA@", data},
                                             {"@JS@", Asset("report.js")}});
}

}  // namespace

std::string BuildReportHtml(const std::string& db_path, const ReportOptions& options) {
  // The datasets' JSON, each made on its own: the queries run on up to `threads` connections at once.
  std::vector<DatasetJob> jobs;
  if (options.findings) {
    // The advisor runs every rule: the longest job.
    jobs.push_back({"findings", "advise", options.findings->sql, options.findings->command, {}, {}, {}, false, 1 << 30});
  }
  int64_t devices = options.devices > 0 ? options.devices : CountTraces(db_path);
  std::vector<DatasetJob> page = DatasetJobs(options.db_label, devices);
  for (size_t i = 0; i < page.size(); ++i) {
    DatasetJob& job = page[i];
    if (options.findings) {
      // Findings::shared names datasets run with ReportDatasets()'s parameters: one sized for
      // many devices runs on its own.
      const auto& shared = options.findings->shared;
      const auto& all = ReportDatasets();
      auto few = std::find_if(all.begin(), all.end(), [&](const ReportDataset& d) { return d.key == job.key; });
      job.after_findings = std::find(shared.begin(), shared.end(), job.key) != shared.end() && few != all.end() &&
                           job.params == Params(few->params.begin(), few->params.end());
    }
    jobs.push_back(std::move(job));
  }
  size_t threads = std::min(Threads(options), jobs.size());
  // The jobs start longest first (page order among equals).
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].cost_ms > jobs[b].cost_ms; });
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    try {
      UserDb db = UserDb::Open(db_path, /*any_db=*/false);
      for (size_t n; (n = next.fetch_add(1)) < jobs.size();) {
        size_t i = order[n];
        DatasetJob& j = jobs[i];
        if (j.after_findings) continue;  // done by the findings job
        if (options.findings && i == 0) {
          // The findings, then on the same connection the datasets that share its work: from the
          // tables prepare left, or run here when prepare did not compute them.
          std::map<std::string, std::string> tables;
          if (options.findings->prepare) tables = options.findings->prepare(db.get());
          AppendDataset(j.json, db.get(), j.key, j.query, j.sql, j.command, j.params, {});
          for (DatasetJob& s : jobs) {
            if (!s.after_findings) continue;
            auto t = tables.find(s.key);
            if (t == tables.end()) {
              AppendDataset(s.json, db.get(), s.key, s.query, s.sql, s.command, s.params, {});
            } else {
              std::string table;
              for (char c : t->second) table += c == '"' ? std::string("\"\"") : std::string(1, c);
              std::string read = "SELECT * FROM temp.\"" + table + "\" ORDER BY rowid";
              AppendDataset(s.json, db.get(), s.key, s.query, read, s.command, {}, "advise");
            }
          }
          continue;
        }
        AppendDataset(j.json, db.get(), j.key, j.query, j.sql, j.command, j.params, {});
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next = jobs.size();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  std::vector<const std::string*> datasets;
  for (const DatasetJob& j : jobs) datasets.push_back(&j.json);
  return PageHtml(options.db_label, datasets);
}

std::string BuildJobReportHtml(const JobQuery& run, const ReportOptions& options) {
  std::string merge = fmt::format("tracesql merge {} -o job.db", ShellWord(options.db_label));
  std::vector<DatasetJob> jobs = DatasetJobs(options.db_label, options.devices);
  // One dataset after the other, each on the partitions in parallel (a job has more partitions than
  // cores, the page a dozen datasets).
  for (DatasetJob& j : jobs) {
    if (!CombiningSql(j.query)) {
      AppendUnavailable(j.json, j.key, j.query, j.command,
                        fmt::format("{} does not combine over partitions yet (no queries/combine/{}.sql): merge them "
                                    "first ({}) and report the merged database",
                                    j.query, j.query, merge));
      continue;
    }
    AppendDatasetHead(j.json, j.key, j.query, j.command, {});
    AppendRows(j.json, [&](std::string& body) {
      run(j.file, j.params, [&](sqlite3* db, std::string_view sql, const SqlSource&, const Params& params) {
        RunInto(db, sql, params, body);
      });
    });
  }
  // The rules read one database: some compare the ranks (stragglers), and their evidence names the
  // job's event and trace ids, which a partition does not know.
  std::string findings;
  AppendUnavailable(findings, "findings", "advise", fmt::format("{} && tracesql advise job.db", merge),
                    fmt::format("the advisor's rules read one database (some compare the ranks, and the evidence "
                                "names the job's event ids): merge the partitions first ({}) and report or advise "
                                "the merged database",
                                merge));
  std::vector<const std::string*> datasets{&findings};
  for (const DatasetJob& j : jobs) datasets.push_back(&j.json);
  return PageHtml(options.db_label, datasets);
}

void WriteReportFile(const std::string& html, const std::string& out_path, bool force,
                     const std::vector<std::string>& inputs) {
  if (out_path.empty()) Errorf("give the report's file with -o FILE.html");
  CheckNewOutput(out_path, force, inputs, "report");
  OutputFile file(out_path, /*gzip=*/false);
  file.Write(html);
  file.Commit();
}

}  // namespace tracesql
