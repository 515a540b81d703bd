#!/usr/bin/env bash
# `cmake --install BUILD --prefix DIR` puts the program, its man page and the docs in place: the
# installed tracesql runs, the man page has a section for every subcommand its --help lists and
# renders without warnings, and the installed README's links to the docs resolve.
set -u
BUILD="$1"
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails+1)); }

if ! cmake --install "$BUILD" --prefix "$P" >"$P/.log" 2>&1; then
  cat "$P/.log" >&2
  echo "FAIL: cmake --install" >&2
  exit 1
fi
"$P/bin/tracesql" --version | grep -q '^tracesql [0-9]' || bad "installed bin/tracesql --version"
man="$P/share/man/man1/tracesql.1"
if [ ! -f "$man" ]; then
  bad "no man page at share/man/man1/tracesql.1"
else
  for cmd in $("$P/bin/tracesql" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}'); do
    grep -q "^\.SS tracesql $cmd\$" "$man" || bad "man page lacks a section for $cmd"
    grep -qF -- "$("$P/bin/tracesql" "$cmd" --help | head -1 | sed 's/-/\\-/g')" "$man" || bad "man page lacks $cmd's help text"
  done
  if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
    [ -z "$warnings" ] || bad "groff warns on the man page: $warnings"
  fi
fi
doc="$P/share/doc/tracesql"
[ -f "$doc/README.md" ] && [ -f "$doc/LICENSE" ] || bad "README.md and LICENSE not in share/doc/tracesql"
# Every relative link of the installed README (docs/*.md, bench/README.md, ...) that names a
# Markdown file resolves in the installed tree.
for link in $(grep -o '](\([^)#]*\.md\)' "$doc/README.md" | sed 's/^](//' | sort -u); do
  [ -f "$doc/$link" ] || bad "installed README links to $link, not installed"
done
[ -f "$doc/docs/shell.md" ] || bad "docs/shell.md not installed"
[ $fails -eq 0 ] && echo "install: ok"
[ $fails -eq 0 ]
