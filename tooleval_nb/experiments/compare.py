"""``te.compare(run_b, run_a)``: the paired delta of two runs on their common cases, with a CI.

Runs are anything with ``results_df()`` (a :class:`tooleval_nb.runner.Run`) or a results
DataFrame with the runner's columns (at least ``case_id`` and the metric). Per case, samples are
averaged first; a case that errored scores 0 (an error is a failure, never dropped from the
denominator). Metrics: ``score`` (= ``overall``), ``passed``, or any numeric results column.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import ExperimentError
from .stats import Method, PairedResult, paired

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "COMPARE_COLUMNS",
    "METRIC_ALIASES",
    "case_scores",
    "compare",
    "compare_scores",
    "results_frame",
    "run_label",
]

#: ``score`` is the runner's ``overall`` column; pass metrics are the boolean ``passed``
METRIC_ALIASES = {"score": "overall", "pass": "passed", "pass_rate": "passed"}

#: columns of the frame :func:`compare` returns (in order)
COMPARE_COLUMNS = [
    "n_common",
    "mean_a",
    "mean_b",
    "delta",
    "ci_low",
    "ci_high",
    "p_value",
    "method",
    "wins",
    "losses",
    "ties",
    "mde80",
    "sd_diff",
    "ci",
    "metric",
    "run_a",
    "run_b",
]


def results_frame(run: Any) -> pd.DataFrame:
    """The per-case results frame of a run (a Run, anything with ``results_df()``, or a frame)."""
    import pandas as pd

    if isinstance(run, pd.DataFrame):
        return run
    getter = getattr(run, "results_df", None)
    if callable(getter):
        return getter()
    raise ExperimentError(
        f"cannot compare {type(run).__name__}: pass a Run (te.run_eval(...)"
        ".result()) or its results_df()"
    )


def run_label(run: Any) -> str | None:
    """The run id of a Run or of a results frame with a single ``run_id``."""
    for attr in ("run_id", "id"):
        value = getattr(run, attr, None)
        if isinstance(value, str):
            return value
    try:
        ids = results_frame(run)["run_id"].dropna().unique()
    except (ExperimentError, KeyError):
        return None
    return str(ids[0]) if len(ids) == 1 else None


def case_scores(
    df: pd.DataFrame,
    metric: str = "score",
    *,
    model: str | None = None,
    cluster: str | None = None,
    cases: Iterable[str] | None = None,
) -> tuple[pd.Series, pd.Series | None]:
    """Per-case metric (mean over samples; errors count 0), and the cluster label per case."""
    column = METRIC_ALIASES.get(metric, metric)
    if column not in df.columns:
        raise ExperimentError(
            f"metric {metric!r}: the results have no column {column!r} "
            f"(columns: {', '.join(map(str, df.columns))})"
        )
    if "case_id" not in df.columns:
        raise ExperimentError("results need a 'case_id' column to pair cases")
    if "model" in df.columns:
        models = df["model"].dropna().unique()
        if model is not None:
            df = df[df["model"] == model]
        elif len(models) > 1:
            raise ExperimentError(
                f"the run holds {len(models)} models ({', '.join(map(str, models))})"
                ": pass model=... to compare one of them"
            )
    if cases is not None:
        df = df[df["case_id"].isin(set(cases))]
    values = df[column].astype(float).fillna(0.0)
    per_case = values.groupby(df["case_id"], sort=False).mean()
    labels = None
    if cluster is not None:
        if cluster not in df.columns:
            raise ExperimentError(f"cluster={cluster!r}: the results have no such column")
        labels = df[cluster].astype(str).groupby(df["case_id"], sort=False).first()
    return per_case, labels


def compare_scores(
    a: pd.Series,
    b: pd.Series,
    *,
    clusters: pd.Series | None = None,
    ci: float = 0.95,
    method: Method = "auto",
    seed: int = 0,
    n_boot: int = 10_000,
) -> PairedResult:
    """Paired comparison of two per-case score series, on their common case ids."""
    common = [c for c in a.index if c in b.index]
    lab = None if clusters is None else [clusters.get(c, "") for c in common]
    return paired(
        a.loc[common].to_numpy(),
        b.loc[common].to_numpy(),
        clusters=lab,
        ci=ci,
        method=method,
        seed=seed,
        n_boot=n_boot,
    )


def compare(
    run_b: Any,
    run_a: Any,
    metric: str = "score",
    *,
    cluster: str | None = None,
    ci: float = 0.95,
    method: Method = "auto",
    seed: int = 0,
    model: str | None = None,
    cases: Iterable[str] | None = None,
    n_boot: int = 10_000,
) -> pd.DataFrame:
    """Paired comparison of ``run_b`` against ``run_a`` on their common cases.

    Args:
        run_b: the candidate run (or its results frame).
        run_a: the reference run.
        metric: ``score`` (overall), ``passed`` or any numeric results column.
        cluster: a results column (e.g. ``category``) to resample by cluster.
        ci: confidence level.
        method: ``auto`` (exact McNemar for binary metrics, else a seeded paired bootstrap),
            ``mcnemar``, ``bootstrap`` or ``t``.
        seed: bootstrap seed.
        model: which model's rows, when a run holds several.
        cases: restrict to these case ids.
        n_boot: bootstrap resamples.

    Returns:
        One-row DataFrame with columns :data:`COMPARE_COLUMNS`: ``n_common, mean_a, mean_b,
        delta, ci_low, ci_high, p_value, method, wins, losses, ties, mde80`` (then ``sd_diff,
        ci, metric, run_a, run_b``). ``delta = mean_b - mean_a``; wins are cases where b scores
        higher.
    """
    import pandas as pd

    a, la = case_scores(results_frame(run_a), metric, model=model, cluster=cluster, cases=cases)
    b, lb = case_scores(results_frame(run_b), metric, model=model, cluster=cluster, cases=cases)
    common = [c for c in a.index if c in b.index]
    if not common:
        raise ExperimentError(
            "the two runs share no case ids: compare runs of the same suite (or pass cases=...)"
        )
    labels = None
    if cluster is not None:
        merged = la.combine_first(lb) if la is not None and lb is not None else la
        labels = merged
    res = compare_scores(a, b, clusters=labels, ci=ci, method=method, seed=seed, n_boot=n_boot)
    row = {**res.as_dict(), "metric": metric, "run_a": run_label(run_a), "run_b": run_label(run_b)}
    return pd.DataFrame([row], columns=COMPARE_COLUMNS)
