#!/usr/bin/env bash
# The program of a TRACESQL_STATIC=ON build, and the libraries the wheel carries next to it, run on
# glibc 2.28 (RHEL 8, Ubuntu 20.04 has 2.31): no glibc symbol version above 2.28 (objdump -T; a
# static program has no dynamic symbols at all), and no shared library but glibc's, libgcc_s and
# libstdc++ (whose versions must be GCC 8's at most) outside the carried ones.
#   check_glibc.sh WHEEL_TAG_PY PROGRAM [LIBRARY...]
set -euo pipefail
wheel_tag=$1; shift
fail=0
for f in "$@"; do
  newer=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -u -t. -k2,2n |
          awk -F. '$2 > 28' | tr '\n' ' ' || true)
  if [ -n "$newer" ]; then
    echo "FAIL: $f needs $newer(and glibc 2.28 has none of them):" >&2
    objdump -T "$f" | grep -E "GLIBC_2\.(29|[3-9][0-9])" >&2
    fail=1
  fi
  echo "$f: needs $(objdump -p "$f" | awk '/NEEDED/ {printf "%s ", $2}')"
done
tag=$(python3 "$wheel_tag" "$@")
echo "wheel tag: $tag"
[ "$tag" = "manylinux_2_28_$(uname -m)" ] || { echo "FAIL: the wheel would be tagged $tag, not manylinux_2_28" >&2; fail=1; }
exit $fail
