#!/usr/bin/env bash
# Times the analysis views and every bundled query on an imported database, each in a fresh process,
# so the figure includes opening the database (the "first query" a user runs).
#   usage: bench/query_bench.sh DB [--views-only | --queries-only] [--variants] [--repeat N]
#   --variants  also times each parameter variant listed in tests/golden/q_NAME/bundled.txt
#   --repeat N  run each query N times and report the fastest run (CPU and wall separately) and,
#               for the bundled queries, the slowest wall: a shared VM's speed varies by +-30 %
# Environment: SQLITE3 (default sqlite3), TRACESQL (default build/tracesql).
set -euo pipefail
DB="$1"; shift
SQLITE3=${SQLITE3:-sqlite3}
here=$(cd "$(dirname "$0")/.." && pwd)
TRACESQL=${TRACESQL:-$here/build/tracesql}
views=1 queries=1 variants=0 repeat=1
while [ $# -gt 0 ]; do
  a="$1"; shift
  case "$a" in
    --repeat) repeat="$1"; shift ;;
    --views-only) queries=0 ;;
    --queries-only) views=0 ;;
    --variants) variants=1 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
# best CMD...: runs `timed` repeat times; prints "min_cpu min_wall max_wall".
best() {
  local i cpu wall bc="" bw="" mw=""
  for ((i = 0; i < repeat; i++)); do
    read -r cpu wall <<< "$(timed "$@")"
    if [ -z "$bc" ] || awk -v a="$cpu" -v b="$bc" 'BEGIN { exit !(a < b) }'; then bc=$cpu; fi
    if [ -z "$bw" ] || awk -v a="$wall" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$wall; fi
    if [ -z "$mw" ] || awk -v a="$wall" -v b="$mw" 'BEGIN { exit !(a > b) }'; then mw=$wall; fi
  done
  echo "$bc $bw $mw"
}
# CPU and wall seconds of one command, output discarded: prints "cpu wall".
timed() {
  local t
  t=$( { /usr/bin/time -f '%U %S %e' "$@" > /dev/null; } 2>&1 | tail -1 )
  awk '{ printf "%.2f %.2f", $1 + $2, $3 }' <<< "$t"
}
if [ "$views" = 1 ]; then
  echo "| view query | CPU s | wall s |"
  echo "|---|---:|---:|"
  for q in \
    "SELECT count(*) FROM op_kernels" "SELECT count(*) FROM idle_gaps" "SELECT count(*) FROM stream_idle_gaps" \
    "SELECT count(*) FROM autograd_pairs" "SELECT count(*) FROM steps" "SELECT count(*) FROM cpu_ops" \
    "SELECT count(*) FROM gpu_ops" "SELECT count(*) FROM kernels" "SELECT count(*) FROM runtime_calls" \
    "SELECT count(*) FROM annotations" "SELECT count(*) FROM python_frames" "SELECT count(*) FROM memory_events" \
    "SELECT op_name, count(*) AS kernels, sum(gpu_dur) AS gpu_ns FROM op_kernels GROUP BY op_name ORDER BY gpu_ns DESC LIMIT 20" \
    "SELECT cause, count(*), sum(dur) FROM idle_gaps GROUP BY cause"; do
    read -r cpu wall _ <<< "$(best "$SQLITE3" "$DB" "$q")"
    printf '| `%s` | %s | %s |\n' "$q" "$cpu" "$wall"
  done
  echo
fi
if [ "$queries" = 1 ]; then
  echo "| bundled query | CPU s | wall s | slowest wall s |"
  echo "|---|---:|---:|---:|"
  for f in "$here"/queries/*.sql; do
    name=$(basename "$f" .sql)
    runs=("$name")
    if [ "$variants" = 1 ] && [ -f "$here/tests/golden/q_$name/bundled.txt" ]; then
      while IFS= read -r line; do
        case "$line" in ''|'#'*) continue ;; esac
        [ "$line" = "$name" ] && continue
        runs+=("$line")
      done < "$here/tests/golden/q_$name/bundled.txt"
    fi
    for r in "${runs[@]}"; do
      read -r -a words <<< "$r"
      args=()
      for p in "${words[@]:1}"; do args+=(-p "$p"); done
      read -r cpu wall slow <<< "$(best "$TRACESQL" run "$DB" "${words[0]}" --format csv "${args[@]}")"
      printf '| `%s` | %s | %s | %s |\n' "$r" "$cpu" "$wall" "$slow"
    done
  done
fi
