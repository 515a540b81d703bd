#!/usr/bin/env bash
# CLI behaviour on bad input: one clear line on stderr naming the file and place, a non-zero
# exit, and no database (or temporary file) left behind.
set -u
TQ="$1"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*" >&2; fails=$((fails+1)); }

# expect_error NAME PATTERN -- ARGS...: non-zero exit, stderr matches PATTERN, one line, nothing left.
expect_error() {
  local name="$1" pattern="$2"; shift 3
  local before after
  before=$(ls -A "$W" | sort)
  "$TQ" "$@" >"$W/.out" 2>"$W/.err"; local rc=$?
  after=$(ls -A "$W" | grep -v '^\.out$\|^\.err$' | sort)
  if [ $rc -eq 0 ]; then bad "$name: exit 0"; return; fi
  if ! grep -qE "$pattern" "$W/.err"; then bad "$name: stderr '$(cat "$W/.err")' lacks /$pattern/"; return; fi
  if [ "$(grep -c . "$W/.err")" -ne 1 ]; then bad "$name: stderr is not one line: $(cat "$W/.err")"; return; fi
  if [ "$before" != "$(echo "$after")" ] && [ -n "$(comm -13 <(echo "$before" | grep -v '^\.out$\|^\.err$') <(echo "$after"))" ]; then
    bad "$name: left files behind: $(comm -13 <(echo "$before") <(echo "$after"))"; return; fi
  ok
}

printf 'hello' > "$W/notjson.json"
: > "$W/empty.json"
printf '{"schemaVersion": 1}' > "$W/noevents.json"
printf '{"traceEvents": []}' > "$W/emptyevents.json"
printf '{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "name": "a"}, {"ph": X}]}' > "$W/badevent.json"
printf '{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "name": "a"}, {"ph": "X", "ts": 3, "du' > "$W/truncated.json"
printf '{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "name": "a"}]}' > "$W/good.json"
printf 'not gzip after the magic' | { printf '\x1f\x8b'; cat; } > "$W/corrupt.json.gz"

expect_error "not json" "notjson.json: byte 0: not a JSON trace" -- import "$W/notjson.json" -o "$W/a.db"
expect_error "empty file" "empty.json: empty file" -- import "$W/empty.json" -o "$W/a.db"
expect_error "no traceEvents" "noevents.json: no traceEvents" -- import "$W/noevents.json" -o "$W/a.db"
expect_error "empty traceEvents" "emptyevents.json: no trace events" -- import "$W/emptyevents.json" -o "$W/a.db"
expect_error "bad event" "badevent.json: byte 82: malformed trace event" -- import "$W/badevent.json" -o "$W/a.db"
# Two malformed events in different batches of a multi-megabyte file (batches are parsed on several
# threads): the error names the first in file order, with its byte offset.
python3 - "$W/badlate.json" <<'PY' > "$W/badlate.at"
import sys
ev = '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 1, "args": {"External id": %d}}'
parts, at, size = [], None, len('{"traceEvents": [')
for i in range(60000):
    e = ev % (i * 2, i)
    if i == 23456: e, at = '{"ph": X}', size
    if i == 45678: e = '{"ph": Y}'
    parts.append(e)
    size += len(e) + 2
open(sys.argv[1], "w").write('{"traceEvents": [' + ", ".join(parts) + ']}')
print(at)
PY
# The worker holding the first batch stalls while the other parses the next ones into every
# parse slot: the first batch must still get a slot (it once waited for one forever).
if TRACESQL_TEST_SLOW_FIRST_BATCH=1 timeout 60 "$TQ" import -q "$W/badlate.json" -o "$W/slow.db" 2>"$W/.err"; then
  bad "slow first batch: imported a file with a malformed event"
elif ! grep -q "byte $(cat "$W/badlate.at"): malformed" "$W/.err"; then
  bad "slow first batch: $(cat "$W/.err") (exit or hang)"
else
  ok
fi
python3 - "$W/goodmany.json" <<'PY'
import sys
ev = '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 1}'
open(sys.argv[1], "w").write('{"traceEvents": [' + ", ".join(ev % (i * 2) for i in range(40000)) + ']}')
PY
if ! TRACESQL_TEST_SLOW_FIRST_BATCH=1 timeout 60 "$TQ" import -q "$W/goodmany.json" -o "$W/slow.db" 2>"$W/.err"; then
  bad "slow first batch: import failed or hung: $(cat "$W/.err")"
elif [ "$("$TQ" query "$W/slow.db" "SELECT count(*), min(ts), max(ts) FROM events" --format csv --no-header 2>&1)" != "40000,0,79998000" ]; then
  bad "slow first batch: wrong events: $("$TQ" query "$W/slow.db" "SELECT count(*), min(ts), max(ts) FROM events" 2>&1)"
else
  ok
fi
rm -f "$W/slow.db"
expect_error "bad event, later batch" "badlate.json: byte $(cat "$W/badlate.at"): malformed trace event" -- import "$W/badlate.json" -o "$W/a.db"
expect_error "missing file" "nothere.json: cannot read trace: No such file" -- import "$W/nothere.json" -o "$W/a.db"
expect_error "directory as trace" "cannot read trace: is a directory" -- import "$W" -o "$W/a.db"
expect_error "missing -o dir" "directory .*nodir does not exist" -- import "$W/good.json" -o "$W/nodir/a.db"
expect_error "corrupt gzip" "corrupt.json.gz: corrupt gzip data" -- import "$W/corrupt.json.gz" -o "$W/a.db"
expect_error "strict truncated" "truncated.json: byte 82: file is truncated.*--strict" -- import --strict "$W/truncated.json" -o "$W/a.db"
expect_error "query no db" "nope.db: no such database" -- query "$W/nope.db" "SELECT 1"

# A truncated trace imports its complete events with one warning line.
if "$TQ" import -q "$W/truncated.json" -o "$W/t.db" 2>"$W/.err"; then
  grep -q "warning: .*truncated.json: byte 82: file is truncated" "$W/.err" && ok || bad "truncated: no warning: $(cat "$W/.err")"
  n=$("$TQ" query "$W/t.db" "SELECT count(*) FROM events" --format csv | tail -1)
  [ "$n" = "1" ] && ok || bad "truncated: expected 1 event, got $n"
  rm -f "$W/t.db"
else
  bad "truncated: import failed: $(cat "$W/.err")"
fi

# An existing database is refused without --force, kept intact, and replaced with it.
"$TQ" import -q "$W/good.json" -o "$W/g.db" 2>/dev/null || bad "good import failed"
sum1=$(md5sum < "$W/g.db")
expect_error "exists" "g.db: database already exists \(use --force" -- import "$W/good.json" -o "$W/g.db"
[ "$sum1" = "$(md5sum < "$W/g.db")" ] && ok || bad "existing database was modified"
# A failed import with --force leaves the old database in place.
expect_error "force but bad" "notjson.json" -- import --force "$W/notjson.json" -o "$W/g.db"
[ "$sum1" = "$(md5sum < "$W/g.db")" ] && ok || bad "failed --force import clobbered the database"
"$TQ" import -q --force "$W/good.json" "$W/good.json" -o "$W/g.db" 2>/dev/null && ok || bad "--force import failed"
n=$("$TQ" query "$W/g.db" "SELECT count(*) FROM traces" --format csv | tail -1)
[ "$n" = "2" ] && ok || bad "two traces expected, got $n"

# --force replaces only a SQLite database (another program's too) or an empty file; never one of
# the traces being imported (by file identity: the same name, ./name, a symlink) nor a file of
# another kind. Each refusal is one line and leaves the file as it was.
cp "$W/good.json" "$W/self.json"
ln -s self.json "$W/self-link.db"
sum_self=$(md5sum < "$W/self.json")
expect_error "force over its input" "self.json: is the trace .*self.json being imported" -- import --force "$W/self.json" -o "$W/self.json"
expect_error "input without force" "self.json: is the trace .*self.json being imported" -- import "$W/good.json" "$W/self.json" -o "$W/self.json"
expect_error "force over a symlink to its input" "self-link.db: is the trace .*self.json being imported" -- import --force "$W/self.json" -o "$W/self-link.db"
cd "$W"
expect_error "force over ./input" "^tracesql: error: ./self.json: is the trace self.json being imported" -- import --force self.json -o ./self.json
cd - >/dev/null
[ "$sum_self" = "$(md5sum < "$W/self.json")" ] && ok || bad "--force replaced its own input"
printf 'my notes\n' > "$W/notes.txt"
expect_error "force over a text file" "notes.txt: exists and is not a SQLite database: --force replaces only a database" -- import --force "$W/good.json" -o "$W/notes.txt"
[ "$(cat "$W/notes.txt")" = "my notes" ] && ok || bad "--force replaced a text file"
python3 -c "import sqlite3; c = sqlite3.connect('$W/foreign.db'); c.execute('create table x(a)'); c.commit()"
: > "$W/empty.db"
for f in foreign.db empty.db; do
  if "$TQ" import -q --force "$W/good.json" -o "$W/$f" 2>"$W/.err" \
     && [ "$("$TQ" query "$W/$f" "SELECT count(*) FROM events" --format csv --no-header)" = "1" ]; then ok
  else bad "--force over $f: $(cat "$W/.err")"; fi
done
rm -f "$W/self.json" "$W/self-link.db" "$W/notes.txt" "$W/foreign.db" "$W/empty.db"

# Without -o, one trace goes to TRACE.db next to it (as the shortcut names it); several traces need -o.
cp "$W/good.json" "$W/solo.json"
if "$TQ" import -q "$W/solo.json" 2>"$W/.err" \
   && [ "$("$TQ" query "$W/solo.db" "SELECT count(*) FROM events" --format csv --no-header)" = "1" ]; then ok
else bad "import without -o: $(cat "$W/.err")"; fi
expect_error "without -o, exists" "solo.db: database already exists \(use --force" -- import "$W/solo.json"
expect_error "several without -o" "2 traces go into one database: name it with -o DB" -- import "$W/solo.json" "$W/good.json"
rm -f "$W/solo.json" "$W/solo.db"

# Full disk (simulated with a page limit): clear error, nothing left.
TRACESQL_TEST_MAX_PAGES=8 expect_error "disk full" "full.db: cannot write database: database or disk is full" -- import "$W/good.json" -o "$W/full.db"

# Not a tracesql database.
sqlite3 "$W/other.db" "CREATE TABLE x(a)" 2>/dev/null || python3 -c "import sqlite3; sqlite3.connect('$W/other.db').execute('create table x(a)')"
expect_error "foreign db" "other.db: not a tracesql database" -- query "$W/other.db" "SELECT 1"
rm -f "$W/other.db" "$W/g.db"

# autograd_pairs of several traces linked by Sequence number (no fwdbwd flows: their rows come
# from the view's SELECT, run once for all of them) and one linked by a fwdbwd flow (computed by
# the importer), in one database: each trace gets the pairs it gets alone, in trace order. Trace
# SEQ(n): forward aten::mm (Sequence number n) on thread 1 and its backward node on thread 2;
# trace FLOW: the same pair joined by a fwdbwd flow.
seq_trace() {  # $1 = sequence number, $2 = op name
  printf '{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "args": {"Sequence number": %s}},
 {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 1, "tid": 2, "ts": 20, "dur": 5, "args": {"Sequence number": %s}}]}' "$2" "$1" "$1"
}
seq_trace 7 aten::mm > "$W/s1.json"
seq_trace 9 aten::addmm > "$W/s2.json"
printf '{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
 {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: BmmBackward0", "pid": 1, "tid": 2, "ts": 20, "dur": 5},
 {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": 1, "pid": 1, "tid": 1, "ts": 0},
 {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": 1, "pid": 1, "tid": 2, "ts": 20, "bp": "e"}]}' > "$W/f1.json"
pairs_sql="SELECT trace_id, fwd_name, bwd_name, seq_num, link FROM autograd_pairs ORDER BY rowid"
if "$TQ" import -q "$W/s1.json" "$W/f1.json" "$W/s2.json" "$W/s1.json" -o "$W/ag.db"; then
  got=$("$TQ" query "$W/ag.db" "$pairs_sql" --format csv | tail -n +2)
  expected='1,aten::mm,autograd::engine::evaluate_function: MmBackward0,7,seq
2,aten::bmm,autograd::engine::evaluate_function: BmmBackward0,,flow
3,aten::addmm,autograd::engine::evaluate_function: MmBackward0,9,seq
4,aten::mm,autograd::engine::evaluate_function: MmBackward0,7,seq'
  # The importer writes trace 2's row as it goes and the SQL's after the last trace: by trace_id.
  got_sorted=$(echo "$got" | sort -t, -k1,1n)
  [ "$got_sorted" = "$expected" ] && ok || bad "autograd_pairs of four traces: got '$got'"
  # The SQL's rows are in trace order among themselves.
  seq_order=$(echo "$got" | grep ',seq$' | cut -d, -f1 | tr '\n' ' ')
  [ "$seq_order" = "1 3 4 " ] && ok || bad "autograd_pairs seq rows out of trace order: '$seq_order'"
  for k in 1 2; do
    "$TQ" import -q "$W/s$k.json" -o "$W/one$k.db" || bad "import s$k.json"
    one=$("$TQ" query "$W/one$k.db" "SELECT fwd_event_id, bwd_event_id FROM autograd_pairs" --format csv | tail -n +2)
    [ "$one" = "1,2" ] && ok || bad "autograd_pairs of s$k.json alone: got '$one'"
    rm -f "$W/one$k.db"
  done
else
  bad "import of four traces for autograd_pairs failed"
fi
rm -f "$W/ag.db" "$W"/s1.json "$W"/s2.json "$W"/f1.json

# Two databases in one command: trace_diff with --against, and --attach. A: aten::mm twice (10 us
# each) and kernel gemm (4 us); B: aten::mm once (30 us), gemm (4 us) and relu_k (2 us). By hand
# (ns): mm 2 -> 1 calls, 20000 -> 30000 (+10000, +50 % > 5 %): slower; relu_k added (2000); gemm
# unchanged (not listed).
MM='"cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "args": {"External id": EXT, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}'
K='"cat": "kernel", "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 9}'
printf '{"traceEvents": [{"ph": "X", "ts": 0, "dur": 10, %s}, {"ph": "X", "ts": 20, "dur": 10, %s}, {"ph": "X", "ts": 5, "dur": 4, "name": "gemm", %s}]}' \
  "${MM/EXT/1}" "${MM/EXT/2}" "$K" > "$W/da.json"
printf '{"traceEvents": [{"ph": "X", "ts": 0, "dur": 30, %s}, {"ph": "X", "ts": 5, "dur": 4, "name": "gemm", %s}, {"ph": "X", "ts": 12, "dur": 2, "name": "relu_k", %s}]}' \
  "${MM/EXT/1}" "$K" "$K" > "$W/db.json"
expected='kind,name,shapes,a_count,b_count,delta_count,a_time,b_time,delta_time,delta_pct,status
cpu_op,aten::mm,"[[[2,3],[3,4]],[""float"",""float""]]",2,1,-1,20000,30000,10000,50.0,slower
kernel,relu_k,,0,1,1,0,2000,2000,,added'
if "$TQ" import -q "$W/da.json" -o "$W/da.db" && "$TQ" import -q "$W/db.json" -o "$W/db.db" \
   && "$TQ" import -q "$W/da.json" "$W/db.json" -o "$W/dab.db"; then
  got=$("$TQ" run "$W/da.db" trace_diff --against "$W/db.db" --format csv 2>&1)
  [ "$got" = "$expected" ] && ok || bad "trace_diff --against: got '$got'"
  # The one-database form (trace 1 against trace 2) gives the same rows.
  got=$("$TQ" run "$W/dab.db" trace_diff --format csv 2>&1)
  [ "$got" = "$expected" ] && ok || bad "trace_diff two traces of one database: got '$got'"
  # A database against itself: no change.
  got=$("$TQ" run "$W/da.db" trace_diff --against "$W/da.db" --format csv 2>&1)
  [ "$got" = "${expected%%$'\n'*}" ] && ok || bad "trace_diff against itself: got '$got'"
  got=$("$TQ" run "$W/da.db" trace_diff --against "$W/da.db" -p all=1 --format csv 2>&1 | tail -n +2 | awk -F, '{print $NF}' | sort -u)
  [ "$got" = "unchanged" ] && ok || bad "trace_diff against itself, all=1: got '$got'"
  # --attach: read-only, b by default, or under a chosen name; main stays A.
  got=$("$TQ" query "$W/da.db" "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM b.events), (SELECT count(*) FROM other.events)" \
        --attach "$W/db.db" --attach "other=$W/dab.db" --format csv --no-header 2>&1)
  [ "$got" = "3,3,6" ] && ok || bad "--attach: got '$got'"
  expect_error "attach read-only" "attempt to write a readonly database" -- query "$W/da.db" "DELETE FROM b.events" --attach "$W/db.db"
  [ "$("$TQ" query "$W/db.db" "SELECT count(*) FROM events" --format csv --no-header)" = "3" ] && ok || bad "--attach wrote to the database"
  got=$(printf '.run trace_diff\n' | "$TQ" shell "$W/da.db" --against "$W/db.db" --format csv 2>&1)
  [ "$got" = "$expected" ] && ok || bad "shell --against: got '$got'"
  expect_error "against missing" "^tracesql: error: --against: .*nope.db: no such database" -- run "$W/da.db" trace_diff --against "$W/nope.db"
  printf 'not a database at all, just text' > "$W/junk.db"
  expect_error "attach not sqlite" "^tracesql: error: --attach: .*junk.db: not a SQLite database" -- query "$W/da.db" "SELECT 1" --attach "$W/junk.db"
  sqlite3 "$W/plain.db" "CREATE TABLE x(a)" 2>/dev/null || python3 -c "import sqlite3; sqlite3.connect('$W/plain.db').execute('create table x(a)')"
  expect_error "attach not tracesql" "^tracesql: error: --attach: .*plain.db: not a tracesql database" -- query "$W/da.db" "SELECT 1" --attach "$W/plain.db"
  expect_error "attach name taken" "name 'main' is taken" -- query "$W/da.db" "SELECT 1" --attach "main=$W/db.db"
  # A B database lacking a table of A (imported by an older tracesql) would be read from A under
  # B's name: refused. (old.db: db.db without cpu_op_groups.)
  cp "$W/db.db" "$W/old.db"
  sqlite3 "$W/old.db" "DROP TABLE cpu_op_groups" 2>/dev/null || python3 -c "import sqlite3; c = sqlite3.connect('$W/old.db'); c.execute('drop table cpu_op_groups'); c.commit()"
  expect_error "against older database" "^tracesql: error: --against .*old.db: it has no cpu_op_groups .*import its trace again" -- run "$W/da.db" trace_diff --against "$W/old.db"
  rm -f "$W/da.db" "$W/db.db" "$W/dab.db" "$W/junk.db" "$W/plain.db" "$W/old.db"
else
  bad "trace_diff databases: import failed"
fi

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
