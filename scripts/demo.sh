#!/usr/bin/env bash
# Builds tracesql (installing missing Debian packages first) and imports the bundled sample trace,
# then asks it a few questions.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build-release.sh
./build/tracesql import samples/tracelens_h100_bert_small_infer.json.gz -o sample.db --force
echo
echo "-- events by category"
./build/tracesql query sample.db "SELECT cat, count(*) AS events, sum(dur) / 1000 AS total_us FROM events GROUP BY cat ORDER BY events DESC"
echo
echo "-- top 10 kernels by total GPU time"
./build/tracesql query sample.db "SELECT substr(name, 1, 60) AS kernel, count(*) AS calls, sum(dur) / 1000 AS total_us FROM events WHERE cat = 'kernel' GROUP BY name ORDER BY sum(dur) DESC LIMIT 10"
echo
echo "sample.db is a plain SQLite database: try  sqlite3 sample.db  or  ./build/tracesql query sample.db \"SELECT ...\""
