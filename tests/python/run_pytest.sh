#!/usr/bin/env bash
# Runs a pytest file with the venv python.wheel made: run_pytest.sh VENV TEST_FILE [MODULE]
# With MODULE, exits 77 (ctest: skipped) when the venv cannot import it.
set -euo pipefail
py=$1/bin/python
if [ -n "${3:-}" ] && ! "$py" -c "import $3" 2>/dev/null; then
  echo "skipped: $3 is not installed (Debian: apt-get install python3-$3)"
  exit 77
fi
exec "$py" -m pytest -q -p no:cacheprovider -rs "$2"
