// Runs SQL on a database file with an old SQLite compiled to JavaScript (sql.js, asm.js build: no
// WebAssembly, no network), and prints every result as JSON with exact values.
//
//   node sqljs_run.js VERSION DB JOBS.json
//
// VERSION is a key of BUILDS below. JOBS.json is a list of {"id", "sql", "all"?, "full"?}: the SQL is
// one statement, or with "all" a script of several (sql.js 1.6.2 and later), each run to completion
// with its parameters unbound (NULL). Output, one JSON object on stdout: {"sqlite_version", "jobs":
// [{"id", "ok", "error"?, "columns"?, "count"?, "digest"?, "rows"?, "results"? (with "all": [{"columns",
// "count", "digest", "rows"?}] of each statement that returns columns)}]}. digest identifies the rows
// as a multiset (see cellBytes); with "full" the rows come too, as typed cells, so that nothing is
// rounded on the way: null, {"i": "digits"} (an integer, as text: JavaScript numbers hold 53 bits),
// {"r": number} (a real: the exact double), {"t": "text"}, {"b": "base64"}.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

// npm aliases of sql.js (package.json): the SQLite each release bundles, in its asm.js build that grows
// its heap (the plain asm.js build has a fixed 16 MB heap, too small for some bundled queries).
const BUILDS = {
  '3.31': 'sqljs-3-31/dist/sql-asm-memory-growth.js',  // sql.js 1.2.2: SQLite 3.31.1, without JSON1
  '3.36': 'sqljs-3-36/dist/sql-asm-memory-growth.js',  // sql.js 1.6.2: SQLite 3.36.0, with JSON1
};

const SQLITE_INTEGER = 1, SQLITE_FLOAT = 2, SQLITE_TEXT = 3, SQLITE_BLOB = 4;

// sql.js keeps the sqlite3_stmt pointer in a property whose name its minifier chose: the one
// numeric property that is a heap address (the other, the bind position, starts at 1), confirmed by
// sqlite3_data_count on its current row.
function statementPointer(SQL, stmt, columnCount) {
  const found = Object.values(stmt).filter((v) => typeof v === 'number' && v > 1024 &&
                                                  SQL._sqlite3_data_count(v) === columnCount);
  if (found.length !== 1) throw new Error('cannot find the sqlite3_stmt pointer in this sql.js build');
  return found[0];
}

// The exact digits of an integer column (sqlite3_column_text), read from the heap: JavaScript
// numbers hold 53 bits, nanosecond timestamps need 61.
function integerText(SQL, ptr, i) {
  let at = SQL._sqlite3_column_text(ptr, i), text = '';
  while (SQL.HEAPU8[at] !== 0) text += String.fromCharCode(SQL.HEAPU8[at++]);
  return text;
}

// One row as typed cells: get() gives reals as exact doubles, text and blobs as they are.
function cells(SQL, stmt, ptr) {
  return stmt.get().map((v, i) => {
    switch (SQL._sqlite3_column_type(ptr, i)) {
      case SQLITE_INTEGER: return {i: integerText(SQL, ptr, i)};
      case SQLITE_FLOAT: return {r: v};
      case SQLITE_TEXT: return {t: v};
      case SQLITE_BLOB: return {b: Buffer.from(v).toString('base64')};
      default: return null;
    }
  });
}

// A cell's bytes for the digest, the same as compat_test.py's: its type letter, the payload's length
// in bytes, ':', the payload (integer digits, the real's 8 IEEE bytes big-endian in hex, UTF-8 text).
function cellBytes(c) {
  if (c === null) return Buffer.from('n0:');
  const [[type, v]] = Object.entries(c);
  let payload;
  if (type === 'r') {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    payload = Buffer.from(b.toString('hex'));
  } else if (type === 'b') {
    payload = Buffer.from(v, 'base64');
  } else {
    payload = Buffer.from(v, 'utf8');
  }
  return Buffer.concat([Buffer.from(`${type}${payload.length}:`), payload]);
}

// The rows as a multiset: sha256 over the sorted sha256 of each row.
function digest(rowDigests) {
  rowDigests.sort();
  return crypto.createHash('sha256').update(rowDigests.join('\n')).digest('hex');
}

// Runs stmt to completion: {columns, count, digest}, and the rows themselves when full.
function results(SQL, stmt, full) {
  let columns = stmt.getColumnNames(), ptr;
  const rows = [], rowDigests = [];
  while (stmt.step()) {
    if (rowDigests.length === 0) {
      columns = stmt.getColumnNames();  // sql.js 1.2.2 names them only once it has a row
      ptr = statementPointer(SQL, stmt, columns.length);
    }
    const row = cells(SQL, stmt, ptr);
    const h = crypto.createHash('sha256');
    for (const c of row) h.update(cellBytes(c));
    rowDigests.push(h.digest('hex'));
    if (full) rows.push(row);
  }
  const out = {columns, count: rowDigests.length, digest: digest(rowDigests)};
  if (full) out.rows = rows;
  return out;
}

function run(SQL, db, job) {
  let stmt;
  try {
    if (job.all) {  // every statement of a script: the result of each that returns columns
      const out = [];
      for (stmt of db.iterateStatements(job.sql)) {
        const r = results(SQL, stmt, job.full);
        if (r.columns.length > 0) out.push(r);
      }
      stmt = undefined;
      return {id: job.id, ok: true, results: out};
    }
    stmt = db.prepare(job.sql);
    return {id: job.id, ok: true, ...results(SQL, stmt, job.full)};
  } catch (e) {
    return {id: job.id, ok: false, error: String(e.message || e)};
  } finally {
    if (stmt) stmt.free();
  }
}

async function main() {
  const [version, dbPath, jobsPath] = process.argv.slice(2);
  if (!BUILDS[version] || !dbPath || !jobsPath) {
    console.error(`usage: node sqljs_run.js ${Object.keys(BUILDS).join('|')} DB JOBS.json`);
    process.exit(2);
  }
  const init = require(path.join(__dirname, 'node_modules', BUILDS[version]));
  const SQL = await init();
  const db = new SQL.Database(fs.readFileSync(dbPath));
  const jobs = JSON.parse(fs.readFileSync(jobsPath, 'utf8'));
  const out = {sqlite_version: db.exec('SELECT sqlite_version()')[0].values[0][0], jobs: []};
  for (const job of jobs) out.jobs.push(run(SQL, db, job));
  db.close();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(`sqljs_run: ${e.stack || e}`); process.exit(1); });
