#!/usr/bin/env bash
# Builds tracesql (installing missing Debian packages first) and imports the bundled sample trace,
# then asks it a few questions, runs the advisor and writes the HTML report (sample-report.html).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build-release.sh
./build/tracesql import samples/tracelens_h100_bert_small_infer.json.gz -o sample.db --force
echo
echo "-- events by category"
./build/tracesql query sample.db "SELECT cat, count(*) AS events, sum(dur) / 1000 AS total_us FROM events GROUP BY cat ORDER BY events DESC"
echo
echo "-- top 10 kernels, % of all kernel time (tracesql run sample.db top_kernels)"
./build/tracesql run sample.db top_kernels -p limit=10 --format bar
echo
echo "-- what costs time (tracesql advise)"
./build/tracesql advise sample.db --format line
echo
./build/tracesql report sample.db -o sample-report.html --force
echo
echo "sample-report.html is the report (open it in a browser; it needs no network)."
echo "sample.db is a plain SQLite database: try  sqlite3 sample.db  or  ./build/tracesql query sample.db \"SELECT ...\""
