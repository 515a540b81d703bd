"""Builds the tracesql wheel around an already built `tracesql` program.

The program is taken from $TRACESQL_BINARY (default: ../build/tracesql, what
scripts/build-release.sh writes) and lands in the wheel as tracesql/_bin/tracesql. Shared libraries
it loads from its own directory (RPATH $ORIGIN, as build/portable/tracesql loads simdjson) are
named in $TRACESQL_BUNDLE_LIBS (separated by ':') and land next to it.

The wheel's platform tag is computed from the program, not assumed (wheel_tag.py): manylinux_2_N
when it needs glibc 2.N at most and only libraries every manylinux system has, else linux_<arch>,
which pip installs only on the kind of machine it was built on.
"""
import os
import shutil
import stat
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_tag  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def binary_path():
    path = os.environ.get("TRACESQL_BINARY") or os.path.join(HERE, "..", "build", "tracesql")
    if not os.path.isfile(path):
        sys.exit(f"setup.py: no tracesql program at {path}: build it (scripts/build-release.sh) or set TRACESQL_BINARY")
    return os.path.abspath(path)


def bundled_libs():
    return [p for p in os.environ.get("TRACESQL_BUNDLE_LIBS", "").split(":") if p]


def program_version():
    out = subprocess.run([binary_path(), "--version"], check=True, capture_output=True, text=True).stdout
    return out.split()[-1]  # "tracesql 0.1.0"


class BuildWithProgram(build_py):
    """Copies the program (and the libraries it loads from its directory) into tracesql/_bin."""

    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "tracesql", "_bin")
        os.makedirs(dest, exist_ok=True)
        for src in [binary_path()] + bundled_libs():
            target = os.path.join(dest, wheel_tag.soname(src) or os.path.basename(src))
            shutil.copyfile(src, target)
            os.chmod(target, os.stat(target).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            # Debug information is most of a RelWithDebInfo program's size (31 MB -> 4 MB).
            if shutil.which("strip"):
                subprocess.run(["strip", "--strip-debug", target], check=True)


class ProgramDistribution(Distribution):
    """Says the distribution is not pure Python, so the package goes to platlib in the wheel."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for one platform (it carries a native program) that works with any Python 3."""

    def get_tag(self):
        return "py3", "none", wheel_tag.platform_tag([binary_path()] + bundled_libs())


setup(version=program_version(), distclass=ProgramDistribution, cmdclass={"build_py": BuildWithProgram, "bdist_wheel": PlatformWheel})
