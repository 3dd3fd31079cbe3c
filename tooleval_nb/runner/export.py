"""Writing a run's frames to files: CSV, JSON lines or Parquet.

Columns holding lists or dicts (``tags``, ``arguments``, the ``arg_<name>`` columns) are written as
JSON text in CSV and Parquet (a Parquet column needs one type); JSON lines keep them as JSON, and
also decode the JSON-text columns ``expected`` and ``tool_calls`` into objects.

CSV is opened by spreadsheets, which run a cell starting with ``=``, ``+``, ``-`` or ``@`` (or a
tab or carriage return before one) as a formula; a model's output or a suite's text can start so.
By default such a text cell is written with a ``'`` in front (OWASP's advice: the spreadsheet
shows the text as it is); ``formulas=True`` (``--keep-formulas``) writes it unchanged.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from ..errors import ToolEvalError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ExportFormat",
    "ExportTable",
    "frame_of",
    "write_frame",
    "require_parquet",
    "PARQUET_HINT",
    "neutralize_formulas",
]

ExportFormat = Literal["csv", "jsonl", "parquet"]
ExportTable = Literal["results", "calls", "arguments", "summary"]
#: the JSON-text columns of ``results_df`` that JSON lines decode
_JSON_TEXT = ("expected", "tool_calls")
PARQUET_HINT = (
    "Parquet export needs pyarrow: pip install pyarrow (or pip install "
    "'tooleval_nb[parquet]'), or choose --format csv or jsonl"
)


def require_parquet() -> None:
    """Raise ToolEvalError naming the package to install when pyarrow cannot be imported."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ToolEvalError(PARQUET_HINT) from None


def frame_of(run: Any, table: ExportTable) -> pd.DataFrame:
    """The frame ``table`` of ``run`` (``results_df``, ``calls_df``, ``arguments_df`` or
    ``summary_df``)."""
    frames = {
        "results": run.results_df,
        "calls": run.calls_df,
        "arguments": run.arguments_df,
        "summary": run.summary_df,
    }
    return frames[table]()


def _nested(value: Any) -> bool:
    return isinstance(value, (list, dict, tuple))


def _as_text(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object and any(_nested(v) for v in out[col]):
            out[col] = [
                json.dumps(v, ensure_ascii=False, default=str)
                if v is not None and not (isinstance(v, float) and math.isnan(v))
                else None
                for v in out[col]
            ]
        elif col.startswith("arg_") and out[col].dtype == object:  # mixed types per argument
            out[col] = [
                None if v is None else json.dumps(v, ensure_ascii=False, default=str)
                for v in out[col]
            ]
    return out


#: what a spreadsheet reads as the start of a formula
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralize_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells (and column names) that a spreadsheet would run as a
    formula start with ``'`` (numbers are left alone)."""

    def safe(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(_FORMULA_START):
            return "'" + value
        return value

    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str"):
            out[col] = [safe(v) for v in out[col]]
    out.columns = [safe(c) for c in out.columns]
    return out


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    rows = json.loads(df.to_json(orient="records", force_ascii=False, date_format="iso"))
    for row in rows:
        for col in _JSON_TEXT:
            if isinstance(row.get(col), str):
                try:
                    row[col] = json.loads(row[col])
                except ValueError:
                    pass
    return rows


def write_frame(
    df: pd.DataFrame,
    target: str | os.PathLike[str] | IO[str],
    fmt: ExportFormat,
    *,
    formulas: bool = False,
) -> None:
    """Write ``df`` to ``target`` (a path, or a text stream for csv and jsonl) as ``fmt``
    (CSV with formulas neutralised unless ``formulas``: see the module docstring).

    Raises:
        ToolEvalError: Parquet without pyarrow installed (the message says what to install),
            or Parquet to a stream.
    """
    if fmt == "parquet":
        require_parquet()
        if not isinstance(target, (str, os.PathLike)):
            raise ToolEvalError("Parquet is binary: give a file with --output, not '-'")
        _as_text(df).to_parquet(Path(target), index=False)
        return
    if fmt == "csv":
        text = _as_text(df)
        (text if formulas else neutralize_formulas(text)).to_csv(target, index=False)
        return
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _records(df))
    if isinstance(target, (str, os.PathLike)):
        Path(target).write_text(text, encoding="utf-8")
    else:
        target.write(text)
