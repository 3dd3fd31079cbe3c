"""A benchmark's files: the folder of a run's side files, and rows written as CSV.

A benchmark keeps files beside its run (BFCL's memory snapshots; an environment's state) in the
output folder when the run writes one, else under the cache (:func:`run_folder`), so that a run
resumed after a kill finds them again. Its tables go to the output folder as CSV
(:func:`write_csv`), written from rows, with no DataFrame: a run needs no pandas to finish.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..models.cache import cache_dir

__all__ = ["cache_folder", "run_folder", "write_csv"]


def cache_folder(name: str) -> Path:
    """``<cache>/<name>``: a benchmark's folder in tooleval_nb's cache (``$TOOLEVAL_CACHE_DIR``,
    else the platform's user cache folder); not created here."""
    return cache_dir() / name


def run_folder(name: str, run_id: str) -> Path:
    """``<cache>/<name>/<run id>``: one run's side files, when the run writes no output folder
    (the same folder for the run resumed); not created here."""
    return cache_folder(name) / run_id


def write_csv(path: Path, columns: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Rows as CSV, as ``DataFrame.to_csv(index=False)`` writes them: a header, then the
    values, an empty field for None and NaN (a row's missing column too)."""
    columns = list(columns)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([_csv_value(row.get(c)) for c in columns] for row in rows)


def _csv_value(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value
