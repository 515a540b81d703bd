// Renderer features the shell and `tracesql query` need (issue 4): terminal-width truncation,
// base64 blobs and always-valid JSON, configurable NULL text, display widths.
#include <catch2/catch.hpp>

#include "tracesql/db.h"
#include "tracesql/render.h"

using namespace tracesql;

namespace {
std::string Render(const char* sql, const RenderOptions& o) {
  Db db = Db::Open(":memory:", true);
  Stmt s = db.Prepare(sql);
  std::string out;
  RenderStatement(s.get(), o, out);
  return out;
}

RenderOptions Mode(OutputMode m) {
  RenderOptions o;
  o.mode = m;
  return o;
}

// Lines of text, without the final empty one.
std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    out.push_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}
}  // namespace

TEST_CASE("render: box and table fit max_width by cutting the widest columns", "[render][shell]") {
  RenderOptions o = Mode(OutputMode::kBox);
  o.max_width = 40;
  std::string out = Render("SELECT 7 AS n, printf('%.100c', 'a') AS wide, 'short' AS s", o);
  for (const auto& line : Lines(out)) CHECK(DisplayWidth(line) == 40);
  CHECK(out.find("│ 7 │") != std::string::npos);        // narrow columns keep their width
  CHECK(out.find("aaaa…") != std::string::npos);         // the wide one ends in an ellipsis
  CHECK(out.find("│ short │") != std::string::npos);
  o.mode = OutputMode::kTable;
  for (const auto& line : Lines(Render("SELECT printf('%.100c', 'a') AS a, printf('%.100c', 'b') AS b", o))) {
    CHECK(DisplayWidth(line) <= 40);
  }
  // Lines that fit are left alone; other formats never truncate.
  o.mode = OutputMode::kBox;
  CHECK(Render("SELECT 'ab' AS name", o) == "┌──────┐\n│ name │\n├──────┤\n│ ab   │\n└──────┘\n");
  o.mode = OutputMode::kCsv;
  CHECK(Render("SELECT printf('%.100c', 'a') AS wide", o).size() == 5 + 100 + 1);  // never truncated
}

TEST_CASE("render: display width and truncation count terminal columns", "[render][shell]") {
  CHECK(DisplayWidth("abc") == 3);
  CHECK(DisplayWidth("日本") == 4);
  CHECK(DisplayWidth("e\xCC\x81") == 1);  // e + combining acute
  CHECK(DisplayWidth("\xF0\x9F\x99\x82") == 2);  // emoji
  CHECK(TruncateToWidth("abcdef", 4) == "abc…");
  CHECK(TruncateToWidth("abcdef", 6) == "abcdef");
  CHECK(TruncateToWidth("日本語", 4) == "日…");  // never splits a wide character
  CHECK(DisplayWidth(TruncateToWidth("日本語", 4)) <= 4);
}

TEST_CASE("render: json is valid for any value; blobs are base64", "[render][shell]") {
  CHECK(Base64("") == "");
  CHECK(Base64("f") == "Zg==");
  CHECK(Base64("fo") == "Zm8=");
  CHECK(Base64("foo") == "Zm9v");
  CHECK(Base64(std::string("\x00\xff\x10", 3)) == "AP8Q");
  CHECK(Render("SELECT x'00ff10' AS b, x'' AS e", Mode(OutputMode::kJsonl)) == "{\"b\":\"AP8Q\",\"e\":\"\"}\n");
  // Invalid UTF-8 becomes U+FFFD; control characters are escaped; inf/nan become null.
  CHECK(Render("SELECT CAST(x'61ff62' AS TEXT) AS t", Mode(OutputMode::kJsonl)) == "{\"t\":\"a\xEF\xBF\xBD" "b\"}\n");
  CHECK(Render("SELECT char(1) || char(10) || '\"\\' AS t", Mode(OutputMode::kJsonl)) ==
        "{\"t\":\"\\u0001\\n\\\"\\\\\"}\n");
  CHECK(Render("SELECT 9e999 AS inf", Mode(OutputMode::kJsonl)) == "{\"inf\":null}\n");
  CHECK(Render("SELECT 1 AS \"a\"\"b\"", Mode(OutputMode::kJsonl)) == "{\"a\\\"b\":1}\n");
  // A statement without columns writes nothing, not an empty array.
  CHECK(Render("CREATE TABLE t(x)", Mode(OutputMode::kJson)).empty());
  CHECK(Render("SELECT 1 WHERE 0", Mode(OutputMode::kJson)) == "[]\n");
}

TEST_CASE("render: NULL text is configurable except in json", "[render][shell]") {
  RenderOptions o = Mode(OutputMode::kCsv);
  CHECK(Render("SELECT NULL AS a, 1 AS b", o) == "a,b\n,1\n");  // golden CSV: NULL is empty
  o.null_text = "NULL";
  CHECK(Render("SELECT NULL AS a, 1 AS b", o) == "a,b\nNULL,1\n");
  o.mode = OutputMode::kBox;
  CHECK(Render("SELECT NULL AS a", o).find("│ NULL │") != std::string::npos);
  o.mode = OutputMode::kJsonl;
  CHECK(Render("SELECT NULL AS a", o) == "{\"a\":null}\n");
  o.mode = OutputMode::kCsv;
  o.header = false;
  CHECK(Render("SELECT 1 AS a", o) == "1\n");
}

TEST_CASE("render: tables never pass control characters to the terminal", "[render][shell]") {
  std::string out = Render("SELECT 'a' || char(27) || '[31mb' || char(10) || 'c' AS t", Mode(OutputMode::kTable));
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("a?[31mb c") != std::string::npos);
}

TEST_CASE("render: output modes are one table", "[render][shell]") {
  for (const auto& m : kOutputModes) {
    CHECK(ParseOutputMode(m.name) == m.mode);
    CHECK(OutputModeName(m.mode) == m.name);
  }
  CHECK(OutputModeList() == "box, table, csv, tsv, json, jsonl, markdown, line, bar, folded, trace");
  CHECK(!ParseOutputMode("xml"));
}
