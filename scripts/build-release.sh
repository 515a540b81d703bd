#!/usr/bin/env bash
# Builds the optimised tracesql binary in build/ (build/tracesql), as scripts/demo.sh and
# bench/run_bench.sh use it. Packages must be installed (scripts/install-deps.sh).
# clang when it is installed (and $CXX does not say otherwise): its build imports 4-7 % faster than
# GCC 12's (bench/README.md, "Import"). A build directory keeps its first compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
compiler=()
if [ -z "${CXX:-}" ] && [ ! -f build/CMakeCache.txt ] && command -v clang++ >/dev/null; then
  compiler=(-DCMAKE_CXX_COMPILER=clang++)
fi
echo "building build/tracesql (a minute or two the first time; progress below) ..." >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTRACESQL_BUILD_TESTS=OFF "${compiler[@]}" >/dev/null
cmake --build build -j"$(nproc)" --target tracesql >&2
