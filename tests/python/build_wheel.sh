#!/usr/bin/env bash
# Builds the tracesql wheel around a built program, offline, and installs it into a fresh venv:
#   build_wheel.sh TRACESQL PYTHON_SRC WORKDIR [PYTHON]
# WORKDIR/dist holds the wheel, WORKDIR/venv the environment (--system-site-packages, so Debian's
# pandas, pytest and torch are importable; the package itself comes only from the wheel). Also checks
# what the wheel carries: the program (executable, the same version), py.typed, and a platform tag.
set -euo pipefail
tracesql=$(realpath "$1"); src=$(realpath "$2"); work=$3; python=${4:-python3}
rm -rf "$work"; mkdir -p "$work"
work=$(realpath "$work")
# A copy of python/, so that setuptools' build/ and *.egg-info never land in the source tree.
cp -r "$src" "$work/src"
# The system's pip builds (setuptools and wheel from Debian) and installs into the venv (pip --python:
# the venv needs no pip of its own, which takes ensurepip ~20 s to set up).
TRACESQL_BINARY=$tracesql "$python" -m pip wheel -q --no-index --no-build-isolation --no-deps -w "$work/dist" "$work/src"
wheel=$(ls "$work"/dist/tracesql-*.whl)
echo "built $(basename "$wheel")"
py=$work/venv/bin/python
if "$python" -m pip --help | grep -q -- '--python <python>'; then  # pip 22.3+
  "$python" -m venv --without-pip --system-site-packages "$work/venv"
  "$python" -m pip --python "$py" install -q --no-index --no-deps "$wheel"
else
  "$python" -m venv --system-site-packages "$work/venv"
  "$py" -m pip install -q --no-index --no-deps "$wheel"
fi
"$py" - "$wheel" "$tracesql" <<'PY'
import os, subprocess, sys, zipfile
wheel, program = sys.argv[1], sys.argv[2]
names = zipfile.ZipFile(wheel).namelist()
for need in ("tracesql/_bin/tracesql", "tracesql/py.typed", "tracesql/__init__.py", "tracesql/torch.py"):
    assert need in names, f"{wheel} lacks {need}"
tag = os.path.basename(wheel)[:-4].split("-")[-3:]
assert tag[:2] == ["py3", "none"] and (tag[2].startswith("manylinux_2_") or tag[2].startswith("linux_")), tag
import tracesql
installed = tracesql.binary()
assert "site-packages" in installed and os.access(installed, os.X_OK), installed
version = lambda p: subprocess.run([p, "--version"], capture_output=True, text=True, check=True).stdout
assert version(installed) == version(program), (version(installed), version(program))
print("installed", tracesql.__version__, "->", installed)
# The libraries carried next to the program are the ones it loads (RPATH $ORIGIN).
for lib in filter(None, os.environ.get("TRACESQL_BUNDLE_LIBS", "").split(":")):
    ldd = subprocess.run(["ldd", installed], capture_output=True, text=True, check=True).stdout
    carried = [line for line in ldd.splitlines() if os.path.dirname(installed) in line]
    assert carried, f"{installed} loads no library from its own directory:\n{ldd}"
    print("loads", *[line.split()[0] for line in carried])
PY
