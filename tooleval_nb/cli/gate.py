"""The CI gates of ``run`` and ``report``: ``--fail-under SCORE`` and ``--fail-on-errors``; and
the note on errored cases that ``run`` prints whether or not a gate is set.

Pure: a results frame in, lines out (the reasons a gate failed, one each; none when it passed).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["error_notes", "gate_failures"]

#: how much of an error message a note shows
NOTE_CHARS = 200


def gate_failures(
    results: pd.DataFrame, fail_under: float | None = None, fail_on_errors: bool = False
) -> list[str]:
    """Why the gates fail for ``results`` (``Run.results_df`` rows, any number of runs).

    ``fail_under``: every model's mean ``overall`` over all its rows must reach it (a model
    with no rows fails). ``fail_on_errors``: no row may carry an ``error``.
    """
    reasons: list[str] = []
    if fail_under is not None:
        if not len(results):
            reasons.append(f"no results to hold to --fail-under {fail_under:g}")
        for model, part in results.groupby("model", sort=False) if len(results) else []:
            mean = float(part["overall"].mean())
            if not mean >= fail_under:  # NaN fails too
                reasons.append(
                    f"{model}: mean overall {mean:.3f} < --fail-under "
                    f"{fail_under:g} over {len(part)} results"
                )
    if fail_on_errors and len(results):
        errored = results[results["error"].notna()]
        if len(errored):
            first = errored.iloc[0]
            reasons.append(
                f"{len(errored)} of {len(results)} results errored "
                f"(--fail-on-errors), first: {first['model']} on case "
                f"{first['case_id']}: {str(first['error'])[:120]}"
            )
    return reasons


def error_notes(results: pd.DataFrame) -> list[str]:
    """One line per model whose cases errored: how many, and its commonest error with how often
    it happened, so that a run whose every case failed to reach the model says why.

    ``results`` are ``Run.results_df`` rows (any number of runs); models without an errored row
    get no line.
    """
    if not len(results) or "error" not in results.columns:
        return []
    notes = []
    kinds = (
        results["error_type"].tolist() if "error_type" in results.columns else [None] * len(results)
    )
    by_model: dict[str, tuple[int, Counter[str]]] = {}
    for model, error, kind in zip(
        results["model"].tolist(), results["error"].tolist(), kinds, strict=True
    ):
        total, errors = by_model.setdefault(str(model), (0, Counter()))
        by_model[str(model)] = (total + 1, errors)
        if isinstance(error, str) and error:
            errors[f"{kind}: {error}" if isinstance(kind, str) and kind else error] += 1
    for model, (total, errors) in by_model.items():
        if not errors:
            continue
        ((message, times),) = errors.most_common(1)  # ties: the first seen
        if len(message) > NOTE_CHARS:
            message = message[: NOTE_CHARS - 3] + "..."
        others = f"; {len(errors) - 1} other error message(s)" if len(errors) > 1 else ""
        notes.append(
            f"{model}: {errors.total()} of {total} cases errored; {times}x {message}{others}"
        )
    return notes
