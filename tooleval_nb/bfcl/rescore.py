"""Score BFCL result files already on disk (ours or any BFCL model's) with our checker.

:func:`score_result_files` reads every ``BFCL_v4_<category>_result.json`` under a folder
(BFCL nests them: ``non_live/``, ``live/``, ``multi_turn/``, ``agentic/memory/<backend>/``),
refuses a file whose ids are not entries of the data (another dataset version), and returns
the per-entry frame of :mod:`.verdicts`: BFCL's verdict and ``error_type`` per entry, for the
single-turn, multi-turn and memory categories alike, with our partial or per-turn credit
beside it (the leaderboard follows with :func:`.scores.leaderboard`). It imports neither the
runner nor any model code; multi-turn imports BFCL's environment classes (the ``bfcl`` extra).
A memory prerequisite file (``memory_<backend>_prereq``) is not scored, as in BFCL.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..bfcl_rules.categories import (
    FORMAT_SENSITIVITY,
    MEMORY,
    MULTI_TURN,
    SINGLE_TURN,
    VERSION_PREFIX,
)
from ..bfcl_rules.data import BfclData
from ..errors import SuiteError
from .results import check_result_file, read_manifest, read_result_file
from .verdicts import ENTRY_COLUMNS, verdict_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["score_result_files", "find_result_files", "SCORED"]

#: the categories whose result files are scored here, in BFCL's order
SCORED: tuple[str, ...] = SINGLE_TURN + MULTI_TURN + MEMORY + (FORMAT_SENSITIVITY,)


def find_result_files(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """``category -> path`` of the result files under ``folder`` (a file is taken as is)."""
    root = Path(folder)
    files = [root] if root.is_file() else sorted(root.rglob(f"{VERSION_PREFIX}_*_result.json"))
    out: dict[str, Path] = {}
    for path in files:
        category = path.name[len(VERSION_PREFIX) + 1 : -len("_result.json")]
        if category not in SCORED:
            continue  # memory prerequisites, web search: not scored (BFCL skips the first)
        if category in out:
            raise SuiteError(
                f"{folder}: two result files for {category}: {out[category]} and "
                f"{path}; give one model's folder",
                path=str(folder),
            )
        out[category] = path
    if out:
        return {c: out[c] for c in SCORED if c in out}  # BFCL's order
    raise SuiteError(
        f"{folder}: no BFCL_v4_<category>_result.json of a category scored here "
        f"found ({', '.join(SCORED)})",
        path=str(folder),
    )


#: the folders BFCL nests result files in under a model's folder
_GROUP_FOLDERS = frozenset(
    {
        "non_live",
        "live",
        "multi_turn",
        "agentic",
        "memory",
        "kv",
        "vector",
        "rec_sum",
        "format_sensitivity",
        "web_search",
    }
)


def _folder_model(root: Path) -> str:
    """The model's folder name (BFCL's checker names its multi-turn instances after it)."""
    folder = root if root.is_dir() else root.parent
    while folder.name in _GROUP_FOLDERS and folder.parent != folder:
        folder = folder.parent
    return folder.name


def score_result_files(
    folder: str | os.PathLike[str],
    mode: str = "fc",
    *,
    data: BfclData | str | os.PathLike[str] | None = None,
    model: str | None = None,
    prompt_format: str = "python",
    credit: bool = True,
) -> pd.DataFrame:
    """Verdicts (and partial or per-turn credit) for one model's result files.

    Args:
        folder: a model's result folder (``result/<model dir>``) or one result file.
        mode: how the results were produced: ``fc`` (names offered with ``_``) or ``prompt``.
        data: BFCL's data (a :class:`BfclData` or its folder; default located).
        model: the label in the frame (default: the manifest's model, else the folder name).
        credit: add our partial credit, and for multi-turn the per-turn credit with each turn
            replayed from the ground truth's state (False: verdicts only, faster).

    Raises:
        SuiteError: no result file, or a file whose ids are not in the data.
    """
    import pandas as pd

    bfcl = data if isinstance(data, BfclData) else BfclData(data)
    root = Path(folder)
    bfcl_model = _folder_model(root)
    manifest = read_manifest(root if root.is_dir() else root.parent.parent) or {}
    label = model or manifest.get("model") or bfcl_model
    rows = []
    for category, path in find_result_files(root).items():
        cat_data = bfcl.category(category)
        entries = read_result_file(path)
        check_result_file(path, entries, cat_data)
        rows += verdict_rows(
            entries,
            cat_data,
            model=label,
            mode=mode,
            prompt_format=prompt_format,
            credit=credit,
            bfcl_model=bfcl_model,
        )
    df = pd.DataFrame(rows, columns=list(ENTRY_COLUMNS))
    df["passed"] = df["passed"].astype(bool)
    return df
