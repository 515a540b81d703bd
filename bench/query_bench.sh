#!/usr/bin/env bash
# Times the analysis views on an imported database: each query in a fresh sqlite3 process, so the
# figure includes opening the database (the "first query" a user runs).
#   usage: bench/query_bench.sh DB
set -euo pipefail
DB="$1"
SQLITE3=${SQLITE3:-sqlite3}
queries=(
  "SELECT count(*) FROM op_kernels"
  "SELECT count(*) FROM idle_gaps"
  "SELECT count(*) FROM stream_idle_gaps"
  "SELECT count(*) FROM autograd_pairs"
  "SELECT count(*) FROM steps"
  "SELECT count(*) FROM cpu_ops"
  "SELECT count(*) FROM gpu_ops"
  "SELECT count(*) FROM kernels"
  "SELECT count(*) FROM runtime_calls"
  "SELECT count(*) FROM annotations"
  "SELECT count(*) FROM python_frames"
  "SELECT count(*) FROM memory_events"
  "SELECT op_name, count(*) AS kernels, sum(gpu_dur) AS gpu_ns FROM op_kernels GROUP BY op_name ORDER BY gpu_ns DESC LIMIT 20"
  "SELECT cause, count(*), sum(dur) FROM idle_gaps GROUP BY cause"
)
echo "| query | seconds | result rows |"
echo "|---|---:|---:|"
for q in "${queries[@]}"; do
  s=$(date +%s.%N)
  rows=$("$SQLITE3" "$DB" "$q" | wc -l)
  e=$(date +%s.%N)
  printf '| `%s` | %.2f | %s |\n' "$q" "$(echo "$e - $s" | bc)" "$rows"
done
