#!/usr/bin/env python3
"""A tracesql database opened by real old SQLite builds (sql.js, SQLite compiled to JavaScript).

    compat_test.py TRACESQL SOURCE_DIR [--no-materialize] TRACE...
    compat_test.py --install SOURCE_DIR

Imports the traces into one fresh database with TRACESQL, then, through tests/compat/sqljs_run.js:
- SQLite 3.31.1 (sql.js 1.2.2, no JSON1): the schema parses and every table returns exactly the rows
  tracesql returns;
- SQLite 3.36.0 (sql.js 1.6.2, JSON1): every table and every view returns exactly the rows tracesql
  returns (as multisets: a view without ORDER BY has no order);
- every bundled query that docs/queries.md says runs in SQLite 3.35 or 3.36 runs in 3.36 with
  tracesql's result, and every one it says needs a newer SQLite fails there (so the docs state each
  query's real minimum).
The npm packages are installed with `npm ci` (tests/compat/package-lock.json) when node_modules is
missing; an install that fails fails the test. --install only installs them.
"""
import fcntl
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ("sqljs-3-31", "sqljs-3-36")


def fail(msg):
    print(f"compat: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def ensure_node_modules():
    """npm ci into tests/compat/node_modules unless both sql.js builds are there (one installer at a time)."""
    def present():
        return all(os.path.isfile(os.path.join(HERE, "node_modules", p, "dist", "sql-asm-memory-growth.js")) for p in PACKAGES)
    if present():
        return
    with open(os.path.join(HERE, ".npm-install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if present():
            return
        print("compat: npm ci (sql.js builds of SQLite 3.31 and 3.36)", file=sys.stderr)
        try:
            r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE,
                               stdout=sys.stderr, stderr=sys.stderr)
        except FileNotFoundError:
            fail("npm is not installed (scripts/install-deps.sh installs nodejs and npm)")
        if r.returncode != 0 or not present():
            fail(f"npm ci in {HERE} failed (exit {r.returncode}): the sql.js packages are not installed")


def cell_from_tracesql(v):
    """A value of tracesql's --format json as the typed cell sqljs_run.js writes."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise ValueError("unexpected JSON boolean")
    if isinstance(v, int):
        return ("i", str(v))
    if isinstance(v, float):
        return ("r", v)
    return ("t", v)


def cell_from_sqljs(c):
    if c is None:
        return None
    (k, v), = c.items()
    return (k, float(v)) if k == "r" else (k, v)


def cell_bytes(c):
    """A typed cell's bytes for the digest, as sqljs_run.js's cellBytes writes them."""
    if c is None:
        return b"n0:"
    kind, v = c
    if kind == "r":
        payload = struct.pack(">d", v).hex().encode()
    else:
        payload = v.encode("utf-8")
    return kind.encode() + str(len(payload)).encode() + b":" + payload


def digest(rows):
    """(count, digest) of rows as a multiset, as sqljs_run.js computes it."""
    row_digests = sorted(hashlib.sha256(b"".join(cell_bytes(c) for c in row)).hexdigest() for row in rows)
    return len(rows), hashlib.sha256("\n".join(row_digests).encode()).hexdigest()


def tracesql_results(tracesql, db, args):
    """Every result set of a tracesql command with --format json: a list of (columns, rows)."""
    r = subprocess.run([tracesql, *args, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tracesql {' '.join(args[:2])} ...: exit {r.returncode}: {r.stderr.strip()}")
    out, dec, pos, text = [], json.JSONDecoder(object_pairs_hook=list), 0, r.stdout
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        doc, pos = dec.raw_decode(text, pos)
        columns = [k for k, _ in doc[0]] if doc else []
        out.append((columns, [[cell_from_tracesql(v) for _, v in row] for row in doc]))


def sqljs(version, db, jobs, tmp):
    path = os.path.join(tmp, f"jobs-{version}.json")
    with open(path, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run(["node", os.path.join(HERE, "sqljs_run.js"), version, db, path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail(f"sqljs_run.js {version}: exit {r.returncode}: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    print(f"compat: {out['sqlite_version']}: {len(jobs)} statements", file=sys.stderr)
    return out["sqlite_version"], {j["id"]: j for j in out["jobs"]}


def rows_of(job):
    return [[cell_from_sqljs(c) for c in row] for row in job["rows"]]


def key(row):
    return json.dumps(row)


def describe_difference(a, b):
    sa, sb = {key(r) for r in a}, {key(r) for r in b}
    only_a, only_b = sorted(sa - sb)[:3], sorted(sb - sa)[:3]
    return f"{len(a)} vs {len(b)} rows; only in old SQLite: {only_a}; only in tracesql: {only_b}"


def doc_minimums(source):
    """docs/queries.md's table of queries: name -> the SQLite version it says the query needs."""
    minimums, column = {}, None
    with open(os.path.join(source, "docs", "queries.md"), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("|"):
                column = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if column is None:
                column = next((i for i, c in enumerate(cells) if c.lower().startswith("sqlite")), None)
                continue
            m = re.match(r"\[`?(\w+)`?\]\(#", cells[0])
            if m and column < len(cells):
                v = re.match(r"(\d+)\.(\d+)", cells[column])
                if not v:
                    fail(f"docs/queries.md: '{cells[column]}' is not a SQLite version (query {m.group(1)})")
                minimums[m.group(1)] = (int(v.group(1)), int(v.group(2)))
    return minimums


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--install"]:
        ensure_node_modules()
        return
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    tracesql, source, rest = argv[0], argv[1], argv[2:]
    import_flags = [a for a in rest if a.startswith("--")]
    traces = [a for a in rest if not a.startswith("--")]
    ensure_node_modules()
    failures = []
    with tempfile.TemporaryDirectory(prefix="tq_compat_") as tmp:
        db = os.path.join(tmp, "compat.db")
        r = subprocess.run([tracesql, "import", *traces, "-o", db, "-q", *import_flags], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"import failed: {r.stderr.strip()}")
        q = lambda sql: tracesql_results(tracesql, db, ["query", db, sql])[0][1]
        objects = [(t[1], n[1]) for t, n in q("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                                            "ORDER BY type, name")]
        tables = [n for t, n in objects if t == "table"]
        views = [n for t, n in objects if t == "view"]
        schema_sql = "SELECT type, name, tbl_name, sql FROM sqlite_master"
        jobs = [{"id": "schema", "sql": schema_sql}] + [{"id": n, "sql": f'SELECT * FROM "{n}"'} for n in tables + views]
        expected = {j["id"]: digest(q(j["sql"])) for j in jobs}

        def compare(version_key, version, j, g):
            """Checks one statement's result against tracesql's; on a difference, shows some rows."""
            if not g["ok"]:
                failures.append(f"SQLite {version}: {j['sql']}: {g['error']}")
            elif (g["count"], g["digest"]) != expected[j["id"]]:
                _, full = sqljs(version_key, db, [dict(j, full=True)], tmp)
                diff = describe_difference(rows_of(full[j["id"]]), q(j["sql"]))
                failures.append(f"SQLite {version}: {j['sql']}: {diff}")

        # SQLite 3.31: the schema parses (any statement reads all of it), and every table reads.
        version, got = sqljs("3.31", db, jobs[:1 + len(tables)], tmp)
        for j in jobs[:1 + len(tables)]:
            compare("3.31", version, j, got[j["id"]])

        # SQLite 3.36 (JSON1): every table and view.
        minimums = doc_minimums(source)
        queries = sorted(f[:-4] for f in os.listdir(os.path.join(source, "queries")) if f.endswith(".sql"))
        for name in queries:
            if name not in minimums:
                failures.append(f"docs/queries.md: no SQLite version for bundled query {name}")
        query_jobs = []
        for name in queries:
            with open(os.path.join(source, "queries", name + ".sql"), encoding="utf-8") as f:
                query_jobs.append({"id": "query:" + name, "sql": f.read(), "all": True})
        version, got = sqljs("3.36", db, jobs + query_jobs, tmp)
        for j in jobs:
            compare("3.36", version, j, got[j["id"]])

        # Bundled queries: those the docs give 3.36 or older as the minimum run in 3.36 with tracesql's
        # results (compared as multisets: two SQLite versions may order ties differently); those marked
        # newer fail in 3.36.
        ran = 0
        for j in query_jobs:
            name = j["id"][6:]
            need = minimums.get(name)
            if need is None:
                continue
            g = got[j["id"]]
            if need > (3, 36):
                if g["ok"]:
                    failures.append(f"{name}: docs/queries.md says SQLite {need[0]}.{need[1]}, but it runs in {version}")
                continue
            if not g["ok"]:
                failures.append(f"{name}: docs/queries.md says SQLite {need[0]}.{need[1]}; {version}: {g['error']}")
                continue
            want = tracesql_results(tracesql, db, ["run", db, name])
            if len(g["results"]) != len(want):
                failures.append(f"{name}: {len(g['results'])} result sets in {version}, {len(want)} in tracesql")
                continue
            for (cols, rows), rs in zip(want, g["results"]):
                if rows and rs["columns"] != cols:
                    failures.append(f"{name}: columns {rs['columns']} in {version}, {cols} in tracesql")
                elif (rs["count"], rs["digest"]) != digest(rows):
                    _, full = sqljs("3.36", db, [dict(j, full=True)], tmp)
                    have = [[cell_from_sqljs(c) for c in row] for r in full[j["id"]]["results"] for row in r["rows"]]
                    failures.append(f"{name}: {describe_difference(have, rows)}")
            ran += 1
        print(f"compat: {len(tables)} tables, {len(views)} views, {ran} bundled queries compared; "
              f"{len(failures)} failures", file=sys.stderr)
    for f in failures:
        print(f"compat: FAIL: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
