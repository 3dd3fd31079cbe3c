"""The report's τ²-bench section: the τ² runs among the report's runs, scored from the store.

A run made by ``te.run_tau2`` stores each simulation with its row; the report reads them back
(:func:`tooleval_nb.tau2.run.load_tau2_run`: tau2's own evaluator, no model called) and shows
pass^k with its interval per model and domain, and the reward's parts per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..tau2.run import is_tau2_run, load_tau2_run

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..runner import Run

__all__ = ["tau2_frames"]


def tau2_frames(runs: Sequence[Run]) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """``(scores, results)`` of the τ² runs among ``runs`` (``tau2_scores()`` and
    ``tau2_results_df()``, every τ² run's rows together), or None when there is none."""
    import pandas as pd

    scored: list[Any] = [load_tau2_run(run) for run in runs if is_tau2_run(run)]
    if not scored:
        return None
    scores = pd.concat([s.tau2_scores() for s in scored], ignore_index=True)
    results = pd.concat([s.tau2_results_df() for s in scored], ignore_index=True)
    return scores, results
