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
Pure: a DataFrame in, a DataFrame out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

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

__all__ = ["CATEGORY_COLUMNS", "LEADERBOARD_COLUMNS", "category_table", "leaderboard"]

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

    rows = []
    if len(entries):
        for (model, mode, category), part in entries.groupby(["model", "mode", "category"],
                                                              sort=False):
            passed = part["passed"].astype(float).to_numpy()
            mean, low, high = mean_ci(passed, ci)
            param = part["param_score"].dropna() if "param_score" in part else part.iloc[:0]
            rows.append({
                "model": model, "mode": mode, "category": category,
                "group": group_of(str(category)), "n": len(part),
                "n_passed": int(part["passed"].sum()), "accuracy": mean, "ci_low": low,
                "ci_high": high, "n_errored": int(part["errored"].sum()),
                "n_decoder_failed": int(part["decoder_failed"].sum()),
                "tool_score": float(part["tool_score"].mean()) if "tool_score" in part
                else math.nan,
                "param_score": float(param.mean()) if len(param) else math.nan,
                "overall": float(part["overall"].mean()) if "overall" in part else math.nan})
    order = {c: i for i, c in enumerate(CATEGORIES)}
    df = pd.DataFrame(rows, columns=list(CATEGORY_COLUMNS))
    if len(df):
        df = df.sort_values(["model", "mode", "category"], key=lambda s: s.map(order)
                            if s.name == "category" else s, kind="stable").reset_index(drop=True)
    return df


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def leaderboard(entries: pd.DataFrame) -> pd.DataFrame:
    """BFCL's leaderboard row per model × mode (see the module docstring)."""
    import pandas as pd

    table = category_table(entries)
    rows = []
    for (model, mode), part in table.groupby(["model", "mode"], sort=False):
        acc: dict[str, float] = dict(zip(part["category"], part["accuracy"], strict=True))
        n: dict[str, int] = dict(zip(part["category"], part["n"], strict=True))
        simple = _mean([acc[c] for c in SIMPLE_PARTS if c in acc])
        non_live = _mean([v for v in [simple, *(acc.get(c) for c in NON_LIVE_AST)]
                          if v is not None and not math.isnan(v)])
        live_n = sum(n[c] for c in LIVE_AST if c in n)
        live = (sum(acc[c] * n[c] for c in LIVE_AST if c in acc) / live_n) if live_n else math.nan
        irrelevance = _mean([acc[c] for c in ("irrelevance", "live_irrelevance") if c in acc])
        model_entries = entries[(entries["model"] == model) & (entries["mode"] == mode)]
        param = model_entries["param_score"].dropna()
        row: dict[str, Any] = {
            "model": model, "mode": mode, "non_live_overall": non_live, "simple": simple,
            "live_overall": live, "irrelevance_detection": irrelevance,
            "relevance_detection": acc.get("live_relevance", math.nan),
            "n_entries": int(part["n"].sum()), "n_passed": int(part["n_passed"].sum()),
            "n_errored": int(part["n_errored"].sum()),
            "n_decoder_failed": int(part["n_decoder_failed"].sum()),
            "tool_score": float(model_entries["tool_score"].mean()),
            "param_score": float(param.mean()) if len(param) else math.nan,
            "categories_run": ",".join(part["category"])}
        for c in (*SIMPLE_PARTS, *NON_LIVE_AST, *LIVE_AST, "irrelevance", "live_irrelevance",
                  "live_relevance"):
            row[c] = acc.get(c, math.nan)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(LEADERBOARD_COLUMNS))
