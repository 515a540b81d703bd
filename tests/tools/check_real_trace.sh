#!/usr/bin/env bash
# Imports one real trace, then checks the database against the JSON independently
# (verify_import.py re-reads the file itself) and runs every invariant in tests/invariants.
#   usage: check_real_trace.sh TRACESQL TRACE [KEEP_DB]
# With KEEP_DB the checked database is kept there (renamed into place once every check passed), for
# the tests that read it next (ctest fixture tq_real_dbs: queries.smoke, advise.real, critical_path.real).
set -euo pipefail
TQ="$1"; TRACE="$2"; KEEP=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$TQ" import -q "$TRACE" -o "$W/t.db"
python3 "$here/verify_import.py" "$W/t.db" "$TRACE"
python3 "$here/verify_import.py" --invariants --invariants-dir "$here/../invariants" "$W/t.db"
if [ -n "$KEEP" ]; then
  mkdir -p "$(dirname "$KEEP")"
  rm -f "$KEEP"
  cp "$W/t.db" "$KEEP.tmp" && mv "$KEEP.tmp" "$KEEP"
fi
