#!/usr/bin/env bash
# Runs the importer fuzzer (tests/fuzz/fuzz_import.cc).
#   run_fuzz.sh --replay REPLAY_BIN SEED_DIR
#       builds the seeds (make_seeds.py) into SEED_DIR and replays them once (any compiler)
#   run_fuzz.sh --fuzz FUZZ_BIN SEED_DIR SECONDS [libFuzzer flags...]
#       (for a long run that keeps going after a finding, add -fork=1 -ignore_crashes=1)
#       coverage-guided run for SECONDS (clang build with TRACESQL_FUZZ_INSTRUMENT=ON): one worker,
#       2 GB RSS limit, 10 s per input; new inputs go to SEED_DIR/../fuzz-work, crashers to
#       SEED_DIR/../fuzz-artifacts. Minimise a crasher with
#         FUZZ_BIN -minimize_crash=1 -runs=10000 CRASHER
#       and keep it under tests/fuzz/regressions/ (fuzz.replay replays that directory).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode="$1"; bin="$2"; seeds="$3"; shift 3
rm -rf "$seeds"
python3 "$here/make_seeds.py" "$seeds"
case "$mode" in
  --replay)
    exec "$bin" "$seeds"
    ;;
  --fuzz)
    secs="$1"; shift
    parent=$(dirname "$seeds")
    work="$parent/fuzz-work"; art="$parent/fuzz-artifacts"
    mkdir -p "$work" "$art"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    exec "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1 \
      -dict="$here/kineto.dict" -artifact_prefix="$art/" "$@" "$work" "$seeds" "$here/corpus" "$here/regressions"
    ;;
  *)
    echo "usage: $0 --replay BIN SEED_DIR | --fuzz BIN SEED_DIR SECONDS [flags]" >&2
    exit 2
    ;;
esac
