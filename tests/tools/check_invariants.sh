#!/bin/sh
# Runs every tests/invariants/*.sql (each must return zero rows), PRAGMA integrity_check and
# PRAGMA foreign_key_check against a tracesql database. Exit 0 when all hold; otherwise exit 1 and
# print the names of the violated invariants with example rows.
#   usage: check_invariants.sh DB [DB...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ]; then
  echo "usage: $0 DB [DB...]" >&2
  exit 2
fi
status=0
for db in "$@"; do
  echo "== $db"
  python3 "$here/verify_import.py" --invariants --invariants-dir "$here/../invariants" "$db" || status=1
done
exit $status
