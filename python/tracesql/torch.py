"""A torch.profiler on_trace_ready handler that writes each trace and imports it into a database.

    import torch, tracesql.torch
    handler = tracesql.torch.on_trace_ready("prof/")
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=2),
                                on_trace_ready=handler) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    handler.database().run("kernel_summary", limit=5)

One database per rank: the rank is torch.distributed's when it is initialised, else 0.
"""
from __future__ import annotations

import gzip
import os
import shutil
from typing import Any, List, Optional

from . import _binary
from ._database import Database, PathLike, load


def _rank() -> int:
    import torch.distributed as dist  # the handler runs inside a torch program: torch is there
    if dist.is_available() and dist.is_initialized():
        return int(dist.get_rank())
    return 0


class TraceHandler:
    """Called by torch.profiler each time a profiling cycle ends (on_trace_ready). Writes the trace
    with prof.export_chrome_trace (gzip-compressed unless use_gzip=False) and imports every trace of
    this rank written so far into the rank's database (`tracesql import ... --force`).

    dir_or_db: a directory (traces and rank<R>.db go there), or a database path ending in .db, where
    "{rank}" is replaced by the rank; a .db path without "{rank}" gets ".rank<R>" before ".db" when
    torch.distributed is initialised with more than one rank."""

    def __init__(self, dir_or_db: PathLike, use_gzip: bool = True) -> None:
        self.target = os.fspath(dir_or_db)
        self.use_gzip = use_gzip
        self.traces: List[str] = []  # written by this handler, in order
        self.db_path: Optional[str] = None  # set by the first call

    def _paths(self, rank: int) -> "tuple[str, str]":
        import torch.distributed as dist
        if self.target.endswith(".db"):
            db = self.target
            if "{rank}" in db:
                db = db.replace("{rank}", str(rank))
            elif dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
                db = db[: -len(".db")] + f".rank{rank}.db"
            directory = os.path.dirname(os.path.abspath(db))
        else:
            directory = self.target
            db = os.path.join(directory, f"rank{rank}.db")
        return directory, db

    def __call__(self, prof: Any) -> None:
        rank = _rank()
        directory, db = self._paths(rank)
        os.makedirs(directory, exist_ok=True)
        stem = os.path.join(directory, f"rank{rank}.step{prof.step_num}.pt.trace.json")
        prof.export_chrome_trace(stem)
        trace = stem
        if self.use_gzip:
            trace = stem + ".gz"
            with open(stem, "rb") as src, gzip.open(trace, "wb", compresslevel=3) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(stem)
        self.traces.append(trace)
        self.db_path = db
        _binary.call(["import", *self.traces, "-o", db, "--force", "-q"])

    def database(self, frames: Optional[bool] = None) -> Database:
        """The rank's database (after the profiler's first cycle)."""
        if self.db_path is None:
            raise _binary.TracesqlError("no trace yet: the profiler has not finished a cycle")
        return load(self.db_path, frames=frames)


def on_trace_ready(dir_or_db: PathLike, use_gzip: bool = True) -> TraceHandler:
    """A drop-in torch.profiler on_trace_ready handler (see TraceHandler)."""
    return TraceHandler(dir_or_db, use_gzip)
