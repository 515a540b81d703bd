#!/usr/bin/env bash
# tracesql export: the overlay of a small trace against a golden file, the file written (JSON, gzip,
# µs with three decimals, the findings as instants), and the refusals: an existing file without
# --force, an input (the database, the trace it came from) even with --force, a database of several
# traces without --trace-id, a result without ts or dur for --format trace; nothing left behind,
# also when SIGINT or SIGTERM ends an export.
set -u
T=$1
DATA=$2
. "$(dirname "$0")/../tools/cli_lib.sh"
q() { "$T" query "$@" --format csv --no-header; }
cp "$DATA/step_gaps.json" "$W/t.json"
"$T" import -q "$W/t.json" -o "$W/a.db" || exit 1

# Golden: the overlay query as --format trace (steps and idle gaps; no critical path written yet).
"$T" run "$W/a.db" timeline_overlay --format trace > "$W/overlay.json" || { echo "FAIL: run timeline_overlay"; fail=1; }
diff -u "$DATA/overlay.expected.json" "$W/overlay.json" || { echo "FAIL: timeline_overlay --format trace differs"; fail=1; }

# The export: written whole, valid JSON, the critical path computed and drawn, the findings as
# instants (one per finding `advise` prints), every time as µs with three decimals.
"$T" export "$W/a.db" -o "$W/o.json" 2> "$W/err" || { echo "FAIL: export: $(cat "$W/err")"; fail=1; }
grep -q "critical path computed for 1 step" "$W/err" || { echo "FAIL: no critical path note: $(cat "$W/err")"; fail=1; }
[ "$(q "$W/a.db" "SELECT count(DISTINCT window) FROM critical_path")" = 1 ] || { echo "FAIL: critical_path not written"; fail=1; }
python3 - "$W/o.json" "$("$T" advise "$W/a.db" --format jsonl | grep -c '^{')" <<'PY' || fail=1
import json, re, sys
text = open(sys.argv[1]).read()
doc = json.loads(text)
ev = doc["traceEvents"]
bad = [m.group(0) for m in re.finditer(r'"(?:ts|dur)": (-?[0-9.e+]+)', text) if not re.fullmatch(r'-?\d+\.\d{3}', m.group(1))]
tracks = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
names = set(tracks.values())
findings = [e for e in ev if e["ph"] == "i" and tracks.get(e["tid"]) == "advisor findings"]
problems = []
if bad: problems.append(f"times not in µs with three decimals: {bad[:3]}")
if doc.get("baseTimeNanoseconds") != 1000000000000: problems.append("baseTimeNanoseconds missing")
if names != {"advisor findings", "steps", "critical path: steps", "GPU 0 idle"}: problems.append(f"tracks {names}")
if len(findings) != int(sys.argv[2]) or not findings: problems.append(f"{len(findings)} findings, advise has {sys.argv[2]}")
if any(e.get("pid") != 2 for e in ev): problems.append("an overlay event outside the overlay process (pid 2)")
if any(e["ph"] in ("s", "f") for e in ev): problems.append("arrows without --with-trace")
for p in problems: print("FAIL: export:", p)
sys.exit(1 if problems else 0)
PY
# Refusals: the file exists; --force never replaces an input, even named another way.
expect_error "o.json: exists (use --force to replace it)" export "$W/a.db" -o "$W/o.json"
"$T" export "$W/a.db" -o "$W/o.json" --force 2>/dev/null || { echo "FAIL: --force"; fail=1; }
expect_error "is an input of this export" export "$W/a.db" -o "$W/a.db" --force
expect_error "is an input of this export" export "$W/a.db" -o "$W/./t.json" --force --with-trace
ln -s "$W/t.json" "$W/link.json"
expect_error "is an input of this export" export "$W/a.db" -o "$W/link.json" --force
cmp -s "$DATA/step_gaps.json" "$W/t.json" || { echo "FAIL: the trace was overwritten"; fail=1; }
expect_error "is a directory" export "$W/a.db" -o "$W"
expect_error "cannot write" export "$W/a.db" -o "$W/no/such/dir/o.json"
expect_error "no such file" export "$W/missing.db" -o "$W/x.json"
"$T" import -q "$W/t.json" "$DATA/step_gaps.json" -o "$W/two.db" || exit 1
expect_error "holds 2 traces: choose one with --trace-id" export "$W/two.db" -o "$W/x.json"
expect_error "no trace 3" export "$W/two.db" -o "$W/x.json" --trace-id 3
[ ! -e "$W/x.json" ] || { echo "FAIL: a refused export left x.json"; fail=1; }
"$T" export "$W/two.db" -o "$W/x.json" --trace-id 2 2>/dev/null || { echo "FAIL: --trace-id 2"; fail=1; }
# A trace given instead of a database: imported next to it first, as `tracesql TRACE` does.
"$T" export "$W/t.json" -o "$W/from_trace.json" --with-trace 2>/dev/null && [ -s "$W/t.db" ] \
  || { echo "FAIL: export TRACE"; fail=1; }
# gzip: a .gz name writes gzip (zlib), which imports back.
"$T" export "$W/a.db" -o "$W/o.json.gz" --with-trace 2>/dev/null || { echo "FAIL: export .gz"; fail=1; }
gzip -t "$W/o.json.gz" || { echo "FAIL: not gzip"; fail=1; }
"$T" import -q "$W/o.json.gz" -o "$W/b.db" || { echo "FAIL: the export does not import"; fail=1; }
[ "$(q "$W/b.db" "SELECT count(*) FROM events WHERE pid <> 2")" = "$(q "$W/a.db" "SELECT count(*) FROM events")" ] \
  || { echo "FAIL: events lost in the round trip"; fail=1; }
# Nothing left behind by the refusals and failures.
left=$(ls -A "$W" | grep '\.tmp-' || true)
[ -z "$left" ] || { echo "FAIL: left behind: $left"; fail=1; }
# SIGINT (Ctrl-C) or SIGTERM during an export: the process ends by the signal, the temporary file
# is removed and no output written. A 10 MB trace exports for a second or more; the signal is sent
# as soon as the temporary file appears.
python3 "$(dirname "$0")/../../bench/gen_trace.py" -q -o "$W/big.json" --target-mb 10 || exit 1
"$T" import -q "$W/big.json" -o "$W/big.db" || exit 1
set -m  # job control: a background job keeps SIGINT's default action (without it, bash ignores it)
for sig in INT TERM; do
  "$T" export "$W/big.db" -o "$W/sig.json" --with-trace 2>/dev/null &
  pid=$!
  for _ in $(seq 1000); do
    compgen -G "$W/.sig.json.tmp-*" >/dev/null && break
    sleep 0.01
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" = "$want" ] || { echo "FAIL: SIG$sig during export: exit $rc, not $want"; fail=1; }
  left=$(ls -A "$W" | grep -E '^sig\.json|\.tmp-' || true)
  [ -z "$left" ] || { echo "FAIL: SIG$sig during export left: $left"; fail=1; rm -f "$W"/sig.json; }
done
set +m
# --format trace: a result without ts or dur is an error naming the column.
expect_error "--format trace needs a ts column (integer ns); the result has: dur, name" \
  query "$W/a.db" "SELECT 1 AS dur, 'x' AS name" --format trace
expect_error "--format trace needs a dur column (integer ns); the result has: ts" \
  query "$W/a.db" "SELECT 1 AS ts" --format trace
[ "$fail" = 0 ] && echo ok
exit $fail
