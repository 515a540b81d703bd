#!/usr/bin/env bash
# Imports one real trace, then checks the database against the JSON independently
# (verify_import.py re-reads the file itself) and runs every invariant in tests/invariants.
#   usage: check_real_trace.sh TRACESQL TRACE
set -euo pipefail
TQ="$1"; TRACE="$2"
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$TQ" import -q "$TRACE" -o "$W/t.db"
python3 "$here/verify_import.py" "$W/t.db" "$TRACE"
python3 "$here/verify_import.py" --invariants --invariants-dir "$here/../invariants" "$W/t.db"
