"""BFCL's leaderboard numbers from per-entry verdicts (the frame of :mod:`.verdicts`).

* per category: accuracy = passed / entries, every entry counted (an entry whose model call
  failed is a failure in the denominator), with a Wilson interval (:func:`scoring.mean_ci`);
* ``simple``: the unweighted mean of ``simple_python``, ``simple_java`` and
  ``simple_javascript``; ``non_live_overall``: the unweighted mean of ``simple``, ``multiple``,
  ``parallel`` and ``parallel_multiple``;
* ``live_overall``: the live AST categories pooled (a mean weighted by their entry counts);
* hallucination: ``irrelevance_detection`` (the unweighted mean of ``irrelevance`` and
  ``live_irrelevance``) and ``relevance_detection`` (``live_relevance``).

An aggregate is computed over the categories that were run (NaN when none was): with some
missing it is not comparable with the public leaderboard, and ``categories_run`` says which.
Pure: a DataFrame in, a DataFrame out (or rows in, rows out: :func:`category_rows`,
:func:`leaderboard_rows`, which need no pandas).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scoring import mean_ci
from .categories import (
    CATEGORIES,
    LIVE_AST,
    NON_LIVE_AST,
    SIMPLE_PARTS,
    group_of,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["CATEGORY_COLUMNS", "LEADERBOARD_COLUMNS", "category_table", "leaderboard",
           "category_rows", "leaderboard_rows"]

#: ``category_table``: one row per model × mode × category
CATEGORY_COLUMNS: tuple[str, ...] = (
    "model", "mode", "category", "group", "n", "n_passed", "accuracy", "ci_low", "ci_high",
    "n_errored", "n_decoder_failed", "tool_score", "param_score", "overall")

#: ``leaderboard`` (``run.bfcl_scores()``): one row per model × mode
LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "model", "mode", "non_live_overall", "simple", *SIMPLE_PARTS, *NON_LIVE_AST, "live_overall",
    *LIVE_AST, "irrelevance_detection", "relevance_detection", "irrelevance", "live_irrelevance",
    "live_relevance", "n_entries", "n_passed", "n_errored", "n_decoder_failed", "tool_score",
    "param_score", "categories_run")


def category_table(entries: pd.DataFrame, ci: float = 0.95) -> pd.DataFrame:
    """Accuracy per model × mode × category, with its interval and failure counts."""
    import pandas as pd

    rows = category_rows(entries.to_dict("records"), ci)
    return pd.DataFrame(rows, columns=list(CATEGORY_COLUMNS))


def leaderboard(entries: pd.DataFrame) -> pd.DataFrame:
    """BFCL's leaderboard row per model × mode (see the module docstring)."""
    import pandas as pd

    rows = leaderboard_rows(entries.to_dict("records"))
    return pd.DataFrame(rows, columns=list(LEADERBOARD_COLUMNS))


def category_rows(entries: Iterable[Mapping[str, Any]], ci: float = 0.95
                  ) -> list[dict[str, Any]]:
    """:func:`category_table` on entry rows (the rows of :mod:`.verdicts`), as dicts: in model,
    mode and BFCL's category order."""
    groups: dict[tuple[Any, Any, Any], list[Mapping[str, Any]]] = {}
    for entry in entries:
        groups.setdefault((entry["model"], entry["mode"], entry["category"]), []).append(entry)
    rows = []
    for (model, mode, category), part in groups.items():
        mean, low, high = mean_ci([float(bool(e["passed"])) for e in part], ci)
        rows.append({
            "model": model, "mode": mode, "category": category,
            "group": group_of(str(category)), "n": len(part),
            "n_passed": sum(1 for e in part if e["passed"]), "accuracy": mean, "ci_low": low,
            "ci_high": high, "n_errored": sum(1 for e in part if e["errored"]),
            "n_decoder_failed": sum(1 for e in part if e["decoder_failed"]),
            "tool_score": _column_mean(part, "tool_score"),
            "param_score": _column_mean(part, "param_score"),
            "overall": _column_mean(part, "overall")})
    order = {c: i for i, c in enumerate(CATEGORIES)}
    rows.sort(key=lambda r: (r["model"], r["mode"], order.get(r["category"], len(order))))
    return rows


def leaderboard_rows(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """:func:`leaderboard` on entry rows, as dicts (one per model × mode, in that order)."""
    entries = list(entries)
    table: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for cat_row in category_rows(entries):
        table.setdefault((cat_row["model"], cat_row["mode"]), []).append(cat_row)
    by_model: dict[tuple[Any, Any], list[Mapping[str, Any]]] = {}
    for entry in entries:
        by_model.setdefault((entry["model"], entry["mode"]), []).append(entry)
    rows = []
    for (model, mode), part in table.items():
        acc: dict[str, float] = {r["category"]: r["accuracy"] for r in part}
        n: dict[str, int] = {r["category"]: r["n"] for r in part}
        simple = _mean([acc[c] for c in SIMPLE_PARTS if c in acc])
        non_live = _mean([v for v in [simple, *(acc.get(c) for c in NON_LIVE_AST)]
                          if v is not None and not math.isnan(v)])
        live_n = sum(n[c] for c in LIVE_AST if c in n)
        live = (sum(acc[c] * n[c] for c in LIVE_AST if c in acc) / live_n) if live_n else math.nan
        irrelevance = _mean([acc[c] for c in ("irrelevance", "live_irrelevance") if c in acc])
        model_entries = by_model[(model, mode)]
        row: dict[str, Any] = {
            "model": model, "mode": mode, "non_live_overall": non_live, "simple": simple,
            "live_overall": live, "irrelevance_detection": irrelevance,
            "relevance_detection": acc.get("live_relevance", math.nan),
            "n_entries": sum(r["n"] for r in part), "n_passed": sum(r["n_passed"] for r in part),
            "n_errored": sum(r["n_errored"] for r in part),
            "n_decoder_failed": sum(r["n_decoder_failed"] for r in part),
            "tool_score": _column_mean(model_entries, "tool_score"),
            "param_score": _column_mean(model_entries, "param_score"),
            "categories_run": ",".join(r["category"] for r in part)}
        for c in (*SIMPLE_PARTS, *NON_LIVE_AST, *LIVE_AST, "irrelevance", "live_irrelevance",
                  "live_relevance"):
            row[c] = acc.get(c, math.nan)
        rows.append(row)
    return rows


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _column_mean(rows: list[Mapping[str, Any]], column: str) -> float:
    """The mean of a column's values that are set (None and NaN left out; NaN when none is),
    summed as pandas sums a column (numpy's pairwise sum), so the frames keep their digits."""
    values = [v for v in (r.get(column) for r in rows)
              if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not values:
        return math.nan
    return float(np.asarray(values, dtype=float).sum() / len(values))
