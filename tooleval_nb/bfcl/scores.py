"""BFCL's leaderboard numbers from per-entry verdicts (the frame of :mod:`.verdicts`).

* per category: accuracy = passed / entries, every entry counted (an entry whose model call
  failed is a failure in the denominator), with a Wilson interval (:func:`scoring.mean_ci`);
* ``simple``: the unweighted mean of ``simple_python``, ``simple_java`` and
  ``simple_javascript``; ``non_live_overall``: the unweighted mean of ``simple``, ``multiple``,
  ``parallel`` and ``parallel_multiple``;
* ``live_overall``: the live AST categories pooled (a mean weighted by their entry counts);
* hallucination: ``irrelevance_detection`` (the unweighted mean of ``irrelevance`` and
  ``live_irrelevance``) and ``relevance_detection`` (``live_relevance``);
* ``multi_turn_overall``: the unweighted mean of the four multi-turn categories; ``memory``:
  of the three memory backends; ``web_search``: of its two categories; ``agentic_overall``: of
  memory and web search;
* format sensitivity: ``format_sensitivity`` (accuracy over its entries) and BFCL's spread over
  its 26 prompt configurations, in percentage points: ``format_sensitivity_max_delta`` (best
  minus worst configuration) and ``format_sensitivity_std`` (their sample standard deviation).

These aggregates are computed over the categories that were run (NaN when none was).
``overall`` is BFCL V4's overall score computed exactly as bfcl-eval computes it
(``eval_runner_helper.generate_leaderboard_csv``, :func:`v4_overall`): 10% non-live, 10% live,
10% irrelevance, 30% multi-turn, 40% agentic (memory and web search half each), every category
not run counted as 0 (as bfcl-eval counts it). ``overall_partial`` is True when any scoring
category was not run, and ``categories_not_run`` names them (web search never runs offline, so
an offline overall is always partial: a lower bound, not the leaderboard's number). ``overall_non_live``, ``overall_live``, ``overall_irrelevance``,
``overall_multi_turn`` and ``overall_agentic`` are its five parts as bfcl-eval computes them
(:func:`v4_parts`: missing categories as 0), which ``charts.bfcl.overall_chart`` stacks.
Pure: a DataFrame in, a DataFrame out (or rows in, rows out: :func:`category_rows`,
:func:`leaderboard_rows`, which need no pandas).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..bfcl_rules.categories import (
    ENTRY_COUNTS,
    FORMAT_SENSITIVITY,
    KNOWN_CATEGORIES,
    LIVE_AST,
    MEMORY,
    MULTI_TURN,
    NON_LIVE_AST,
    OVERALL_WEIGHTS,
    SCORING,
    SIMPLE_PARTS,
    WEB_SEARCH,
    group_of,
)
from ..bfcl_rules.prompt import prompt_config_of
from ..scoring import mean_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CATEGORY_COLUMNS",
    "LEADERBOARD_COLUMNS",
    "OVERALL_WEIGHTS",
    "category_table",
    "leaderboard",
    "category_rows",
    "leaderboard_rows",
    "v4_overall",
    "v4_parts",
    "format_sensitivity_spread",
]

#: ``category_table``: one row per model × mode × category
CATEGORY_COLUMNS: tuple[str, ...] = (
    "model",
    "mode",
    "category",
    "group",
    "n",
    "n_passed",
    "accuracy",
    "ci_low",
    "ci_high",
    "n_errored",
    "n_decoder_failed",
    "tool_score",
    "param_score",
    "overall",
)

#: ``leaderboard`` (``run.bfcl_scores()``): one row per model × mode
LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "model",
    "mode",
    "overall",
    "overall_partial",
    *(f"overall_{p}" for p in OVERALL_WEIGHTS),
    "non_live_overall",
    "simple",
    *SIMPLE_PARTS,
    *NON_LIVE_AST,
    "live_overall",
    *LIVE_AST,
    "irrelevance_detection",
    "relevance_detection",
    "irrelevance",
    "live_irrelevance",
    "live_relevance",
    "multi_turn_overall",
    *MULTI_TURN,
    "agentic_overall",
    "memory",
    *MEMORY,
    "web_search",
    *WEB_SEARCH,
    FORMAT_SENSITIVITY,
    "format_sensitivity_max_delta",
    "format_sensitivity_std",
    "n_entries",
    "n_passed",
    "n_errored",
    "n_decoder_failed",
    "tool_score",
    "param_score",
    "categories_run",
    "categories_not_run",
)


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


def category_rows(entries: Iterable[Mapping[str, Any]], ci: float = 0.95) -> list[dict[str, Any]]:
    """:func:`category_table` on entry rows (the rows of :mod:`.verdicts`), as dicts: in model,
    mode and BFCL's category order."""
    groups: dict[tuple[Any, Any, Any], list[Mapping[str, Any]]] = {}
    for entry in entries:
        groups.setdefault((entry["model"], entry["mode"], entry["category"]), []).append(entry)
    rows = []
    for (model, mode, category), part in groups.items():
        mean, low, high = mean_ci([float(bool(e["passed"])) for e in part], ci)
        rows.append(
            {
                "model": model,
                "mode": mode,
                "category": category,
                "group": group_of(str(category)),
                "n": len(part),
                "n_passed": sum(1 for e in part if e["passed"]),
                "accuracy": mean,
                "ci_low": low,
                "ci_high": high,
                "n_errored": sum(1 for e in part if e["errored"]),
                "n_decoder_failed": sum(1 for e in part if e["decoder_failed"]),
                "tool_score": _column_mean(part, "tool_score"),
                "param_score": _column_mean(part, "param_score"),
                "overall": _column_mean(part, "overall"),
            }
        )
    order = {c: i for i, c in enumerate(KNOWN_CATEGORIES)}
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
        non_live = _mean(
            [
                v
                for v in [simple, *(acc.get(c) for c in NON_LIVE_AST)]
                if v is not None and not math.isnan(v)
            ]
        )
        live_n = sum(n[c] for c in LIVE_AST if c in n)
        live = (sum(acc[c] * n[c] for c in LIVE_AST if c in acc) / live_n) if live_n else math.nan
        irrelevance = _mean([acc[c] for c in ("irrelevance", "live_irrelevance") if c in acc])
        memory = _mean([acc[c] for c in MEMORY if c in acc])
        web_search = _mean([acc[c] for c in WEB_SEARCH if c in acc])
        model_entries = by_model[(model, mode)]
        overall, not_run = v4_overall(acc, n)
        parts = v4_parts(acc, n)
        max_delta, std = format_sensitivity_spread(
            [e for e in model_entries if e["category"] == FORMAT_SENSITIVITY]
        )
        row: dict[str, Any] = {
            "model": model,
            "mode": mode,
            "overall": overall,
            "overall_partial": bool(not_run),
            **{f"overall_{p}": v for p, v in parts.items()},
            "non_live_overall": non_live,
            "simple": simple,
            "live_overall": live,
            "irrelevance_detection": irrelevance,
            "relevance_detection": acc.get("live_relevance", math.nan),
            "multi_turn_overall": _mean([acc[c] for c in MULTI_TURN if c in acc]),
            "memory": memory,
            "web_search": web_search,
            "agentic_overall": _mean([v for v in (memory, web_search) if not math.isnan(v)]),
            "format_sensitivity_max_delta": max_delta,
            "format_sensitivity_std": std,
            "n_entries": sum(r["n"] for r in part),
            "n_passed": sum(r["n_passed"] for r in part),
            "n_errored": sum(r["n_errored"] for r in part),
            "n_decoder_failed": sum(r["n_decoder_failed"] for r in part),
            "tool_score": _column_mean(model_entries, "tool_score"),
            "param_score": _column_mean(model_entries, "param_score"),
            "categories_run": ",".join(r["category"] for r in part),
            "categories_not_run": ",".join(not_run),
        }
        for c in (
            *SIMPLE_PARTS,
            *NON_LIVE_AST,
            *LIVE_AST,
            "irrelevance",
            "live_irrelevance",
            "live_relevance",
            *MULTI_TURN,
            *MEMORY,
            *WEB_SEARCH,
            FORMAT_SENSITIVITY,
        ):
            row[c] = acc.get(c, math.nan)
        rows.append(row)
    return rows


def v4_overall(accuracy: Mapping[str, float], counts: Mapping[str, int]) -> tuple[float, list[str]]:
    """BFCL V4's overall score from per-category accuracies and entry counts, as bfcl-eval's
    ``generate_leaderboard_csv`` computes it, and the scoring categories that were not run."""
    parts = v4_parts(accuracy, counts)
    total = sum(OVERALL_WEIGHTS.values())
    overall = sum(parts[g] * w / total for g, w in OVERALL_WEIGHTS.items())
    not_run = [c for c in SCORING if c not in accuracy or math.isnan(accuracy[c])]
    return overall, not_run


def v4_parts(accuracy: Mapping[str, float], counts: Mapping[str, int]) -> dict[str, float]:
    """The five parts of BFCL V4's overall (:data:`OVERALL_WEIGHTS`' keys), as bfcl-eval
    computes them.

    A category not run counts as accuracy 0 with its full size (bfcl-eval's
    ``get_category_score``). simple = mean(simple_python, simple_java, simple_javascript);
    non-live = mean(simple, multiple, parallel, parallel_multiple); live = the four live AST
    categories weighted by their counts; irrelevance = mean(irrelevance, live_irrelevance);
    multi-turn = mean of its four; agentic = mean(mean(web search's two), mean(memory's
    three)); overall = the five weighted by :data:`OVERALL_WEIGHTS`.
    """

    def part(category: str) -> tuple[float, int]:
        if category in accuracy and not math.isnan(accuracy[category]):
            return float(accuracy[category]), int(counts.get(category, 0))
        return 0.0, ENTRY_COUNTS[category]

    def unweighted(values: Iterable[float]) -> float:
        values = list(values)
        return sum(values) / len(values)

    def weighted(categories: Iterable[str]) -> float:
        parts = [part(c) for c in categories]
        return sum(a * k for a, k in parts) / sum(k for _, k in parts)

    simple = unweighted(part(c)[0] for c in SIMPLE_PARTS)
    return {
        "non_live": unweighted([simple, *(part(c)[0] for c in NON_LIVE_AST)]),
        "live": weighted(LIVE_AST),
        "irrelevance": unweighted(part(c)[0] for c in ("irrelevance", "live_irrelevance")),
        "multi_turn": unweighted(part(c)[0] for c in MULTI_TURN),
        "agentic": unweighted(
            [unweighted(part(c)[0] for c in WEB_SEARCH), unweighted(part(c)[0] for c in MEMORY)]
        ),
    }


def format_sensitivity_spread(entries: Iterable[Mapping[str, Any]]) -> tuple[float, float]:
    """BFCL's spread of format sensitivity over its prompt configurations (each entry's from its
    id), in percentage points rounded to 2 places: (best minus worst accuracy, their sample
    standard deviation); 0 and 0 for one configuration, NaN and NaN for none."""
    tally: dict[str, list[int]] = {}
    for entry in entries:
        counts = tally.setdefault(prompt_config_of(str(entry["id"])), [0, 0])
        counts[0] += bool(entry["passed"])
        counts[1] += 1
    accuracies = [passed / total for passed, total in tally.values()]
    if not accuracies:
        return math.nan, math.nan
    if len(accuracies) == 1:
        return 0.0, 0.0
    return (
        round((max(accuracies) - min(accuracies)) * 100, 2),
        round(statistics.stdev(accuracies) * 100, 2),
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _column_mean(rows: list[Mapping[str, Any]], column: str) -> float:
    """The mean of a column's values that are set (None and NaN left out; NaN when none is),
    summed as pandas sums a column (numpy's pairwise sum), so the frames keep their digits."""
    values = [
        v
        for v in (r.get(column) for r in rows)
        if v is not None and not (isinstance(v, float) and math.isnan(v))
    ]
    if not values:
        return math.nan
    return float(np.asarray(values, dtype=float).sum() / len(values))
