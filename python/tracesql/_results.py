"""Query results as pandas DataFrames or as lists of named tuples."""
from __future__ import annotations

import collections
import json
from typing import Any, Iterable, List, Optional, Sequence, Tuple


class Rows(list):
    """A query result without pandas: a list of named tuples (one per row) with the result's column
    names in .columns, as SQLite named them. Column names that are not Python identifiers, or that
    repeat, get positional field names (_0, _1, ...) in the tuples; index by position or read
    .columns for those."""

    columns: List[str]

    def __init__(self, columns: Sequence[str], rows: Iterable[Tuple[Any, ...]]) -> None:
        self.columns = list(columns)
        row_type = collections.namedtuple("Row", self.columns, rename=True) if self.columns else tuple
        super().__init__(row_type(*r) if self.columns else tuple(r) for r in rows)


def have_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def parse_json(text: str) -> Tuple[List[str], List[Tuple[Any, ...]]]:
    """Columns and rows of `tracesql ... --format json` output (an array of objects whose keys are the
    columns in order; a name that repeats keeps every value)."""
    text = text.strip()
    if not text:
        return [], []
    objects = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    if not objects:
        return [], []
    columns = [k for k, _ in objects[0]]
    return columns, [tuple(v for _, v in pairs) for pairs in objects]


def parse_csv_header(text: str) -> List[str]:
    import csv
    import io
    for row in csv.reader(io.StringIO(text)):
        return row
    return []


def to_result(columns: List[str], rows: List[Tuple[Any, ...]], frame: Optional[bool]) -> Any:  # DataFrame | Rows
    """A DataFrame when frame is True, or None and pandas is installed; else Rows.

    Integer columns stay exact: int64, or pandas' nullable Int64 when they hold NULLs (a float64
    column would round nanosecond timestamps above 2**53)."""
    if frame is None:
        frame = have_pandas()
    if not frame:
        return Rows(columns, rows)
    import pandas as pd
    data = {}
    for i in range(len(columns)):
        values = [r[i] for r in rows]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, int) for v in present):
            data[i] = pd.array(values, dtype="Int64" if len(present) < len(values) else "int64")
        else:
            data[i] = pd.Series(values, dtype=None if present else object)
    df = pd.DataFrame(data, index=pd.RangeIndex(len(rows)))
    df.columns = list(columns)
    return df
