"""Score BFCL result files already on disk (ours or any BFCL model's) with our checker.

:func:`score_result_files` reads every ``BFCL_v4_<category>_result.json`` under a folder,
refuses a file whose ids are not entries of the data (another dataset version), and returns
the per-entry frame of :mod:`.verdicts` (the leaderboard follows with
:func:`.scores.leaderboard`). It imports neither the runner nor any model code.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SuiteError
from .categories import SINGLE_TURN as CATEGORIES, VERSION_PREFIX
from .data import BfclData
from .results import check_result_file, read_manifest, read_result_file
from .verdicts import ENTRY_COLUMNS, verdict_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["score_result_files", "find_result_files"]


def find_result_files(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """``category -> path`` of the result files under ``folder`` (a file is taken as is)."""
    root = Path(folder)
    files = [root] if root.is_file() else sorted(root.rglob(f"{VERSION_PREFIX}_*_result.json"))
    out: dict[str, Path] = {}
    for path in files:
        category = path.name[len(VERSION_PREFIX) + 1:-len("_result.json")]
        if category not in CATEGORIES:
            continue  # multi-turn, agentic: not scored here
        if category in out:
            raise SuiteError(f"{folder}: two result files for {category}: {out[category]} and "
                             f"{path}; give one model's folder", path=str(folder))
        out[category] = path
    if out:
        return {c: out[c] for c in CATEGORIES if c in out}  # BFCL's order
    raise SuiteError(f"{folder}: no BFCL_v4_<category>_result.json of a single-turn "
                         "category found", path=str(folder))


def score_result_files(folder: str | os.PathLike[str], mode: str = "fc", *,
                       data: BfclData | str | os.PathLike[str] | None = None,
                       model: str | None = None, prompt_format: str = "python",
                       credit: bool = True) -> pd.DataFrame:
    """Verdicts (and partial credit) for one model's result files.

    Args:
        folder: a model's result folder (``result/<model dir>``) or one result file.
        mode: how the results were produced: ``fc`` (names offered with ``_``) or ``prompt``.
        data: BFCL's data (a :class:`BfclData` or its folder; default located).
        model: the label in the frame (default: the manifest's model, else the folder name).
        credit: add our partial credit (False: verdicts only, faster).

    Raises:
        SuiteError: no result file, or a file whose ids are not in the data.
    """
    import pandas as pd

    bfcl = data if isinstance(data, BfclData) else BfclData(data)
    root = Path(folder)
    manifest = read_manifest(root if root.is_dir() else root.parent.parent) or {}
    label = model or manifest.get("model") or (root.name if root.is_dir() else root.parent.name)
    rows = []
    for category, path in find_result_files(root).items():
        cat_data = bfcl.category(category)
        entries = read_result_file(path)
        check_result_file(path, entries, cat_data)
        rows += verdict_rows(entries, cat_data, model=label, mode=mode,
                             prompt_format=prompt_format, credit=credit)
    df = pd.DataFrame(rows, columns=list(ENTRY_COLUMNS))
    df["passed"] = df["passed"].astype(bool)
    return df
