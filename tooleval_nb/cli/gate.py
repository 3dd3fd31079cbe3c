"""The CI gates of ``run`` and ``report``: ``--fail-under SCORE`` and ``--fail-on-errors``.

Pure: a results frame in, the reasons a gate failed out (one line each; none when it passed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["gate_failures"]


def gate_failures(results: pd.DataFrame, fail_under: float | None = None,
                  fail_on_errors: bool = False) -> list[str]:
    """Why the gates fail for ``results`` (``Run.results_df`` rows, any number of runs).

    ``fail_under``: every model's mean ``overall`` over all its rows must reach it (a model
    with no rows fails). ``fail_on_errors``: no row may carry an ``error``.
    """
    reasons: list[str] = []
    if fail_under is not None:
        if not len(results):
            reasons.append(f"no results to hold to --fail-under {fail_under:g}")
        for model, part in (results.groupby("model", sort=False) if len(results) else []):
            mean = float(part["overall"].mean())
            if not mean >= fail_under:  # NaN fails too
                reasons.append(f"{model}: mean overall {mean:.3f} < --fail-under "
                               f"{fail_under:g} over {len(part)} results")
    if fail_on_errors and len(results):
        errored = results[results["error"].notna()]
        if len(errored):
            first = errored.iloc[0]
            reasons.append(f"{len(errored)} of {len(results)} results errored "
                           f"(--fail-on-errors), first: {first['model']} on case "
                           f"{first['case_id']}: {str(first['error'])[:120]}")
    return reasons
