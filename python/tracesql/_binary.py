"""Finding and running the tracesql program; its errors as Python exceptions."""
from __future__ import annotations

import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Optional, Sequence

ERROR_PREFIX = "tracesql: error: "


class TracesqlError(Exception):
    """The tracesql program failed. str(e) and e.message are its one-line message (without the
    "tracesql: error: " prefix); e.returncode is its exit status and e.stderr all it printed there."""

    def __init__(self, message: str, returncode: int = 1, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.stderr = stderr


def binary() -> str:
    """The tracesql program this package runs: $TRACESQL_BINARY when set, else the one in the wheel
    (tracesql/_bin/tracesql), else `tracesql` on the PATH."""
    override = os.environ.get("TRACESQL_BINARY")
    if override:
        return override
    if hasattr(resources, "files"):  # Python 3.9+
        packaged = resources.files("tracesql").joinpath("_bin", "tracesql")
    else:
        packaged = Path(__file__).parent / "_bin" / "tracesql"
    if packaged.is_file():
        return str(packaged)
    found = shutil.which("tracesql")
    if found:
        return found
    raise TracesqlError("no tracesql program: this installation has none in tracesql/_bin, none is on the PATH, "
                        "and TRACESQL_BINARY is not set")


def error_message(stderr: str) -> str:
    """The program's one-line error: its last "tracesql: error: ..." line, else its last line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(ERROR_PREFIX):
            return line[len(ERROR_PREFIX):]
    return lines[-1] if lines else "tracesql failed without a message"


def call(args: Sequence[str], stdin: Optional[str] = None) -> str:
    """Runs `tracesql ARGS...` and returns its standard output; raises TracesqlError when it fails."""
    proc = subprocess.run([binary(), *args], input=stdin, capture_output=True, text=True,
                          encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        raise TracesqlError(error_message(proc.stderr), proc.returncode, proc.stderr)
    return proc.stdout
