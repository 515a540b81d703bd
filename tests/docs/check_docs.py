#!/usr/bin/env python3
"""The docs keep up with the code: every table, view and column of a database that tracesql builds
is described in docs/schema.md, in the section (or table row) that names it; every column of every
CREATE TABLE in sql/schema/ carries a `--` comment in the DDL; every bundled query (queries/*.sql)
is in docs/queries.md.

usage: check_docs.py TRACESQL TRACE REPO_ROOT
TRACE is imported by TRACESQL into a temporary database whose objects are read from sqlite_schema,
so a table, view or column added to sql/ without docs fails here."""
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile


def sections(doc):
    """(heading, body) per markdown heading; the text before the first heading has heading ''."""
    out, head, body = [], "", []
    for line in doc.split("\n"):
        if line.startswith("#"):
            out.append((head, body))
            head, body = line, []
        else:
            body.append(line)
    out.append((head, body))
    return out


def doc_text(name, secs):
    """The text that documents object `name`: the sections whose heading names it; else the table
    rows that name it in their first cell; else the sections whose body names it."""
    tick = f"`{name}`"
    own = [h + "\n" + "\n".join(b) for h, b in secs if tick in h]
    if own:
        return "\n".join(own)
    rows = [l for h, b in secs for l in b if l.startswith("|") and tick in l.split("|")[1]]
    if rows:
        return "\n".join(rows)
    return "\n".join(h + "\n" + "\n".join(b) for h, b in secs if tick in "\n".join(b))


def mentions(text, word):
    return re.search(r"(?<![\w.])" + re.escape(word) + r"(?!\w)", text) is not None


def check_docs(db, doc):
    secs = sections(doc)
    problems = []
    cols = {}
    objs = db.execute("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') "
                      "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    for name, _ in objs:
        cols[name] = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
    for name, kind in objs:
        text = doc_text(name, secs)
        if not text:
            problems.append(f"{kind} {name}: not described in docs/schema.md")
            continue
        covered = set()
        # "all `events` columns": the view has every column of that table.
        for other in re.findall(r"all `(\w+)` columns", text):
            covered |= set(cols.get(other, []))
        for col in cols[name]:
            if col not in covered and not mentions(text, col):
                problems.append(f"{kind} {name}: column {col} is not described where docs/schema.md describes {name}")
    return problems, len(objs), sum(len(c) for c in cols.values())


def check_ddl(schema_dir):
    """Every column of a CREATE TABLE in sql/schema/*.sql has a comment: on one of its lines, or on
    comment lines right after it (a definition may span lines)."""
    problems = []
    constraint = re.compile(r"^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)\b", re.I)
    for path in sorted(pathlib.Path(schema_dir).glob("*.sql")):
        table = None
        col = None  # [line number, text, commented] of the column being read
        ended = True  # the previous definition ended (its line ended with ',')

        def close():
            if col and not col[2]:
                problems.append(f"{path.name}:{col[0]}: column {table}.{col[1]} has no comment in the DDL")

        for n, line in enumerate(path.read_text().split("\n"), 1):
            code = line.split("--", 1)[0].strip()
            if table is None:
                m = re.match(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)\s*\(", code, re.I)
                if m and not code.endswith(";"):
                    table, col, ended = m.group(1), None, True
                continue
            if code.startswith(")"):
                close()
                table = None
                continue
            if code and ended and not constraint.match(code):
                close()
                col = [n, code.split()[0], False]
            elif code and ended:
                close()
                col = None  # a table constraint
            if col and "--" in line:
                col[2] = True
            if code:
                ended = code.endswith(",")
    return problems


def check_queries(queries_dir, doc):
    return [f"query {p.stem}: not in docs/queries.md" for p in sorted(pathlib.Path(queries_dir).glob("*.sql"))
            if f"`{p.stem}`" not in doc]


def main():
    tracesql, trace, root = sys.argv[1:4]
    root = pathlib.Path(root)
    doc_path, schema_dir = root / "docs" / "schema.md", root / "sql" / "schema"
    with tempfile.TemporaryDirectory() as tmp:
        db_path = str(pathlib.Path(tmp) / "t.db")
        subprocess.run([tracesql, "import", trace, "-o", db_path, "-q"], check=True)
        db = sqlite3.connect(db_path)
        problems, nobj, ncol = check_docs(db, pathlib.Path(doc_path).read_text())
        db.close()
    problems += check_ddl(schema_dir)
    problems += check_queries(root / "queries", (root / "docs" / "queries.md").read_text())
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} documentation problems")
        return 1
    print(f"ok: {nobj} tables and views, {ncol} columns documented; every DDL column commented; "
          "every bundled query in docs/queries.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
