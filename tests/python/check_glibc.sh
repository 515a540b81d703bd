#!/usr/bin/env bash
# The wheel that python.wheel built (around build/portable/tracesql, cmake/Portable.cmake) runs on
# glibc 2.28 (RHEL 8; Ubuntu 20.04 has 2.31): in every ELF file it carries (the program and the
# libraries next to it), no glibc symbol version above 2.28 (objdump -T), and no shared library but
# glibc's, libgcc_s and libstdc++ (whose versions must be GCC 8's at most) outside the carried ones;
# and the wheel is tagged manylinux_2_28, as wheel_tag.py reads the same files.
#   check_glibc.sh WHEEL_TAG_PY WHEEL_DIR
set -euo pipefail
wheel_tag=$1; wheels=$2
shopt -s nullglob
found=("$wheels"/tracesql-*.whl)
[ ${#found[@]} = 1 ] || { echo "FAIL: expected one wheel in $wheels, found ${#found[@]}" >&2; exit 1; }
wheel=${found[0]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m zipfile -e "$wheel" "$work"
files=("$work"/tracesql/_bin/*)
[ -f "$work/tracesql/_bin/tracesql" ] || { echo "FAIL: $wheel carries no tracesql/_bin/tracesql" >&2; exit 1; }
fail=0
for f in "${files[@]}"; do
  newer=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -u -t. -k2,2n |
          awk -F. '$2 > 28' | tr '\n' ' ' || true)
  if [ -n "$newer" ]; then
    echo "FAIL: ${f#$work/} needs $newer(and glibc 2.28 has none of them):" >&2
    objdump -T "$f" | grep -E "GLIBC_2\.(29|[3-9][0-9])" >&2
    fail=1
  fi
  echo "${f#$work/}: needs $(objdump -p "$f" | awk '/NEEDED/ {printf "%s ", $2}')"
done
want="manylinux_2_28_$(uname -m)"
tag=$(python3 "$wheel_tag" "${files[@]}")
name_tag=$(basename "$wheel" .whl); name_tag=${name_tag##*-}
echo "$(basename "$wheel"): tagged $name_tag; its files allow $tag"
[ "$tag" = "$want" ] || { echo "FAIL: the wheel's files allow $tag, not $want" >&2; fail=1; }
[ "$name_tag" = "$want" ] || { echo "FAIL: the wheel is tagged $name_tag, not $want" >&2; fail=1; }
exit $fail
