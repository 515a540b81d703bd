#!/usr/bin/env bash
# Multi-trace benchmark: many traces (every rank of a job) imported into one database, against the
# same traces imported one database each. A per-trace cost that grows with the database (a view's
# SQL run once per trace over every trace's rows) shows as a ratio well above 1.
#
#   bench/run_multi.sh [--copies N] [--ranks N [--rank-mb M]] [--jobs N] [--no-single] [TRACE ...]
#
# TRACE defaults to every .json/.json.gz in ../shared/traces and tests/data/traces; --copies N
# repeats the list N times (N ranks of the same job; default 1). --ranks N instead imports a job of
# N ranks from bench/gen_trace.py --ranks (M MB of JSON each, default 20; gzip; generated once into
# bench/out/job<N>x<M>/, e.g. --ranks 256: 5 GB of JSON, ~0.6 GB of gzip). --jobs N is passed to
# the multi-trace import (default: its own). Prints the time of the one
# multi-trace import (with its --timings stages and the slowest view files), the summed time of the
# single imports (left out with --no-single), and their ratio, then times each bundled query on the
# multi-trace database (defaults, csv to /dev/null): real, user and system seconds. User + system
# is the CPU the query took; real also counts waiting for a shared machine's cores.
# TRACESQL defaults to build/tracesql. See bench/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/out"
TRACESQL="${TRACESQL:-$root/build/tracesql}"

copies=1
ranks=0
rank_mb=20
jobs=()
single_runs=1
traces=()
while [ $# -gt 0 ]; do
  case "$1" in
    --copies) copies="$2"; shift 2 ;;
    --copies=*) copies="${1#*=}"; shift ;;
    --ranks) ranks="$2"; shift 2 ;;
    --rank-mb) rank_mb="$2"; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --no-single) single_runs=0; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_multi.sh: unknown option: $1" >&2; exit 2 ;;
    *) traces+=("$1"); shift ;;
  esac
done
if [ "$ranks" -gt 0 ]; then
  job="$out/job${ranks}x${rank_mb}"
  if [ ! -f "$job/rank$((ranks - 1)).json.gz" ]; then
    echo "generating a $ranks-rank job of $rank_mb MB per rank into $job" >&2
    python3 "$here/gen_trace.py" --ranks "$ranks" --target-mb "$rank_mb" -q -o "$job/rank{rank}.json.gz" 2>/dev/null
  fi
  for ((r = 0; r < ranks; r++)); do traces+=("$job/rank$r.json.gz"); done
fi
if [ ${#traces[@]} -eq 0 ]; then
  for d in "$root/../shared/traces" "$root/tests/data/traces"; do
    [ -d "$d" ] || continue
    while IFS= read -r f; do traces+=("$f"); done < <(find "$d" -maxdepth 1 \( -name '*.json' -o -name '*.json.gz' \) | sort)
  done
fi
[ ${#traces[@]} -gt 0 ] || { echo "run_multi.sh: no traces" >&2; exit 2; }
all=()
for ((c = 0; c < copies; c++)); do all+=("${traces[@]}"); done

mkdir -p "$out"
db="$out/multi.db"
one="$out/multi_one.db"
now() { date +%s.%N; }

t0=$(now)
/usr/bin/time -f 'peak RSS %M kB, CPU %U s user %S s sys' -o "$out/multi.rusage" \
  "$TRACESQL" import -q --force --timings "${jobs[@]}" "${all[@]}" -o "$db" 2> "$out/multi.timings"
t1=$(now)
multi=$(echo "$t1 - $t0" | bc)

single=0
if [ "$single_runs" = 1 ]; then
  for f in "${all[@]}"; do
    s=$(now)
    "$TRACESQL" import -q --force "$f" -o "$one"
    e=$(now)
    single=$(echo "$single + $e - $s" | bc)
  done
  rm -f "$one"
fi

echo "### multi-trace import: ${#all[@]} traces (${#traces[@]} distinct x $copies)"
echo
if [ "$single_runs" = 1 ]; then
  echo "- one database: **$(printf '%.2f' "$multi") s**; one database each: $(printf '%.2f' "$single") s in all;" \
       "ratio $(echo "scale=2; $multi / $single" | bc)"
else
  echo "- one database: **$(printf '%.2f' "$multi") s**"
fi
echo "- $("$TRACESQL" query "$db" 'SELECT count(*) FROM events' --format csv --no-header) events," \
     "$(du -m "$db" | cut -f1) MB; load average before the queries: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(cat "$out/multi.rusage"); load average after the import: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(grep '^stages:' "$out/multi.timings")"
echo "- $(grep '^views:' "$out/multi.timings" || echo 'views: -')"
echo
echo "| bundled query (defaults) | real s | user s | sys s |"
echo "|---|---:|---:|---:|"
"$TRACESQL" queries --format csv 2>/dev/null | tail -n +2 | cut -d, -f1 | while IFS= read -r q; do
  [ -n "$q" ] || continue
  t=$( { TIMEFORMAT='%R %U %S'; time "$TRACESQL" run "$db" "$q" --format csv > /dev/null 2>&1 || true; } 2>&1 )
  read -r real user sys <<< "$t"
  printf '| %s | %.2f | %.2f | %.2f |\n' "$q" "$real" "$user" "$sys"
done
