#!/usr/bin/env bash
# Imports one trace (views materialised, the default), then checks the analysis views against the
# JSON independently (verify_views.py re-reads the file itself), including a re-import with
# --no-materialize whose views must return the same rows as the materialised tables.
#   usage: check_views.sh TRACESQL TRACE
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 TRACESQL TRACE" >&2
  exit 2
fi
TQ="$1"; TRACE="$2"
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$TQ" import -q "$TRACE" -o "$W/t.db"
TMPDIR="$W" python3 "$here/verify_views.py" "$W/t.db" "$TRACE" --compare-views --tracesql "$TQ"
