#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages tracesql needs, only those that are missing.
# Works as root or through sudo. Safe to run repeatedly.
set -euo pipefail
PKGS=(build-essential cmake pkg-config libsqlite3-dev sqlite3 libsimdjson-dev libcli11-dev
      libfmt-dev catch2 zlib1g-dev libedit-dev python3)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
