#!/usr/bin/env bash
# tracesql critical-path: the table is written and replaced per window; bad windows are one-line
# errors naming the database, with exit status 1 and no rows written.
set -u
T=$1
FIX=$2  # a trace with one ProfilerStep-less host thread and kernels
. "$(dirname "$0")/../tools/cli_lib.sh"
"$T" import -q "$FIX" -o "$W/a.db" || exit 1
"$T" import -q "$FIX" "$FIX" -o "$W/two.db" || exit 1
expect_error "a.db: trace 1 has no ProfilerStep#7" critical-path "$W/a.db" --step 7
expect_error "--from and --to go together" critical-path "$W/a.db" --from 5
expect_error "is not before --to" critical-path "$W/a.db" --from 9 --to 9
expect_error "holds 2 traces: choose one with --trace-id" critical-path "$W/two.db"
expect_error "no trace 3" critical-path "$W/two.db" --trace-id 3
expect_error "excludes" critical-path "$W/a.db" --step 1 --from 1 --to 2
[ "$("$T" query "$W/a.db" "SELECT count(*) FROM critical_path" --format csv --no-header)" = 0 ] \
  || { echo "FAIL: rows written by a failed run"; fail=1; }
# Written twice: the window's rows are replaced, not added; another window is kept.
"$T" critical-path "$W/a.db" --format csv > "$W/out1.csv" 2>/dev/null || { echo "FAIL: critical-path"; fail=1; }
n0=$("$T" query "$W/a.db" "SELECT count(*) FROM critical_path" --format csv --no-header)
"$T" critical-path "$W/a.db" --format csv > /dev/null 2>&1
"$T" critical-path "$W/two.db" --trace-id 2 --from 0 --to 300000 --format csv > /dev/null 2>&1 || { echo "FAIL: --trace-id 2"; fail=1; }
n1=$("$T" query "$W/a.db" "SELECT count(*) FROM critical_path" --format csv --no-header)
grep -q '^1,trace,gpu_compute' "$W/out1.csv" || { echo "FAIL: summary not printed: $(cat "$W/out1.csv")"; fail=1; }
[ "$n0" -gt 0 ] && [ "$n1" = "$n0" ] \
  || { echo "FAIL: rows added on a second run"; fail=1; }
[ "$("$T" query "$W/two.db" "SELECT DISTINCT trace_id || ' ' || window FROM critical_path" --format csv --no-header)" = "2 0..300000" ] \
  || { echo "FAIL: --trace-id 2 --from/--to window"; fail=1; }
# --format trace: the path as Chrome-trace JSON imports back into tracesql with the same times.
"$T" query "$W/a.db" "SELECT ts, dur, bound_by AS name, edge_kind AS cat, bound_by AS track, seq FROM critical_path WHERE window = 'trace' ORDER BY seq" \
  --format trace > "$W/path.json" || { echo "FAIL: --format trace"; fail=1; }
"$T" import -q "$W/path.json" -o "$W/path.db" || { echo "FAIL: the trace output does not import"; fail=1; }
want=$("$T" query "$W/a.db" "SELECT ts || ' ' || dur || ' ' || bound_by FROM critical_path WHERE window = 'trace' ORDER BY ts" --format csv --no-header)
got=$("$T" query "$W/path.db" "SELECT ts || ' ' || dur || ' ' || name FROM events WHERE ph = 'X' ORDER BY ts" --format csv --no-header)
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL: times differ after the round trip: '$want' vs '$got'"; fail=1; }
expect_error "--format trace needs a dur column (integer ns); the result has: ts, name" \
  query "$W/a.db" "SELECT 1 AS ts, 'x' AS name" --format trace
# A database imported before the table existed gets it.
"$T" query "$W/a.db" "DROP TABLE critical_path" >/dev/null
"$T" critical-path "$W/a.db" --format csv >/dev/null 2>&1 || { echo "FAIL: old database"; fail=1; }
[ "$fail" = 0 ] && echo ok
exit $fail
