"""tracesql.load and Database: a tracesql database, queried through the tracesql program."""
from __future__ import annotations

import glob
import hashlib
import os
import sqlite3
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Union

from . import _binary
from ._results import Rows, parse_csv_header, parse_json, to_result

if TYPE_CHECKING:
    import pandas

PathLike = Union[str, "os.PathLike[str]"]
ParamValue = Union[int, float, str, bool, None]
# A pandas DataFrame when pandas is installed (or frames=True), else Rows.
Result = Union["pandas.DataFrame", Rows]

_TRACE_SUFFIXES = (".json", ".json.gz")
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_trace_name(path: str) -> bool:
    return path.endswith(_TRACE_SUFFIXES)


def _is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == _SQLITE_MAGIC
    except OSError:
        return False


def _param_args(params: Dict[str, ParamValue]) -> List[str]:
    """`-p key=value` arguments binding each parameter with its Python type: int and bool as integers,
    float as a real, str always as text (quoted, so "42" stays the text 42). None leaves the
    parameter unbound, which is NULL: the query's default."""
    args: List[str] = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            text = str(int(value))
        elif isinstance(value, int):
            text = str(value)
        elif isinstance(value, float):
            text = repr(value)
            if text in ("nan", "inf", "-inf"):
                raise ValueError(f"parameter {key}: {text} cannot be bound")
        elif isinstance(value, str):
            text = "'" + value + "'"
        else:
            raise TypeError(f"parameter {key}: {type(value).__name__} is not int, float, str, bool or None")
        args += ["-p", f"{key}={text}"]
    return args


def _expand(source: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    """Paths named by source: one path, or a list of paths and glob patterns (each sorted)."""
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    paths: List[str] = []
    for item in items:
        text = os.fspath(item)
        if glob.has_magic(text):
            matched = sorted(glob.glob(text))
            if not matched:
                raise _binary.TracesqlError(f"{text}: no file matches")
            paths += matched
        else:
            paths.append(text)
    return paths


def _cache_database_for(traces: List[str]) -> str:
    """The database load() keeps several traces in when not given one: in $XDG_CACHE_HOME/tracesql
    (else ~/.cache/tracesql), named after the first trace and a hash of all their full paths."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    full = "\n".join(os.path.realpath(t) for t in traces)
    digest = hashlib.sha1(full.encode()).hexdigest()[:16]
    first = os.path.basename(traces[0])
    for suffix in (".gz", ".json"):
        if first.endswith(suffix):
            first = first[: -len(suffix)]
    return os.path.join(cache, "tracesql", f"{first}-and-{len(traces) - 1}-{digest}.db")


def _fresh_for(db: str, traces: List[str]) -> bool:
    """Whether db holds exactly these traces, is newer than each, and this tracesql opens it."""
    if not _is_sqlite(db):
        return False
    try:
        newest = max(os.path.getmtime(t) for t in traces)
        if os.path.getmtime(db) < newest:
            return False
        columns, rows = parse_json(_binary.call(["query", db, "SELECT path FROM traces ORDER BY id", "--format", "json"]))
    except (OSError, _binary.TracesqlError):
        return False
    return [r[0] for r in rows] == list(traces)


class Database:
    """A tracesql database. Queries run through the tracesql program (its SQLite, so every view and
    bundled query works whatever SQLite version Python's sqlite3 module has); .connection is a plain
    sqlite3 connection for everything else.

    Results are pandas DataFrames when pandas is installed (frames=True/False on load() forces
    one way), else Rows: a list of named tuples with .columns."""

    def __init__(self, path: PathLike, frames: Optional[bool] = None) -> None:
        self.path = os.fspath(path)
        self.frames = frames
        self._connection: Optional[sqlite3.Connection] = None

    def __repr__(self) -> str:
        return f"tracesql.Database({self.path!r})"

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connection(self) -> sqlite3.Connection:
        """A sqlite3 connection to the database (opened on first use, closed by close()). Tables
        read with any SQLite from 3.31; every view needs 3.35 (sqlite3.sqlite_version)."""
        if self._connection is None:
            self._connection = sqlite3.connect(self.path)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _result(self, args: List[str], stdin: Optional[str] = None) -> Result:
        columns, rows = parse_json(_binary.call([*args, "--format", "json"], stdin))
        if not rows:  # JSON has no column names without rows: ask for the CSV header
            columns = parse_csv_header(_binary.call([*args, "--format", "csv"], stdin))
        return to_result(columns, rows, self.frames)

    def sql(self, query: str, **params: ParamValue) -> Result:
        """Runs SQL (`tracesql query DB SQL`); :name parameters bind from params (see load())."""
        return self._result(["query", self.path, query, *_param_args(params)])

    def run(self, name: str, **params: ParamValue) -> Result:
        """Runs a bundled or user query by name (`tracesql run DB NAME -p key=value...`): the same rows,
        in the same order, with the same values as the command prints."""
        return self._result(["run", self.path, name, *_param_args(params)])

    def queries(self) -> Result:
        """The bundled and user queries (`tracesql queries`): name, description, params, source."""
        return self._result(["queries"])

    def advise(self, rule: Optional[str] = None, **params: ParamValue) -> Result:
        """What costs the trace time, most first (`tracesql advise DB`): one row per finding (trace_id,
        rule, severity, time_lost_ns, title, evidence, advice). params set rule thresholds."""
        return self._result(["advise", self.path, *(["--rule", rule] if rule else []), *_param_args(params)])

    def report(self, path: PathLike, force: bool = False) -> str:
        """Writes the HTML report (`tracesql report DB -o PATH`) and returns its path. An existing file
        is replaced only with force=True."""
        out = os.fspath(path)
        _binary.call(["report", self.path, "-o", out, *(["--force"] if force else [])])
        return out


def load(source: Union[PathLike, Sequence[PathLike]], db: Optional[PathLike] = None, *, force: bool = False,
         frames: Optional[bool] = None) -> Database:
    """Opens a tracesql database, importing traces first.

    source: a database ("job.db"), a trace ("rank0.json.gz"), or a list of traces and glob patterns
    (["run/rank*.json.gz"]).
    - A database is opened as it is.
    - One trace without db: as `tracesql TRACE` does, NAME.db next to it, reused while newer than the
      trace (in ~/.cache/tracesql when the trace's directory is not writable).
    - Several traces without db: one database in $XDG_CACHE_HOME/tracesql (~/.cache/tracesql), named
      after the first trace and a hash of every path, reused while it holds these traces and is newer
      than each.
    - db given: the traces are imported into it (`tracesql import TRACES -o DB`), unless it already
      holds exactly these traces and is newer than each; an existing database of other traces is
      replaced only with force=True.
    Errors from the program (a bad trace, a file that is not a tracesql database) raise TracesqlError
    with its message."""
    paths = _expand(source)
    if not paths:
        raise _binary.TracesqlError("no trace or database given")
    if db is None and len(paths) == 1 and not _is_trace_name(paths[0]):
        # A database (or another kind of file, which the program names): check that it opens.
        _binary.call(["query", paths[0], "SELECT 1 FROM traces LIMIT 1"])
        return Database(paths[0], frames)
    if db is None and len(paths) == 1:
        shortcut = "SELECT file FROM pragma_database_list WHERE name = 'main';\n"
        _, rows = parse_json(_binary.call([paths[0], "--bail", "--format", "json"], shortcut))
        return Database(rows[0][0], frames)
    target = os.fspath(db) if db is not None else _cache_database_for(paths)
    if not _fresh_for(target, paths):
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        replace = force or (db is None and _is_sqlite(target))
        _binary.call(["import", *paths, "-o", target, "-q", *(["--force"] if replace else [])])
    return Database(target, frames)
