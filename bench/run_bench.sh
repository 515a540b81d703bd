#!/usr/bin/env bash
# Import benchmark: tracesql vs. the plain sqlite3 JSON1 baseline on a synthetic Kineto trace.
#
#   bench/run_bench.sh [--mb 500] [--gz] [--compact] [--cpus N] [--seed S] [--repeat N]
#                      [--no-json1] [--no-tracesql] [--keep-db]
#
# Generates (and caches in bench/out/) the trace with bench/gen_trace.py, then times
#   (a) $TRACESQL import TRACE -o DB --force --timings    (TRACESQL defaults to build/tracesql,
#                                                           built by scripts/build-release.sh if missing)
#   (b) sqlite3 DB < bench/json1_import.sql               (always on the plain .json)
# and prints a markdown table: wall s, user+sys CPU s, peak RSS, DB size, MB/s of uncompressed
# JSON, speed-up, RSS/JSON and DB/JSON. --repeat N runs the pair N times, alternating, and reports
# each importer's median run and the speed-up of every pair. See bench/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/out"

mb=500
gz=0
compact=0
cpus=""
seed=1234
do_json1=1
do_tracesql=1
keep_db=0
repeat=1

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift 2 ;;
    --mb=*) mb="${1#*=}"; shift ;;
    --gz) gz=1; shift ;;
    --compact) compact=1; shift ;;
    --cpus) cpus="$2"; shift 2 ;;
    --cpus=*) cpus="${1#*=}"; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --no-json1) do_json1=0; shift ;;
    --no-tracesql) do_tracesql=0; shift ;;
    --keep-db) keep_db=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --repeat=*) repeat="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run_bench.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done

if [ -z "${TRACESQL:-}" ]; then
  TRACESQL="$root/build/tracesql"
  if [ ! -x "$TRACESQL" ]; then  # build it as scripts/demo.sh does (packages must be installed)
    echo "building $TRACESQL (scripts/build-release.sh) ..." >&2
    "$root/scripts/build-release.sh"
  fi
fi
SQLITE3="${SQLITE3:-sqlite3}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$out"

# ---------------------------------------------------------------- trace (cached)
base="trace_${mb}mb_s${seed}"
[ "$compact" = 1 ] && base="${base}_compact"
plain="$out/$base.json"
trace="$plain"
[ "$gz" = 1 ] && trace="$out/$base.json.gz"

gen() {  # gen OUTPUT
  local o="$1"
  local flags=(--target-mb "$mb" --seed "$seed" -q -o "$o.tmp$([ "${o%.gz}" != "$o" ] && echo .gz)")
  [ "$compact" = 1 ] && flags+=(--compact)
  echo "generating $o ..." >&2
  "$PYTHON" "$here/gen_trace.py" "${flags[@]}" 2> "$o.stats.tmp"
  cat "$o.stats.tmp" >&2
  mv "$o.tmp$([ "${o%.gz}" != "$o" ] && echo .gz)" "$o"
  sed 's|\.tmp\(\.gz\)\{0,1\}: |: |' "$o.stats.tmp" > "$o.stats"
  rm -f "$o.stats.tmp"
}
[ -s "$trace" ] || gen "$trace"
if [ "$do_json1" = 1 ] && [ ! -s "$plain" ]; then gen "$plain"; fi

# uncompressed size, events, arg pairs (from the generator's stats line)
stats_line="$(cat "$trace.stats" 2>/dev/null || true)"
json_bytes="$(sed -n 's/.*bytes=\([0-9]*\) .*/\1/p' <<<"$stats_line")"
n_events="$(sed -n 's/.*events=\([0-9]*\) .*/\1/p' <<<"$stats_line")"
n_args="$(sed -n 's/.*arg_pairs=\([0-9]*\) .*/\1/p' <<<"$stats_line")"
if [ -z "$json_bytes" ]; then
  if [ "$gz" = 1 ]; then json_bytes="$(gzip -dc "$trace" | wc -c)"; else json_bytes="$(stat -c %s "$trace")"; fi
fi
file_bytes="$(stat -c %s "$trace")"

# ---------------------------------------------------------------- measurement
pin=()
if [ -n "$cpus" ]; then
  if command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c "0-$((cpus - 1))")
  else
    echo "warning: taskset not found, --cpus ignored" >&2
  fi
fi

# measure NAME STDIN_FILE CMD... : runs CMD (stdin from STDIN_FILE or /dev/null), stdout+stderr to
# $out/NAME.log; sets m_rc m_wall m_cpu m_rss_kb
measure() {
  local name="$1" in="$2"; shift 2
  local log="$out/$name.log" tf="$out/$name.time"
  [ -n "$in" ] || in=/dev/null
  m_rc=0
  if [ -z "${BENCH_NO_GNU_TIME:-}" ] && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    local t0 t1
    t0="$(date +%s.%N)"
    /usr/bin/time -v -o "$tf" "${pin[@]}" "$@" < "$in" > "$log" 2>&1 || m_rc=$?
    t1="$(date +%s.%N)"
    m_wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')"
    m_cpu="$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.2f", u+s}' "$tf")"
    m_rss_kb="$(awk -F': ' '/Maximum resident set size/{print $2}' "$tf")"
  else
    "$PYTHON" - "$tf" "$in" "$log" "${pin[@]}" "$@" <<'PY' || m_rc=$?
import os, resource, sys, time
tf, inp, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fi = os.open(inp, os.O_RDONLY)
    fo = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fi, 0); os.dup2(fo, 1); os.dup2(fo, 2)
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - t0
with open(tf, "w") as f:
    f.write("wall %.2f\ncpu %.2f\nrss_kb %d\n" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
PY
    m_wall="$(awk '/^wall/{print $2}' "$tf")"
    m_cpu="$(awk '/^cpu/{print $2}' "$tf")"
    m_rss_kb="$(awk '/^rss_kb/{print $2}' "$tf")"
  fi
}

db_size() {  # DB (+ any -wal) in bytes
  local s=0 f
  for f in "$1" "$1-wal"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done
  echo "$s"
}

rows_ts=()  # markdown rows
declare -A R
stages_line=""
ts_note=""

# ---------------------------------------------------------------- (a) tracesql
# Each run appends its figures to the TS_* arrays (JSON1: J1_*); the report takes the median run.
TS_WALL=(); TS_CPU=(); TS_RSS=(); TS_STAGES=(); J1_WALL=(); J1_CPU=(); J1_RSS=()
R[ts_rc]=0; R[j1_rc]=0
run_tracesql() {
  if [ "$do_tracesql" = 1 ]; then
    db="$out/${base}.tracesql.db"
    if [ ! -x "$TRACESQL" ]; then
      ts_note="tracesql binary not found at $TRACESQL (build it, or set TRACESQL=path)"
      echo "warning: $ts_note" >&2
    else
      rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
      sync
      echo "timing tracesql import ..." >&2
      measure tracesql "" "$TRACESQL" import "$trace" -o "$db" --force --timings
      if [ "$m_rc" != 0 ] && grep -qi -- "--timings" "$out/tracesql.log"; then
        echo "tracesql rejected --timings; retrying without" >&2
        rm -f "$db"
        measure tracesql "" "$TRACESQL" import "$trace" -o "$db" --force
      fi
      if [ "$m_rc" != 0 ]; then
        ts_note="tracesql exited with status $m_rc (see $out/tracesql.log)"
        echo "warning: $ts_note" >&2
        tail -5 "$out/tracesql.log" >&2 || true
      fi
      TS_STAGES+=("$(grep -m1 '^stages:' "$out/tracesql.log" || true)")
      TS_WALL+=("$m_wall"); TS_CPU+=("$m_cpu"); TS_RSS+=("$m_rss_kb")
      [ "$m_rc" = 0 ] || R[ts_rc]="$m_rc"
      R[ts_db]="$(db_size "$db")"
      R[ts_rows]="$("$SQLITE3" "$db" "SELECT (SELECT count(*) FROM events) || ' events, ' || (SELECT count(*) FROM flows) || ' flows'" 2>/dev/null || echo "?")"
      [ "$keep_db" = 1 ] || rm -f "$db" "$db-wal" "$db-shm"
    fi
  fi
}

# ---------------------------------------------------------------- (b) JSON1 baseline
j1_note=""
run_json1() {
  if [ "$do_json1" = 1 ]; then
    db="$out/${base}.json1.db"
    plain_bytes="$(stat -c %s "$plain")"
    if [ "$plain_bytes" -ge 1000000000 ]; then
      j1_note="JSON1 baseline skipped: ${plain_bytes} bytes exceeds SQLITE_MAX_LENGTH (1e9) for readfile()"
      echo "warning: $j1_note" >&2
    else
      rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
      sync
      echo "timing sqlite3 JSON1 baseline ..." >&2
      sql="$out/json1_import.bound.sql"
      # bind the path as a parameter (single quotes doubled for SQL)
      qpath="${plain//\'/\'\'}"
      { printf ".parameter set :trace \"'%s'\"\n.bail on\n" "$qpath"; cat "$here/json1_import.sql"; } > "$sql"
      measure json1 "$sql" "$SQLITE3" "$db"
      if [ "$m_rc" != 0 ]; then
        j1_note="sqlite3 exited with status $m_rc (see $out/json1.log)"
        echo "warning: $j1_note" >&2
        tail -5 "$out/json1.log" >&2 || true
      fi
      J1_WALL+=("$m_wall"); J1_CPU+=("$m_cpu"); J1_RSS+=("$m_rss_kb")
      [ "$m_rc" = 0 ] || R[j1_rc]="$m_rc"
      R[j1_db]="$(db_size "$db")"
      R[j1_rows]="$("$SQLITE3" "$db" "SELECT (SELECT count(*) FROM events) || ' events, ' || (SELECT count(*) FROM args) || ' args'" 2>/dev/null || echo "?")"
      [ "$keep_db" = 1 ] || rm -f "$db" "$db-wal" "$db-shm"
    fi
  fi
}

for ((run = 1; run <= repeat; run++)); do
  [ "$repeat" -gt 1 ] && echo "run $run of $repeat" >&2
  run_tracesql
  run_json1
done

# median VALUES...: the middle value (the lower of the two middle ones for an even count)
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# The median run of each importer: its wall time, with the CPU and RSS of that same run.
pick() {  # pick PREFIX: sets R[PREFIX_wall/cpu/rss] from the arrays PREFIX_WALL/CPU/RSS
  local -n w="$1_WALL" c="$1_CPU" r="$1_RSS"
  [ "${#w[@]}" -gt 0 ] || return 0
  local m i key
  key="$(tr '[:upper:]' '[:lower:]' <<<"$1")"
  m="$(median "${w[@]}")"
  for i in "${!w[@]}"; do
    if [ "${w[$i]}" = "$m" ]; then
      R[${key}_wall]="${w[$i]}"; R[${key}_cpu]="${c[$i]}"; R[${key}_rss]="${r[$i]}"
      [ "$1" = TS ] && stages_line="${TS_STAGES[$i]}"
      break
    fi
  done
}
pick TS
pick J1

# ---------------------------------------------------------------- report
row() {  # row LABEL WALL CPU RSS_KB DB_BYTES RC ROWS
  awk -v l="$1" -v w="$2" -v c="$3" -v r="$4" -v d="$5" -v rc="$6" -v rows="$7" -v j="$json_bytes" 'BEGIN{
    mbs = (w > 0) ? j / 1e6 / w : 0
    st = (rc == 0) ? "" : " (FAILED rc=" rc ")"
    printf "| %s%s | %.2f | %.2f | %.0f | %.1f | %.1f | %.2f | %.2f | %s |\n", l, st, w, c, r / 1024, d / 1e6, mbs, r * 1024 / j, d / j, rows
  }'
}

echo
echo "### tracesql import benchmark"
echo
echo "- trace: \`${trace#$root/}\` ($(awk -v j="$json_bytes" 'BEGIN{printf "%.1f", j/1e6}') MB JSON$([ "$gz" = 1 ] && awk -v f="$file_bytes" 'BEGIN{printf ", %.1f MB gzip", f/1e6}'), ${n_events:-?} events, ${n_args:-?} arg pairs, $([ "$compact" = 1 ] && echo single-line || echo pretty))"
echo "- host: $(nproc) CPUs$([ -n "$cpus" ] && echo ", pinned to $cpus"), $(awk '/MemTotal/{printf "%.0f GB RAM", $2/1048576}' /proc/meminfo), sqlite3 $("$SQLITE3" --version | cut -d' ' -f1)"
echo
echo "| importer | wall s | CPU s (user+sys) | peak RSS MB | DB MB | JSON MB/s | RSS/JSON | DB/JSON | rows |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
[ -n "${R[ts_wall]:-}" ] && row "tracesql" "${R[ts_wall]}" "${R[ts_cpu]}" "${R[ts_rss]}" "${R[ts_db]}" "${R[ts_rc]}" "${R[ts_rows]}"
[ -n "${R[j1_wall]:-}" ] && row "sqlite3 JSON1" "${R[j1_wall]}" "${R[j1_cpu]}" "${R[j1_rss]}" "${R[j1_db]}" "${R[j1_rc]}" "${R[j1_rows]}"
echo
if [ -n "${R[ts_wall]:-}" ] && [ -n "${R[j1_wall]:-}" ] && [ "${R[ts_rc]}" = 0 ] && [ "${R[j1_rc]}" = 0 ]; then
  awk -v a="${R[ts_wall]}" -v b="${R[j1_wall]}" 'BEGIN{ if (a > 0) printf "- speed-up (wall, JSON1 / tracesql): **%.1fx**\n", b / a }'
fi
if [ "$repeat" -gt 1 ]; then
  echo "- $repeat runs each, alternating; the table shows each importer's median run. Wall s: tracesql ${TS_WALL[*]:-}; JSON1 ${J1_WALL[*]:-}"
  if [ "${#TS_WALL[@]}" = "$repeat" ] && [ "${#J1_WALL[@]}" = "$repeat" ]; then
    ratios=()
    for ((i = 0; i < repeat; i++)); do
      ratios+=("$(awk -v a="${TS_WALL[$i]}" -v b="${J1_WALL[$i]}" 'BEGIN{ printf "%.1f", (a > 0) ? b / a : 0 }')")
    done
    echo "- speed-up of each pair (JSON1 / tracesql run beside it): ${ratios[*]}x; lowest **$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)x**"
  fi
fi
[ -n "$stages_line" ] && echo "- tracesql \`$stages_line\`"
[ -n "$ts_note" ] && echo "- $ts_note"
[ -n "$j1_note" ] && echo "- $j1_note"
[ "$gz" = 1 ] && [ "$do_json1" = 1 ] && echo "- JSON1 ran on the uncompressed copy (\`${plain#$root/}\`); tracesql on the .gz (inflate included)."
echo "- targets: ≥100 MB/s end-to-end on 2 cores, ≥5x JSON1, peak RSS ≤0.5x JSON at 500 MB, DB ≤0.6x JSON, 5 GB imports."
