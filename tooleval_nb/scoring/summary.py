"""The summary of scores, one row per model: the one definition.

:func:`summarize_scores`: one row per model (per ``run_id`` / ``mode`` too when those columns
exist): ``n_cases, n_passed, n_failed, n_errored, pass_rate, tool_score, param_score,
overall``. A case whose model call failed is *errored*: it counts in ``n_cases`` (the
denominator of ``pass_rate``) and scores 0 in the means; it is never dropped. ``n_failed``
counts the other cases that did not pass, so ``n_cases = n_passed + n_failed + n_errored``.

**No rows** (the one rule, for every summary): the counts are 0 and the rates and means are
missing, never 0 (nothing was measured): None in a dict (:func:`summarize_rows`, the run store's
summaries and events), NaN in a DataFrame (pandas' missing float; ``Run.summary_df()``,
``te.history()``).

:func:`summarize_rows` is that summary for one model's rows, as the run store keeps them. Pure
and light (pandas loads inside :func:`summarize_scores`): the runner imports it without loading
the scorer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["summarize_rows", "summarize_scores", "SCORE_SUMMARY_COLUMNS"]

#: columns of :func:`summarize_scores` after the group keys: the one definition of a summary's
#: score columns. The one public ``SUMMARY_COLUMNS`` is the runner's (``Run.summary_df()``): run,
#: model and mode before these, latency, tokens and cost after.
SCORE_SUMMARY_COLUMNS = [
    "n_cases",
    "n_passed",
    "n_failed",
    "n_errored",
    "pass_rate",
    "tool_score",
    "param_score",
    "overall",
]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)  # None or NaN


def summarize_rows(rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """The :data:`SCORE_SUMMARY_COLUMNS` of one model's results, from rows of ``(passed, error,
    tool_score, param_score, overall)``: the one definition of a per-model summary (see the
    module docstring; :func:`summarize_scores` applies it per group, the run store to the rows
    it holds). A missing score (None or NaN) counts 0 in the means, except that an unscored
    parameter score of a case that did not error stays out of its mean. With no rows the rates
    and means are None (the module's no-rows rule)."""
    n = n_passed = n_errored = 0
    tool: list[float] = []
    overall: list[float] = []
    params: list[float] = []
    for passed, error, tool_score, param_score, overall_score in rows:
        n += 1
        errored = not _missing(error) and str(error) != ""
        if errored:
            n_errored += 1
            if not _missing(param_score):  # a scored parameter of an errored case is 0
                params.append(0.0)
            continue
        n_passed += not _missing(passed) and bool(passed)
        if not _missing(tool_score):
            tool.append(float(tool_score))
        if not _missing(overall_score):
            overall.append(float(overall_score))
        if not _missing(param_score):
            params.append(float(param_score))
    counts = {
        "n_cases": n,
        "n_passed": n_passed,
        "n_failed": n - n_passed - n_errored,
        "n_errored": n_errored,
    }
    if not n:
        return {
            **counts,
            "pass_rate": None,
            "tool_score": None,
            "param_score": None,
            "overall": None,
        }
    # math.fsum: exact, so the same rows give the same means in any order
    return {
        **counts,
        "pass_rate": n_passed / n,
        "tool_score": math.fsum(tool) / n,
        "param_score": math.fsum(params) / len(params) if params else None,
        "overall": math.fsum(overall) / n,
    }


def summarize_scores(df: pd.DataFrame) -> pd.DataFrame:
    """One row per model (and ``run_id`` / ``mode`` when present); see the module docstring
    and :func:`summarize_rows`."""
    import pandas as pd

    keys = [k for k in ("run_id", "model", "mode") if k in df.columns]
    if not keys:
        df = df.assign(model=None)
        keys = ["model"]
    rows = []
    for group, part in df.groupby(keys, dropna=False, sort=False):
        group = group if isinstance(group, tuple) else (group,)
        errors = part["error"].tolist() if "error" in part.columns else [None] * len(part)
        columns = (
            part["passed"].tolist(),
            errors,
            part["tool_score"].tolist(),
            part["param_score"].tolist(),
            part["overall"].tolist(),
        )
        rows.append(
            {**dict(zip(keys, group, strict=True)), **summarize_rows(zip(*columns, strict=True))}
        )
    return pd.DataFrame(rows, columns=[*keys, *SCORE_SUMMARY_COLUMNS])
