#!/usr/bin/env bash
# Builds tracesql with warnings as errors (installing missing Debian packages first) and runs every
# test: unit tests, golden diff tests, CLI tests, and the checks on the real traces in ../shared/traces.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD=${BUILD_DIR:-build-test}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACESQL_WERROR=ON -DTRACESQL_BUILD_TESTS=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
cd "$BUILD"
ctest --output-on-failure -j"$(nproc)"
