#include "tracesql/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "tracesql/error.h"

namespace tracesql {
namespace {

struct Cell {
  int type;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  std::string text;
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
      const unsigned char* b = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      int n = sqlite3_column_bytes(stmt, i);
      c.text = "x'";
      for (int k = 0; k < n; ++k) c.text += fmt::format("{:02x}", b[k]);
      c.text += "'";
      break;
    }
    default: {
      const unsigned char* t = sqlite3_column_text(stmt, i);
      c.text.assign(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
    }
  }
  return c;
}

std::string CsvField(const Cell& c, char sep) {
  if (c.type == SQLITE_NULL) return "";
  if (c.text.find_first_of(std::string("\"\r\n") + sep) == std::string::npos) return c.text;
  std::string out = "\"";
  for (char ch : c.text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string JsonValue(const Cell& c) {
  switch (c.type) {
    case SQLITE_NULL: return "null";
    case SQLITE_INTEGER: return c.text;
    case SQLITE_FLOAT: {
      if (c.text.find_first_of("0123456789") == std::string::npos) return "null";  // inf / nan
      return c.text;
    }
    default: return JsonString(c.text);
  }
}

// Display width in terminal columns (UTF-8 aware: counts code points).
size_t Width(std::string_view s) {
  size_t w = 0;
  for (unsigned char ch : s) if ((ch & 0xC0) != 0x80) ++w;
  return w;
}

std::string Pad(const std::string& s, size_t width, bool right) {
  size_t w = Width(s);
  if (w >= width) return s;
  std::string pad(width - w, ' ');
  return right ? pad + s : s + pad;
}

std::string Shown(const Cell& c, const RenderOptions& o) {
  if (c.type == SQLITE_NULL) return o.null_text;
  std::string s = c.text;
  for (auto& ch : s) if (ch == '\n' || ch == '\t' || ch == '\r') ch = ' ';
  return s;
}

}  // namespace

std::string FormatDouble(double v) {
  std::string s = fmt::format("{}", v);
  // Keep reals recognisable as reals (5.0, not 5), as the sqlite3 shell and Python do.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::optional<OutputMode> ParseOutputMode(std::string_view name) {
  if (name == "box") return OutputMode::kBox;
  if (name == "table") return OutputMode::kTable;
  if (name == "csv") return OutputMode::kCsv;
  if (name == "tsv") return OutputMode::kTsv;
  if (name == "json") return OutputMode::kJson;
  if (name == "jsonl") return OutputMode::kJsonl;
  if (name == "markdown" || name == "md") return OutputMode::kMarkdown;
  if (name == "line") return OutputMode::kLine;
  return std::nullopt;
}

std::string_view OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kBox: return "box";
    case OutputMode::kTable: return "table";
    case OutputMode::kCsv: return "csv";
    case OutputMode::kTsv: return "tsv";
    case OutputMode::kJson: return "json";
    case OutputMode::kJsonl: return "jsonl";
    case OutputMode::kMarkdown: return "markdown";
    case OutputMode::kLine: return "line";
  }
  return "box";
}

int64_t RenderStatement(sqlite3_stmt* stmt, const RenderOptions& o, std::string& out) {
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
  int64_t rows = 0;
  const bool streaming = o.mode == OutputMode::kCsv || o.mode == OutputMode::kTsv || o.mode == OutputMode::kJsonl ||
                         o.mode == OutputMode::kLine || o.mode == OutputMode::kJson;
  if (streaming) {
    char sep = o.mode == OutputMode::kTsv ? '\t' : ',';
    if ((o.mode == OutputMode::kCsv || o.mode == OutputMode::kTsv) && o.header && ncol > 0) {
      for (int i = 0; i < ncol; ++i) {
        if (i) out += sep;
        out += CsvField(Cell{SQLITE_TEXT, names[static_cast<size_t>(i)]}, sep);
      }
      out += '\n';
    }
    if (o.mode == OutputMode::kJson) out += "[";
    size_t name_w = 0;
    for (auto& n : names) name_w = std::max(name_w, Width(n));
    while (step()) {
      std::vector<Cell> row;
      for (int i = 0; i < ncol; ++i) row.push_back(ReadCell(stmt, i));
      switch (o.mode) {
        case OutputMode::kCsv:
        case OutputMode::kTsv:
          for (int i = 0; i < ncol; ++i) {
            if (i) out += sep;
            out += CsvField(row[static_cast<size_t>(i)], sep);
          }
          out += '\n';
          break;
        case OutputMode::kJson:
        case OutputMode::kJsonl: {
          if (o.mode == OutputMode::kJson) out += rows ? ",\n" : "\n";
          out += '{';
          for (int i = 0; i < ncol; ++i) {
            if (i) out += ',';
            out += JsonString(names[static_cast<size_t>(i)]) + ":" + JsonValue(row[static_cast<size_t>(i)]);
          }
          out += '}';
          if (o.mode == OutputMode::kJsonl) out += '\n';
          break;
        }
        default:  // line
          if (rows) out += '\n';
          for (int i = 0; i < ncol; ++i) {
            out += Pad(names[static_cast<size_t>(i)], name_w, true) + " = " + Shown(row[static_cast<size_t>(i)], o) + "\n";
          }
          break;
      }
      ++rows;
    }
    if (o.mode == OutputMode::kJson) out += rows ? "\n]\n" : "]\n";
    return rows;
  }
  // Tabular modes: collect, measure, draw.
  std::vector<std::vector<std::string>> cells;
  std::vector<bool> numeric(static_cast<size_t>(ncol), true);
  std::vector<size_t> width(static_cast<size_t>(ncol), 0);
  for (int i = 0; i < ncol; ++i) width[static_cast<size_t>(i)] = Width(names[static_cast<size_t>(i)]);
  std::vector<std::vector<int>> types;
  while (step()) {
    std::vector<std::string> row;
    std::vector<int> ty;
    for (int i = 0; i < ncol; ++i) {
      Cell c = ReadCell(stmt, i);
      std::string s = Shown(c, o);
      if (o.mode == OutputMode::kMarkdown) {
        std::string esc;
        for (char ch : s) {
          if (ch == '|') esc += '\\';
          esc += ch;
        }
        s = esc;
      }
      width[static_cast<size_t>(i)] = std::max(width[static_cast<size_t>(i)], Width(s));
      ty.push_back(c.type);
      row.push_back(std::move(s));
    }
    cells.push_back(std::move(row));
    types.push_back(std::move(ty));
    ++rows;
  }
  if (ncol == 0) return rows;
  auto right = [&](size_t r, size_t i) { return types[r][i] == SQLITE_INTEGER || types[r][i] == SQLITE_FLOAT; };
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
  const bool md = o.mode == OutputMode::kMarkdown;
  const char* v = box ? "│" : "|";
  if (!md) box ? rule("┌", "┬", "┐", "─") : rule("+", "+", "+", "-");
  if (o.header || md) {
    out += v;
    for (size_t i = 0; i < width.size(); ++i) out += " " + Pad(names[i], width[i], false) + " " + v;
    out += '\n';
    if (md) {
      out += "|";
      for (size_t i = 0; i < width.size(); ++i) {
        bool num = !cells.empty() && right(0, i);
        out += " " + std::string(width[i] - (num ? 1 : 0), '-') + (num ? ":" : "") + " |";
      }
      out += '\n';
    } else {
      box ? rule("├", "┼", "┤", "─") : rule("+", "+", "+", "-");
    }
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    out += v;
    for (size_t i = 0; i < width.size(); ++i) out += " " + Pad(cells[r][i], width[i], right(r, i)) + " " + v;
    out += '\n';
  }
  if (!md) box ? rule("└", "┴", "┘", "─") : rule("+", "+", "+", "-");
  (void)numeric;
  return rows;
}

}  // namespace tracesql
