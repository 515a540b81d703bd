#!/usr/bin/env bash
# Builds tracesql with warnings as errors (installing missing Debian packages first) and runs every
# test: unit tests, golden diff tests, CLI tests, the checks on the real traces in ../shared/traces,
# the fuzz regressions, the reliability tests (hostile values, truncation, faults, concurrency), and
# the Python wheel around build-test/portable/tracesql, checked for glibc 2.28 (python.glibc; the
# portable program is a second link of the same objects, cmake/Portable.cmake, not a second build).
#
# Then the suite runs again in a second build directory under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang when installed, else gcc), where any sanitizer report fails the
# run; with clang and its libFuzzer runtime that build also runs a short (45 s) coverage-guided
# fuzz pass of the importer (ctest fuzz.short).
#
# Environment: BUILD_DIR (default build-test), ASAN_BUILD_DIR (default build-asan),
# TRACESQL_SKIP_SANITIZERS=1 to run only the first pass.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --tests
JOBS=$(nproc)
BUILD=${BUILD_DIR:-build-test}
ASAN_BUILD=${ASAN_BUILD_DIR:-build-asan}
start=$(date +%s)
# Both builds keep line tables only (-g1) instead of full debug information: backtraces and sanitizer
# reports still name file and line, the code is the same (-g changes nothing GCC or clang generate),
# and GCC 12 compiles 19-29 % faster (src/render/render.cc 6.1 -> 4.3 s, src/import/builder.cc
# 5.6 -> 4.3 s, tests/unit/btree_writer_test.cc 8.1 -> 6.1 s of CPU).
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DTRACESQL_WERROR=ON
       -DTRACESQL_BUILD_TESTS=ON)
# ccache, when installed (TRACESQL_CCACHE=0: not), shared by checkouts in any directory: paths under
# this one are hashed relative to it (CCACHE_BASEDIR), and the build directory is not hashed.
if [ "${TRACESQL_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi

echo "== build and test: $BUILD" >&2
cmake -S . -B "$BUILD" "${flags[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS"
status=0
(cd "$BUILD" && ctest --output-on-failure -j"$JOBS") || status=$?

if [ "${TRACESQL_SKIP_SANITIZERS:-0}" = 1 ]; then
  echo "== sanitizer pass skipped (TRACESQL_SKIP_SANITIZERS=1); $(( $(date +%s) - start )) s" >&2
  exit $status
fi

# Which compiler for the sanitizer build: clang with ASan (and libFuzzer, for the fuzz pass) when
# it can link them, else gcc. A build directory keeps the compiler it was first configured with.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main() { return 0; }' > "$probe/m.cc"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/f.cc"
compiler=(-DCMAKE_CXX_COMPILER=g++)
fuzz=OFF
if command -v clang++ >/dev/null && clang++ -fsanitize=address,undefined "$probe/m.cc" -o "$probe/m" 2>/dev/null; then
  compiler=(-DCMAKE_CXX_COMPILER=clang++)
  if clang++ -fsanitize=fuzzer,address,undefined "$probe/f.cc" -o "$probe/f" 2>/dev/null; then fuzz=ON; fi
fi
if [ -f "$ASAN_BUILD/CMakeCache.txt" ]; then compiler=(); fi

echo "== build and test under ASan + UBSan: $ASAN_BUILD (fuzz pass: $fuzz)" >&2
cmake -S . -B "$ASAN_BUILD" "${compiler[@]}" "${flags[@]}" \
  -DTRACESQL_SANITIZE=ON -DTRACESQL_BUILD_FUZZERS=$fuzz -DTRACESQL_FUZZ_INSTRUMENT=$fuzz >/dev/null
cmake --build "$ASAN_BUILD" -j"$JOBS"
# Reports go to files as well as failing the process, so a report from a process whose failure a
# test expected (an import that must fail) is still caught below.
logs="$PWD/$ASAN_BUILD/sanitizer-reports"
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="print_suppressions=0"
# Tests whose time goes to code outside tracesql run in the first pass only: compat.* (sql.js under
# Node), views.* (Python and SQLite recomputing the views; real.* imports the same traces here),
# report.browser (Chromium drawing the page; report.errors and report.bar write pages here) and
# export.roundtrip (Python comparing every event of 20 traces; export.cli exports here).
(cd "$ASAN_BUILD" && ctest --output-on-failure -j"$JOBS" -E '^(compat|views)[.]|^report[.]browser$|^export[.]roundtrip$') || status=$?
reports=$(grep -l -E "ERROR: |runtime error|SUMMARY: " "$logs"/* 2>/dev/null || true)
if [ -n "$reports" ]; then
  echo "sanitizer reports:" >&2
  for f in $reports; do echo "--- $f" >&2; head -40 "$f" >&2; done
  status=1
fi
echo "== done in $(( $(date +%s) - start )) s" >&2
exit $status
