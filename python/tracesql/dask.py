"""Bundled queries over a partitioned job on a Dask cluster (docs/scale.md).

    from dask.distributed import Client
    import tracesql.dask
    client = Client("tcp://scheduler:8786")
    tracesql.dask.run(client, "/shared/job", "kernel_summary", limit=10)

A partitioned job is a directory that `tracesql import rank*.json.gz -o job/ --partitioned` wrote:
one tracesql database per trace and manifest.json. Each partition's query runs on a Dask worker
(`tracesql run PART.db NAME --per-partition` with the worker's tracesql program: the query, or the
per-partition SQL it has when its rows alone do not combine), and the partial results are combined
by the query's combining SQL (`tracesql queries --show NAME --combining`) in a SQLite database on
the client, as `tracesql run job/ NAME` does on one machine: the same SQL, the same rows. A query
with job-figures SQL (`tracesql queries --show NAME --job-figures`) runs it on every partition first
and gives the sums to the partitions' query as parameters.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _binary
from ._database import ParamValue, PathLike, Result, _param_args
from ._results import parse_csv_header, parse_json, to_result

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "tracesql-partitions"

# The columns of the `partitions` table the combining SQL may read (docs/scale.md): the manifest's
# fields, then where each partition's ids start in the merged database.
_PARTITION_FIELDS = ("trace_id", "file", "trace", "rank", "world_size", "events", "threads", "processes", "flows")
_ROW_COUNTS = ("events", "threads", "processes", "flows")


def read_manifest(job: PathLike) -> List[Dict[str, Any]]:
    """The partitions of a partition directory, in trace id order: the manifest's entries, each with
    "path" (the database's path) added. Raises TracesqlError naming the file when the manifest is
    missing or not one tracesql writes."""
    path = os.path.join(os.fspath(job), MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except OSError as e:
        raise _binary.TracesqlError(f"{path}: cannot read the partition manifest: {e.strerror}") from None
    except ValueError as e:
        raise _binary.TracesqlError(f"{path}: not a partition manifest: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise _binary.TracesqlError(f'{path}: not a partition manifest: no "format": "{MANIFEST_FORMAT}"')
    parts = manifest.get("partitions")
    if not isinstance(parts, list) or not parts:
        raise _binary.TracesqlError(f"{path}: not a partition manifest: no partitions")
    out = []
    for i, part in enumerate(parts, start=1):
        if not isinstance(part, dict) or any(k not in part for k in _PARTITION_FIELDS):
            raise _binary.TracesqlError(f"{path}: not a partition manifest: partition {i} lacks a field")
        out.append(dict(part, path=os.path.join(os.fspath(job), part["file"])))
    return out


def run_partition(path: str, name: str, args: Sequence[str]) -> Tuple[List[str], List[Tuple[Any, ...]]]:
    """Runs the per-partition SQL of bundled query `name` on one partition database with the tracesql
    program of the machine it runs on: the result's columns and rows. What a Dask worker runs for each
    partition."""
    command = ["run", path, name, "--per-partition", *args]
    columns, rows = parse_json(_binary.call([*command, "--format", "json"]))
    if not rows:  # JSON has no column names without rows: ask for the CSV header
        columns = parse_csv_header(_binary.call([*command, "--format", "csv"]))
    return columns, rows


def combining_sql(name: str) -> str:
    """The SQL that combines the partitions' results of bundled query `name` (its rows in table
    `partial`, the partitions in table `partitions`). Raises TracesqlError when the query has none."""
    return _binary.call(["queries", "--show", name, "--combining"])


def job_figures_sql(name: str) -> str:
    """The job-figures SQL of bundled query `name` (docs/scale.md): one row of integer columns per
    partition, each column summed over the partitions being the per-partition SQL's parameter of
    that name; "" when the query has none."""
    return _binary.call(["queries", "--show", name, "--job-figures"])


def run_figures(path: str, sql: str, args: Sequence[str]) -> Tuple[List[str], List[Tuple[Any, ...]]]:
    """Runs job-figures SQL on one partition database: its columns and its row. What a Dask worker
    runs for each partition in the first pass."""
    return parse_json(_binary.call(["query", path, sql, *args, "--format", "json"]))


def _used_params(sql: str, params: Mapping[str, ParamValue]) -> Dict[str, ParamValue]:
    """The params sql names as :key (`tracesql query` refuses a parameter its SQL does not take)."""
    code = re.sub(r"--[^\n]*|'(?:[^']|'')*'", " ", sql)  # comments and string literals left out
    named = set(re.findall(r":([A-Za-z_][A-Za-z0-9_]*)", code))
    return {k: v for k, v in params.items() if k in named}


def _coverage(combine: str) -> Optional[str]:
    """The partitions a combining query reads, from its "-- partitions: every|one" line (docs/scale.md):
    "every" (all, also with trace_id), "one" (trace_id's, else the first), None (all, or trace_id's)."""
    found = re.search(r"^-- partitions: (every|one)$", combine, re.MULTILINE)
    return found.group(1) if found else None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _write_partials(path: str, parts: Sequence[Mapping[str, Any]], covered: Sequence[Mapping[str, Any]],
                    results: Sequence[Tuple[List[str], List[Tuple[Any, ...]]]]) -> None:
    """Writes the tables the combining SQL reads into a new SQLite file, as `tracesql run job/` fills
    them: partial (the result's columns, trace_id renumbered to the job's, rows of the covered
    partitions' results in partition then result order) and partitions (one row per partition of
    the job with its id bases)."""
    columns = next((c for c, _ in results if c), None)
    if columns is None:
        raise _binary.TracesqlError("the query returns no columns")
    trace_col = columns.index("trace_id") if "trace_id" in columns else -1
    con = sqlite3.connect(path)
    try:
        con.execute("CREATE TABLE partitions (trace_id INTEGER PRIMARY KEY, file TEXT, trace TEXT, rank INTEGER,"
                    " world_size INTEGER, events INTEGER, threads INTEGER, processes INTEGER, flows INTEGER,"
                    " event_base INTEGER, thread_base INTEGER, process_base INTEGER, flow_base INTEGER)")
        base = dict.fromkeys(_ROW_COUNTS, 0)
        for part in parts:
            bases = [base[k] for k in _ROW_COUNTS]
            con.execute("INSERT INTO partitions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        [part[k] for k in _PARTITION_FIELDS] + bases)
            for k in _ROW_COUNTS:
                base[k] += part[k]
        con.execute(f"CREATE TABLE partial ({', '.join(_quoted(c) for c in columns)})")
        marks = ", ".join("?" for _ in columns)
        for part, (_, rows) in zip(covered, results):
            for row in rows:
                values = list(row)
                if trace_col >= 0 and values[trace_col] is not None:
                    values[trace_col] = part["trace_id"]  # a partition holds one trace: the job's id of it
                con.execute(f"INSERT INTO partial VALUES ({marks})", values)
        con.commit()
    finally:
        con.close()


def run(client: Any, job: PathLike, name: str, *, workers: Optional[Mapping[str, Any]] = None,
        frames: Optional[bool] = None, **params: ParamValue) -> Result:
    """Runs bundled query `name` over the partitioned job in directory `job` on a Dask cluster:
    the same result as `tracesql run JOB NAME -p key=value...` on one machine.

    client: a dask.distributed Client. Each partition's query is one task; every worker must reach
    the partition's database under the same path (a shared file system), or, with workers given,
    {partition file name: worker address(es)}, the worker that holds it. The combining runs on this
    machine. params bind the query's parameters as Database.run does; frames as in tracesql.load.
    Raises TracesqlError (the program's message) when the query does not combine over partitions or
    a partition fails."""
    parts = covered = read_manifest(job)
    combine = combining_sql(name)  # fails early, before any task, when the query has none
    args = _param_args(params)
    part_args = args
    part_params: Dict[str, ParamValue] = dict(params)
    trace_id = params.get("trace_id")
    coverage = _coverage(combine)
    if trace_id is not None and coverage != "every":
        # Only the partition of that trace runs, where it is trace 1 (the combining SQL keeps the id).
        if not isinstance(trace_id, int) or not 1 <= trace_id <= len(parts):
            raise _binary.TracesqlError(f"{os.fspath(job)}: no trace {trace_id} (the job's traces are 1..{len(parts)})")
        covered = [parts[trace_id - 1]]
        part_params = dict(params, trace_id=1)
        part_args = _param_args(part_params)
    elif coverage == "one":
        covered = parts[:1]  # the query shows one trace: without trace_id, the first
    figures_sql = job_figures_sql(name)
    if figures_sql.strip():
        # The first pass: the figures of the whole job the per-partition SQL takes, summed over the
        # partitions in scope.
        fig_args = _param_args(_used_params(figures_sql, part_params))
        sums: Dict[str, int] = {}
        for columns, rows in client.gather([client.submit(run_figures, p["path"], figures_sql, fig_args, pure=False,
                                                          workers=(workers or {}).get(p["file"]))
                                            for p in covered]):
            for row in rows:
                for column, value in zip(columns, row):
                    if value is not None:
                        sums[column] = sums.get(column, 0) + int(value)
        part_args = _param_args(dict(part_params, **sums))
    futures = [client.submit(run_partition, p["path"], name, part_args, pure=False,
                             workers=(workers or {}).get(p["file"]))
               for p in covered]
    results = client.gather(futures)
    with tempfile.TemporaryDirectory(prefix="tracesql-dask-") as tmp:
        partials = os.path.join(tmp, "partials.db")
        _write_partials(partials, parts, covered, results)
        query = ["query", partials, combine, "--any-db", *_param_args(_used_params(combine, params))]
        columns, rows = parse_json(_binary.call([*query, "--format", "json"]))
        if not rows:
            columns = parse_csv_header(_binary.call([*query, "--format", "csv"]))
    return to_result(columns, rows, frames)
