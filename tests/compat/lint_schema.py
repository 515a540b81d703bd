#!/usr/bin/env python3
"""The schema's SQL stays within what old SQLite reads: a static check of sql/.

    lint_schema.py SOURCE_DIR

Every tracesql database must open in SQLite 3.31 (SQLite parses the whole schema when it opens a
file, so one view it cannot parse makes every table unreadable) and every table and view must work in
SQLite 3.35 (docs/schema.md). This scans the tables, indexes and views of sql/schema, sql/indexes and
sql/views (with the "-- @table" / "-- @index" DDL of the computed tables) for syntax and functions
newer than that, or optional in SQLite builds, and names each one found with the version it needs.
Comments and quoted text are not looked at. compat_test.py runs the real thing (SQLite 3.31 and 3.36
on imported databases); this check is the fast one, and it also covers SQL that a test database may
not reach.
"""
import os
import re
import sys

MATH = ("acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10 log2 mod pi "
        "pow power radians sin sinh sqrt tan tanh trunc").split()

# (regex on SQL with comments and quoted text blanked, what it is, the SQLite it needs)
BANNED = [
    (r"->", "the -> / ->> operator", "3.38"),
    (r"\bmaterialized\b", "a MATERIALIZED / NOT MATERIALIZED hint (SQLite 3.31 cannot parse it)", "3.35"),
    (r"\)\s*(without\s+rowid\s*,\s*)?strict\b", "a STRICT table", "3.37"),
    (r"\breturning\b", "RETURNING", "3.35"),
    (r"\bis\s+(not\s+)?distinct\s+from\b", "IS [NOT] DISTINCT FROM", "3.39"),
    (r"\b(right|full)\s+(outer\s+)?join\b", "a RIGHT or FULL JOIN", "3.39"),
    (r"\b\d+_\d", "a digit separator", "3.46"),
    (r"\b(group_concat|string_agg|json_group_array|json_group_object)\s*\([^()]*\border\s+by\b",
     "ORDER BY inside an aggregate", "3.44"),
    (r"\b(" + "|".join(MATH) + r")\s*\(", "a math function (optional in SQLite builds)", "3.35 + option"),
    (r"\b(unixepoch|format)\s*\(", "unixepoch() / format()", "3.38"),
    (r"\bunhex\s*\(", "unhex()", "3.41"),
    (r"\bjson_error_position\s*\(", "json_error_position()", "3.42"),
    (r"\b(octet_length|timediff)\s*\(", "octet_length() / timediff()", "3.43"),
    (r"\b(concat|concat_ws|string_agg)\s*\(", "concat() / concat_ws() / string_agg()", "3.44"),
    (r"\bjsonb\w*\s*\(", "a JSONB function", "3.45"),
    (r"\bjson_pretty\s*\(", "json_pretty()", "3.46"),
    (r"\b(median|percentile|percentile_cont|percentile_disc|generate_series)\s*\(",
     "an extension function (not in SQLite's core)", "an extension"),
]
BANNED = [(re.compile(p, re.IGNORECASE), what, version) for p, what, version in BANNED]


def blank(sql):
    """The SQL with comments and quoted text turned into spaces (newlines kept), except the DDL that
    follows "-- @table " or "-- @index " (tracesql creates those objects from it)."""
    out, i, n = [], 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            m = re.match(r"--\s*@(table|index)\s", sql[i:end])
            if m:
                out.append(" " * m.end() + blank(sql[i + m.end():end]))
            else:
                out.append(" " * (end - i))
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", sql[i:end]))
            i = end
        elif c in "'\"`[":
            close = "]" if c == "[" else c
            end = i + 1
            while end < n:
                if sql[end] == close:
                    if close != "]" and end + 1 < n and sql[end + 1] == close:  # doubled quote
                        end += 2
                        continue
                    break
                end += 1
            end = min(end + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", sql[i + 1:end - 1]) + close)
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def problems(sql):
    """(line, what, version) of each construct newer than the floor."""
    text = blank(sql)
    found = []
    for rx, what, version in BANNED:
        for m in rx.finditer(text):
            found.append((text.count("\n", 0, m.start()) + 1, what, version))
    return sorted(found)


def self_test():
    cases = [
        ("SELECT j ->> '$.a' FROM t", True), ("SELECT j->'$' FROM t", True), ("SELECT '->>' FROM t", False),
        ("SELECT 1 -- a ->> b\n", False), ("/* x -> y */ SELECT 1", False), ('SELECT "a->b" FROM t', False),
        ("WITH a AS MATERIALIZED (SELECT 1) SELECT * FROM a", True), ("WITH a AS NOT MATERIALIZED (SELECT 1) SELECT 1", True),
        ("CREATE TABLE t (a INTEGER) STRICT;", True), ("CREATE TABLE t (a) WITHOUT ROWID, STRICT;", True),
        ("CREATE TABLE t (strict INTEGER);", False), ("-- @table CREATE TABLE t (a) STRICT;\n", True),
        ("-- @index CREATE INDEX i ON t(a) WHERE a ->> 1;\n", True), ("-- note: CREATE TABLE t (a) STRICT;\n", False),
        ("SELECT sqrt(x) FROM t", True), ("SELECT floor (x) FROM t", True), ("SELECT x AS floor, log FROM t", False),
        ("SELECT unixepoch('now')", True), ("SELECT printf('%d', 1), iif(1, 2, 3)", False),
        ("SELECT group_concat(x ORDER BY y) FROM t", True), ("SELECT group_concat(x, ',') FROM (SELECT x FROM t ORDER BY y)", False),
        ("SELECT a FROM t WHERE a IS NOT DISTINCT FROM b", True), ("SELECT * FROM a RIGHT JOIN b", True),
        ("SELECT 1_000", True), ("SELECT x_1 FROM t", False), ("SELECT 'it''s -> here'", False),
        ("SELECT row_number() OVER (PARTITION BY a ORDER BY b ROWS UNBOUNDED PRECEDING) FROM t", False),
        ("SELECT json_extract(j, '$[0]'), json_each.value FROM t, json_each(t.j)", False),
        ("SELECT jsonb_extract(j, '$') FROM t", True), ("SELECT concat(a, b) FROM t", True),
        ("SELECT a FROM t RETURNING a", True), ("SELECT median(x) FROM t", True),
    ]
    bad = [(sql, want) for sql, want in cases if bool(problems(sql)) != want]
    for sql, want in bad:
        print(f"lint_schema: self-test: {'missed' if want else 'wrongly flagged'}: {sql!r}", file=sys.stderr)
    return not bad


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ok = self_test()
    source, files = sys.argv[1], 0
    for sub in ("sql/schema", "sql/indexes", "sql/views"):
        d = os.path.join(source, sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".sql"):
                continue
            files += 1
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for line, what, version in problems(f.read()):
                    print(f"{sub}/{name}:{line}: {what} needs SQLite {version}; the schema must open in SQLite "
                          f"3.31 and work in 3.35 (docs/schema.md)", file=sys.stderr)
                    ok = False
    if files == 0:
        print(f"lint_schema: no .sql files under {source}/sql", file=sys.stderr)
        ok = False
    print(f"lint_schema: {files} files checked", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
