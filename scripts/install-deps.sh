#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages tracesql needs, only those that are missing.
# Works as root or through sudo. Safe to run repeatedly.
# OPTIONAL packages (clang and its sanitizer/libFuzzer runtimes, for the sanitizer and fuzz pass of
# scripts/test.sh, and for scripts/demo.sh's faster build) are installed when the distribution has
# them; their absence is not an error. `install-deps.sh --tests` (scripts/test.sh) adds the optional
# packages only tests use.
set -euo pipefail
# chromium (headless) and fonts-dejavu-core test the HTML report in a real browser; nodejs and npm run
# the old-SQLite compatibility test (sql.js builds of SQLite 3.31 and 3.36). The python3-* packages
# build the Python wheel offline and test it (tests/python; python3-dask and python3-distributed run
# tracesql.dask on a LocalCluster). python3-torch (CPU build; about 170 packages; Debian 12 ships 1.13.1)
# runs the torch.profiler handler's test, two ranks of a gloo job included: optional and for tests only,
# since not every release ships it; that test skips, saying so, where it is not installed.
PKGS=(build-essential cmake pkg-config libsqlite3-dev sqlite3 libsimdjson-dev libcli11-dev
      libfmt-dev catch2 zlib1g-dev libedit-dev python3 chromium fonts-dejavu-core
      python3-venv python3-pip python3-setuptools python3-wheel python3-pandas python3-pytest
      python3-dask python3-distributed)
# A Node.js that ships its own npm (NodeSource's nodejs) conflicts with Debian's npm package: install
# them only when there is no npm at all.
command -v npm >/dev/null || PKGS+=(nodejs npm)
OPTIONAL=(clang libclang-rt-dev)
[ "${1:-}" = --tests ] && OPTIONAL+=(python3-torch)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${PKGS[@]}"; do
  installed "$p" || missing+=("$p")
done
optional=()
for p in "${OPTIONAL[@]}"; do
  installed "$p" || optional+=("$p")
done
# Optional packages the package index does not know (yet) are left alone.
if [ ${#missing[@]} -eq 0 ]; then
  known=()
  for p in "${optional[@]}"; do apt-cache show "$p" >/dev/null 2>&1 && known+=("$p"); done
  optional=("${known[@]}")
fi
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    [ ${#missing[@]} -eq 0 ] && exit 0  # only optional packages are missing
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for p in "${optional[@]}"; do
  if apt-cache show "$p" >/dev/null 2>&1; then
    echo "install-deps: installing optional $p" >&2
    $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null || echo "install-deps: optional $p not installed" >&2
  fi
done
