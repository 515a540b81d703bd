#include "tracesql/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <vector>

#include "tracesql/chrome_trace.h"
#include "tracesql/error.h"
#include "tracesql/short_name.h"

namespace tracesql {
namespace {

struct Cell {
  int type;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  std::string text;  // the value as text; for a blob its raw bytes
};

Cell ReadCell(sqlite3_stmt* stmt, int i) {
  Cell c;
  c.type = sqlite3_column_type(stmt, i);
  switch (c.type) {
    case SQLITE_INTEGER:
      c.text = std::to_string(sqlite3_column_int64(stmt, i));
      break;
    case SQLITE_FLOAT:
      c.text = FormatDouble(sqlite3_column_double(stmt, i));
      break;
    case SQLITE_NULL:
      break;
    case SQLITE_BLOB: {
      const char* b = static_cast<const char*>(sqlite3_column_blob(stmt, i));
      int n = sqlite3_column_bytes(stmt, i);
      if (b && n > 0) c.text.assign(b, static_cast<size_t>(n));
      break;
    }
    default: {
      const unsigned char* t = sqlite3_column_text(stmt, i);
      int n = sqlite3_column_bytes(stmt, i);
      if (t && n > 0) c.text.assign(reinterpret_cast<const char*>(t), static_cast<size_t>(n));
    }
  }
  return c;
}

// A blob as SQL writes it: x'0a1b'.
std::string BlobLiteral(std::string_view bytes) {
  std::string out = "x'";
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  out += "'";
  return out;
}

// The text of a cell in the text formats (csv, tsv, tables): NULL as null_text, blobs as x'..'.
std::string CellText(const Cell& c, const RenderOptions& o) {
  if (c.type == SQLITE_NULL) return o.null_text;
  if (c.type == SQLITE_BLOB) return BlobLiteral(c.text);
  return c.text;
}

// RFC 4180: a field holding the separator, a quote, CR or LF is quoted, quotes doubled. Appended to
// out (a result of 500,000 rows is millions of fields: no string is made per field).
void AppendCsvField(std::string_view s, char sep, std::string& out) {
  const char specials[] = {'"', '\r', '\n', sep};
  if (s.find_first_of(std::string_view(specials, sizeof specials)) == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

std::string CsvField(std::string_view s, char sep) {
  std::string out;
  AppendCsvField(s, sep, out);
  return out;
}

// One CSV/TSV field of column i of the current row, appended to out: integers formatted in place,
// text quoted only when it must be.
void AppendCsvCell(sqlite3_stmt* stmt, int i, char sep, const RenderOptions& o, std::string& out) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: {
      fmt::format_int text(sqlite3_column_int64(stmt, i));
      out.append(text.data(), text.size());
      break;
    }
    case SQLITE_TEXT: {
      const char* t = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      size_t n = static_cast<size_t>(sqlite3_column_bytes(stmt, i));
      AppendCsvField(t ? std::string_view(t, n) : std::string_view(), sep, out);
      break;
    }
    default:  // NULL, float, blob: as the other text formats write them
      AppendCsvField(CellText(ReadCell(stmt, i), o), sep, out);
  }
}

// Decodes one UTF-8 code point at s[i]. Returns its length (1..4), or 0 when the bytes there are not
// valid UTF-8 (overlong forms, surrogates and values above U+10FFFF included).
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  uint32_t v;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    v = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    v = (v << 6) | (cc & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

}  // namespace

// JSON string literal of s. Always valid JSON: control characters are escaped and bytes that are not
// UTF-8 become U+FFFD.
std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = DecodeUtf8(s, i, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20) {
      out += fmt::format("\\u{:04x}", cp);
    } else {
      out += static_cast<char>(cp);
    }
    i += n;
  }
  return out + "\"";
}

namespace {

std::string JsonValue(const Cell& c) {
  switch (c.type) {
    case SQLITE_NULL: return "null";
    case SQLITE_INTEGER: return c.text;
    case SQLITE_FLOAT: {
      if (c.text.find_first_of("0123456789") == std::string::npos) return "null";  // inf / nan
      return c.text;
    }
    case SQLITE_BLOB: return "\"" + Base64(c.text) + "\"";
    default: return JsonString(c.text);
  }
}

// Terminal columns of one code point (a small wcwidth: East Asian wide/fullwidth ranges and emoji are
// 2, combining marks and zero-width characters 0).
size_t CodePointWidth(uint32_t cp) {
  if (cp == 0) return 0;
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
      (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE20 && cp <= 0xFE2F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F)) {
    return 0;
  }
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
      (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD)) {
    return 2;
  }
  return 1;
}

std::string Pad(const std::string& s, size_t width, bool right) {
  size_t w = DisplayWidth(s);
  if (w >= width) return s;
  std::string pad(width - w, ' ');
  return right ? pad + s : s + pad;
}

// A value as shown in the table formats: on one line, with no control characters that would move the
// cursor or change the terminal (a trace can hold any text).
std::string OneLine(std::string s) {
  for (auto& ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '\n' || ch == '\t' || ch == '\r') {
      ch = ' ';
    } else if (u < 0x20 || u == 0x7F) {
      ch = '?';
    }
  }
  return s;
}

// Column widths that fit max_width: the widest columns give up space first (each keeps at least
// min(natural, 5) columns), and whatever is left over goes back to the cut columns in order.
std::vector<size_t> FitWidths(const std::vector<size_t>& natural, size_t max_width) {
  size_t n = natural.size();
  size_t frame = 3 * n + 1;
  size_t total = frame;
  for (size_t w : natural) total += w;
  if (max_width == 0 || total <= max_width) return natural;
  size_t budget = max_width > frame ? max_width - frame : 0;
  std::vector<size_t> floor_w(n);
  size_t floor_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    floor_w[i] = std::min<size_t>(natural[i], 5);
    floor_sum += floor_w[i];
  }
  if (budget <= floor_sum) return floor_w;
  // Largest cap c with sum(max(floor, min(natural, c))) <= budget.
  auto used = [&](size_t c) {
    size_t s = 0;
    for (size_t i = 0; i < n; ++i) s += std::max(floor_w[i], std::min(natural[i], c));
    return s;
  };
  size_t lo = 0, hi = *std::max_element(natural.begin(), natural.end());
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (used(mid) <= budget) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::vector<size_t> out(n);
  size_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = std::max(floor_w[i], std::min(natural[i], lo));
    sum += out[i];
  }
  for (size_t i = 0; i < n && sum < budget; ++i) {
    if (out[i] < natural[i]) {
      ++out[i];
      ++sum;
    }
  }
  return out;
}

// ---- bar: horizontal bars of the last numeric column, or one sparkline per series ----

bool IsNumeric(const Cell& c) { return c.type == SQLITE_INTEGER || c.type == SQLITE_FLOAT; }

// Columns whose values (NULL aside) are all numbers, and at least one is.
std::vector<bool> NumericColumns(const std::vector<std::vector<Cell>>& rows, size_t ncol) {
  std::vector<bool> numeric(ncol, false), other(ncol, false);
  for (const auto& r : rows) {
    for (size_t i = 0; i < ncol; ++i) {
      if (IsNumeric(r[i])) numeric[i] = true;
      if (r[i].type == SQLITE_TEXT || r[i].type == SQLITE_BLOB) other[i] = true;
    }
  }
  for (size_t i = 0; i < ncol; ++i) numeric[i] = numeric[i] && !other[i];
  return numeric;
}

bool IsTimeColumn(std::string_view name) {
  return name == "ts" || name == "offset_ns" || name == "bucket" || name == "window_ts" || name == "cpu_ts" ||
         name == "step" || name == "start_ts";
}

double CellNumber(const Cell& c) { return IsNumeric(c) ? std::strtod(c.text.c_str(), nullptr) : 0.0; }

// Appends n copies of s.
void Repeat(std::string& out, std::string_view s, size_t n) {
  for (size_t i = 0; i < n; ++i) out += s;
}

template <typename StepFn>
int64_t RenderBars(sqlite3_stmt* stmt, const RenderOptions& o, const std::vector<std::string>& names, StepFn&& step,
                   std::string& out) {
  const size_t ncol = names.size();
  std::vector<std::vector<Cell>> rows;
  while (step()) {
    std::vector<Cell> row;
    for (size_t i = 0; i < ncol; ++i) row.push_back(ReadCell(stmt, static_cast<int>(i)));
    rows.push_back(std::move(row));
  }
  if (ncol == 0) return 0;
  const size_t width = o.max_width > 0 ? o.max_width : 80;
  std::vector<bool> numeric = NumericColumns(rows, ncol);
  size_t value = ncol;
  for (size_t i = ncol; i-- > 0;) {
    if (numeric[i]) {
      value = i;
      break;
    }
  }
  if (rows.empty()) {
    if (o.header) out += OneLine(names.back()) + "\n";
    return 0;
  }
  if (value == ncol) Errorf("bar format: the result has no numeric column to draw");
  std::vector<size_t> label_cols;  // the first column holding text names a bar
  for (size_t i = 0; i < ncol && label_cols.empty(); ++i) {
    bool text = false;
    for (const auto& r : rows) text = text || r[i].type == SQLITE_TEXT || r[i].type == SQLITE_BLOB;
    if (i != value && text) label_cols.push_back(i);
  }
  double lo = 0, hi = 0;
  for (const auto& r : rows) {
    if (!IsNumeric(r[value])) continue;
    double v = CellNumber(r[value]);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  size_t time_col = ncol;
  for (size_t i = 0; i < ncol; ++i) {
    if (i != value && numeric[i] && IsTimeColumn(names[i])) {  // (keys before it may be NULL)
      time_col = i;
      break;
    }
  }
  // A time series (a time column and no text to name rows by): one sparkline per series, a series
  // being the values of the numeric columns before the time column.
  if (label_cols.empty() && time_col < value) {
    static constexpr std::string_view kSpark[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static constexpr std::string_view kAsciiSpark[] = {"_", ".", "-", "~", "=", "+", "*", "#"};
    if (o.header) {
      out += fmt::format("{} by {}: min {}, max {}\n", OneLine(names[value]), OneLine(names[time_col]),
                         FormatDouble(lo), FormatDouble(hi));
    }
    std::string key, line;
    size_t line_w = 0, indent = 0;
    auto flush = [&] {
      if (!line.empty()) out += line + "\n";
      line.clear();
      line_w = 0;
    };
    for (const auto& r : rows) {
      std::string k;
      for (size_t i = 0; i < time_col; ++i) {
        k += (k.empty() ? "" : " ") + OneLine(names[i]) + "=" + CellText(r[i], o);
      }
      if (k != key || line.empty()) {
        flush();
        key = k;
        line = k.empty() ? std::string() : k + " ";
        line_w = indent = DisplayWidth(line);
        if (indent > width / 2) {  // a long key on a line of its own
          out += line + "\n";
          line.clear();
          line_w = indent = 0;
        }
      }
      if (line_w >= width) {
        flush();
        line = std::string(indent, ' ');
        line_w = indent;
      }
      if (!IsNumeric(r[value])) {
        line += ' ';
      } else {
        double f = hi > lo ? (CellNumber(r[value]) - lo) / (hi - lo) : 1.0;
        size_t level = std::min<size_t>(7, static_cast<size_t>(f * 7.0 + 0.5));
        line += o.ascii ? kAsciiSpark[level] : kSpark[level];
      }
      ++line_w;
    }
    flush();
    return static_cast<int64_t>(rows.size());
  }
  // Bars: label | bar | value.
  if (label_cols.empty() && value != 0) label_cols.push_back(0);
  std::vector<std::string> labels, values;
  size_t label_w = 0, value_w = DisplayWidth(OneLine(names[value]));
  std::string label_head;
  for (size_t i : label_cols) label_head += (label_head.empty() ? "" : " · ") + OneLine(names[i]);
  label_w = DisplayWidth(label_head);
  for (const auto& r : rows) {
    std::string l;
    for (size_t i : label_cols) l += (l.empty() ? "" : " · ") + OneLine(CellText(r[i], o));
    label_w = std::max(label_w, DisplayWidth(l));
    labels.push_back(std::move(l));
    values.push_back(OneLine(CellText(r[value], o)));
    value_w = std::max(value_w, DisplayWidth(values.back()));
  }
  // The bar gets at least half of what the value leaves; labels are cut (keeping a C++ name's own
  // name: FitName) to fit the rest.
  size_t room = width > value_w + 2 ? width - value_w - 2 : 20;
  label_w = std::min(label_w, std::max<size_t>(room / 2, 8));
  size_t bar_w = room > label_w ? std::max<size_t>(room - label_w, 4) : 4;
  const std::string_view sep = o.ascii ? "|" : "│";
  if (o.header) {
    out += Pad(TruncateToWidth(label_head, label_w), label_w, false) + " " + std::string(bar_w, ' ') + " " +
           Pad(OneLine(names[value]), value_w, true) + "\n";
  }
  static constexpr std::string_view kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  for (size_t k = 0; k < rows.size(); ++k) {
    const Cell& c = rows[k][value];
    size_t eighths = 0;
    if (IsNumeric(c) && hi > 0) {
      double v = CellNumber(c);
      if (v > 0) eighths = static_cast<size_t>(v / hi * static_cast<double>(bar_w * 8) + 0.5);
    }
    std::string bar;
    size_t full = eighths / 8, used = full;
    if (o.ascii) {
      full = (eighths + 4) / 8;
      used = full;
      Repeat(bar, "#", full);
    } else {
      Repeat(bar, "█", full);
      if (eighths % 8) {
        bar += kEighths[eighths % 8];
        ++used;
      }
    }
    bar += std::string(bar_w > used ? bar_w - used : 0, ' ');
    std::string label = FitName(labels[k], label_w);
    if (o.ascii && label.size() >= 3 && label.compare(label.size() - 3, 3, "…") == 0) {
      label.replace(label.size() - 3, 3, "~");  // the cut mark in ASCII
    }
    out += Pad(label, label_w, false) + std::string(sep) + bar + " " +
           Pad(values[k], value_w, true) + "\n";
  }
  return static_cast<int64_t>(rows.size());
}

using FlushFn = std::function<void(std::string&)>;

// --format trace: each row becomes a Chrome-trace event (chrome_trace::ResultEvents) in the process
// "tracesql", on the thread its track column names ("result" without one).
int64_t RenderTrace(sqlite3_stmt* stmt, std::string& out, const FlushFn* flush) {
  chrome_trace::ResultEvents rows(stmt, "--format trace");
  chrome_trace::Writer writer(out, flush);
  chrome_trace::Event e;
  while (rows.Next(e)) {
    e.pid = "\"tracesql\"";
    e.tid = rows.track().value_or("\"result\"");
    writer.Add(e);
  }
  writer.Finish();
  return rows.rows();
}

int64_t Render(sqlite3_stmt* stmt, const RenderOptions& o, std::string& out, const FlushFn* flush) {
  int ncol = sqlite3_column_count(stmt);
  std::vector<std::string> names;
  for (int i = 0; i < ncol; ++i) {
    const char* n = sqlite3_column_name(stmt, i);
    names.emplace_back(n ? n : "");
  }
  auto step = [&]() -> bool {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Errorf("{}", sqlite3_errmsg(sqlite3_db_handle(stmt)));
  };
  auto maybe_flush = [&] {
    if (flush && out.size() >= (64 << 10)) (*flush)(out);
  };
  if (o.mode == OutputMode::kBar) return RenderBars(stmt, o, names, step, out);
  if (o.mode == OutputMode::kTrace) return RenderTrace(stmt, out, flush);
  int64_t rows = 0;
  const bool streaming = o.mode == OutputMode::kCsv || o.mode == OutputMode::kTsv || o.mode == OutputMode::kJsonl ||
                         o.mode == OutputMode::kLine || o.mode == OutputMode::kJson || o.mode == OutputMode::kFolded;
  if (streaming) {
    char sep = o.mode == OutputMode::kTsv ? '\t' : ',';
    if ((o.mode == OutputMode::kCsv || o.mode == OutputMode::kTsv) && o.header && ncol > 0) {
      for (int i = 0; i < ncol; ++i) {
        if (i) out += sep;
        out += CsvField(names[static_cast<size_t>(i)], sep);
      }
      out += '\n';
    }
    if (o.mode == OutputMode::kJson && ncol > 0) out += "[";
    size_t name_w = 0;
    for (auto& n : names) name_w = std::max(name_w, DisplayWidth(n));
    std::vector<std::string> json_names;
    for (auto& n : names) json_names.push_back(JsonString(n));
    const bool csv = o.mode == OutputMode::kCsv || o.mode == OutputMode::kTsv;
    std::vector<Cell> row;
    while (step()) {
      row.clear();
      if (!csv)
        for (int i = 0; i < ncol; ++i) row.push_back(ReadCell(stmt, i));
      switch (o.mode) {
        case OutputMode::kCsv:
        case OutputMode::kTsv:
          for (int i = 0; i < ncol; ++i) {
            if (i) out += sep;
            AppendCsvCell(stmt, i, sep, o, out);
          }
          out += '\n';
          break;
        case OutputMode::kJson:
        case OutputMode::kJsonl: {
          if (o.mode == OutputMode::kJson) out += rows ? ",\n" : "\n";
          out += '{';
          for (int i = 0; i < ncol; ++i) {
            if (i) out += ',';
            out += json_names[static_cast<size_t>(i)] + ":" + JsonValue(row[static_cast<size_t>(i)]);
          }
          out += '}';
          if (o.mode == OutputMode::kJsonl) out += '\n';
          break;
        }
        case OutputMode::kFolded:  // one record per line: values on one line, split by spaces only
          for (int i = 0; i < ncol; ++i) {
            if (i) out += ' ';
            out += OneLine(CellText(row[static_cast<size_t>(i)], o));
          }
          out += '\n';
          break;
        default:  // line
          if (rows) out += '\n';
          for (int i = 0; i < ncol; ++i) {
            out += Pad(OneLine(names[static_cast<size_t>(i)]), name_w, true) + " = " +
                   OneLine(CellText(row[static_cast<size_t>(i)], o)) + "\n";
          }
          break;
      }
      ++rows;
      maybe_flush();
    }
    if (o.mode == OutputMode::kJson && ncol > 0) out += rows ? "\n]\n" : "]\n";
    return rows;
  }
  // Tabular modes: collect, measure, draw.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::vector<bool>> right_aligned;
  std::vector<std::string> heads;
  for (auto& n : names) heads.push_back(OneLine(n));
  std::vector<size_t> width;
  for (auto& h : heads) width.push_back(DisplayWidth(h));
  const bool md = o.mode == OutputMode::kMarkdown;
  while (step()) {
    std::vector<std::string> row;
    std::vector<bool> right;
    for (int i = 0; i < ncol; ++i) {
      Cell c = ReadCell(stmt, i);
      std::string s = OneLine(CellText(c, o));
      if (md) {
        std::string esc;
        for (char ch : s) {
          if (ch == '|') esc += '\\';
          esc += ch;
        }
        s = std::move(esc);
      }
      width[static_cast<size_t>(i)] = std::max(width[static_cast<size_t>(i)], DisplayWidth(s));
      right.push_back(c.type == SQLITE_INTEGER || c.type == SQLITE_FLOAT);
      row.push_back(std::move(s));
    }
    cells.push_back(std::move(row));
    right_aligned.push_back(std::move(right));
    ++rows;
  }
  if (ncol == 0) return rows;
  if (md) {
    for (auto& w : width) w = std::max<size_t>(w, 3);  // a delimiter cell needs three dashes
  }
  if (!md && o.max_width > 0) {
    std::vector<size_t> fit = FitWidths(width, o.max_width);
    for (size_t i = 0; i < fit.size(); ++i) {
      if (fit[i] >= width[i]) continue;
      width[i] = fit[i];
      heads[i] = TruncateToWidth(heads[i], fit[i]);
      // A long C++ name keeps what tells it apart (its own name, then its template arguments), not
      // the first columns of "void at::native::...".
      for (auto& row : cells) row[i] = FitName(row[i], fit[i]);
    }
  }
  auto rule = [&](const char* l, const char* m, const char* r, const char* h) {
    out += l;
    for (size_t i = 0; i < width.size(); ++i) {
      if (i) out += m;
      for (size_t k = 0; k < width[i] + 2; ++k) out += h;
    }
    out += r;
    out += '\n';
  };
  const bool box = o.mode == OutputMode::kBox;
  const char* v = box ? "│" : "|";
  if (!md) box ? rule("┌", "┬", "┐", "─") : rule("+", "+", "+", "-");
  if (o.header || md) {
    out += v;
    for (size_t i = 0; i < width.size(); ++i) out += " " + Pad(heads[i], width[i], false) + " " + v;
    out += '\n';
    if (md) {
      out += "|";
      for (size_t i = 0; i < width.size(); ++i) {
        bool num = !cells.empty() && right_aligned[0][i];
        out += " " + std::string(width[i] - (num ? 1 : 0), '-') + (num ? ":" : "") + " |";
      }
      out += '\n';
    } else {
      box ? rule("├", "┼", "┤", "─") : rule("+", "+", "+", "-");
    }
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    out += v;
    for (size_t i = 0; i < width.size(); ++i) out += " " + Pad(cells[r][i], width[i], right_aligned[r][i]) + " " + v;
    out += '\n';
    maybe_flush();
  }
  if (!md) box ? rule("└", "┴", "┘", "─") : rule("+", "+", "+", "-");
  return rows;
}

}  // namespace

std::string FormatDouble(double v) {
  std::string s = fmt::format("{}", v);
  // Keep reals recognisable as reals (5.0, not 5), as the sqlite3 shell and Python do.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    uint32_t v = at(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    uint32_t v = (at(i) << 16) | (at(i + 1) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

size_t DisplayWidth(std::string_view text) {
  size_t w = 0;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t n = DecodeUtf8(text, i, &cp);
    if (n == 0) {
      ++w;
      ++i;
      continue;
    }
    w += CodePointWidth(cp);
    i += n;
  }
  return w;
}

std::string TruncateToWidth(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  size_t target = width - 1;  // room for the ellipsis
  size_t w = 0, i = 0;
  while (i < text.size()) {
    uint32_t cp = 0;
    size_t n = DecodeUtf8(text, i, &cp);
    size_t cw = n == 0 ? 1 : CodePointWidth(cp);
    if (n == 0) n = 1;
    if (w + cw > target) break;
    w += cw;
    i += n;
  }
  return std::string(text.substr(0, i)) + "…";
}

bool LocaleIsUtf8() {
  const char* value = nullptr;
  for (const char* var : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      value = v;
      break;
    }
  }
  if (!value) return false;  // the "C" locale: ASCII
  std::string v(value);
  for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return v.find("utf-8") != std::string::npos || v.find("utf8") != std::string::npos;
}

std::optional<OutputMode> ParseOutputMode(std::string_view name) {
  for (const auto& m : kOutputModes) {
    if (m.name == name) return m.mode;
  }
  if (name == "md") return OutputMode::kMarkdown;
  return std::nullopt;
}

std::string_view OutputModeName(OutputMode mode) {
  for (const auto& m : kOutputModes) {
    if (m.mode == mode) return m.name;
  }
  return "box";
}

std::string OutputModeList() {
  std::string out;
  for (const auto& m : kOutputModes) {
    if (!out.empty()) out += ", ";
    out += m.name;
  }
  return out;
}

int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& o, std::string& out) {
  return Render(stmt, o, out, nullptr);
}

int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& o, std::FILE* file) {
  std::string buf;
  FlushFn flush = [file](std::string& b) {
    std::fwrite(b.data(), 1, b.size(), file);
    b.clear();
  };
  int64_t rows = 0;
  try {
    rows = Render(stmt, o, buf, &flush);
  } catch (...) {
    flush(buf);
    throw;
  }
  flush(buf);
  return rows;
}

std::string ColumnJson(sqlite3_stmt* stmt, int col) { return JsonValue(ReadCell(stmt, col)); }

}  // namespace tracesql
