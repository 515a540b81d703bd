"""tracesql: ask SQL questions of PyTorch profiler (Kineto) traces from Python.

    import tracesql
    db = tracesql.load("rank0.pt.trace.json.gz")      # imports (or reuses) rank0.pt.trace.db
    db.run("kernel_summary", limit=5)                  # a bundled query: a pandas DataFrame
    db.sql("SELECT name, dur FROM kernels ORDER BY dur DESC LIMIT :n", n=3)

The work is done by the tracesql program carried in this package (tracesql/_bin/tracesql).
"""
from ._binary import TracesqlError, binary
from ._database import Database, load
from ._results import Rows

__all__ = ["Database", "Rows", "TracesqlError", "binary", "load", "__version__"]

try:
    from importlib.metadata import version as _dist_version

    __version__ = _dist_version("tracesql")
except Exception:  # running from a source tree, not an installed distribution
    __version__ = "0+unknown"
