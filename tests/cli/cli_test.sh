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

# Full disk (simulated with a page limit): clear error, nothing left.
TRACESQL_TEST_MAX_PAGES=8 expect_error "disk full" "full.db: cannot write database: database or disk is full" -- import "$W/good.json" -o "$W/full.db"

# Not a tracesql database.
sqlite3 "$W/other.db" "CREATE TABLE x(a)" 2>/dev/null || python3 -c "import sqlite3; sqlite3.connect('$W/other.db').execute('create table x(a)')"
expect_error "foreign db" "other.db: not a tracesql database" -- query "$W/other.db" "SELECT 1"
rm -f "$W/other.db" "$W/g.db"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
