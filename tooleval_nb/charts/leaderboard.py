"""The model leaderboard: mean score per model with its confidence interval over cases.

A case's samples are first averaged, then the interval of the mean over cases is
:func:`tooleval_nb.scoring.mean_ci`, the package's one interval (Wilson for a pass rate, t for a
score), so the leaderboard and an experiment show the same interval for the same run; the
``ci_method`` column and the chart title name it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..scoring.interval import interval_method, mean_ci
from .embed import drawn_offline
from .frame import SCORE_SCALE, empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["leaderboard_table", "leaderboard_chart", "Metric"]

#: The score columns a leaderboard can rank by (``score`` is ``overall`` with errors as 0).
Metric = Literal["overall", "tool_score", "param_score", "passed"]

LEADERBOARD_COLUMNS = [
    "label",
    "model",
    "mode",
    "n_cases",
    "mean",
    "ci_low",
    "ci_high",
    "ci_method",
    "pass_rate",
    "n_errors",
]


def _metric_column(df: pd.DataFrame, metric: Metric) -> pd.Series:
    import pandas as pd

    if metric == "overall":
        return df["score"]
    if metric == "passed":
        return df["passed"].astype(float)
    return pd.to_numeric(df[metric], errors="coerce")


def leaderboard_table(
    results: pd.DataFrame, metric: Metric = "overall", ci: float = 0.95
) -> pd.DataFrame:
    """One row per model (label), best first, with the interval of ``metric`` over cases.

    Columns: ``label, model, mode, n_cases, mean, ci_low, ci_high, ci_method, pass_rate,
    n_errors``; the interval is :func:`tooleval_nb.scoring.mean_ci` and ``ci_method`` names it.
    ``param_score`` ignores cases whose parameters were not scored; ``overall`` counts errors as 0.
    """
    import pandas as pd

    require_columns(results, ["model", "case_id", "overall", "passed"], "leaderboard_table")
    df = prepare(results)
    df["value"] = _metric_column(df, metric)
    if "error" in df.columns:
        df["errored"] = df["error"].notna() & (df["error"].astype(str) != "")
    else:
        df["errored"] = False
    rows = []
    for (label, model, mode), grp in df.groupby(["label", "model", "mode"], sort=False):
        per_case = grp.groupby("case_id", sort=False).agg(
            value=("value", "mean"), passed=("passed", "mean")
        )
        values = per_case["value"].dropna().to_numpy()
        _, low, high = mean_ci(values, ci)
        rows.append(
            {
                "label": label,
                "model": model,
                "mode": mode,
                "n_cases": len(per_case),
                "mean": float(per_case["value"].mean()),
                "ci_low": low,
                "ci_high": high,
                "ci_method": interval_method(values),
                "pass_rate": float(per_case["passed"].mean()),
                "n_errors": int(grp["errored"].sum()),
            }
        )
    table = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)
    return table.sort_values(
        ["mean", "label"], ascending=[False, True], na_position="last"
    ).reset_index(drop=True)


@drawn_offline
def leaderboard_chart(
    results: pd.DataFrame, metric: Metric = "overall", ci: float = 0.95, title: str | None = None
) -> alt.TopLevelMixin:
    """Horizontal bars of the mean ``metric`` per model with its interval as error bars.

    Args:
        results: ``Run.results_df()``.
        metric: Which score to rank by.
        ci: Interval coverage.
        title: Chart title (default names the metric and the coverage).
    """
    import altair as alt

    table = leaderboard_table(results, metric=metric, ci=ci)
    methods = " / ".join(sorted(set(table["ci_method"]))) or "t"
    title = title or f"Leaderboard: mean {metric} with {ci:.0%} CI over cases ({methods})"
    if table.empty:
        return empty_chart("no results to rank", title)
    order = table["label"].tolist()
    base = alt.Chart(table).encode(
        y=alt.Y("label:N", sort=order, title="model"),
        tooltip=[
            alt.Tooltip("label:N", title="model"),
            alt.Tooltip("mode:N"),
            alt.Tooltip("n_cases:Q", title="cases"),
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
            alt.Tooltip("ci_method:N", title="CI"),
            alt.Tooltip("pass_rate:Q", format=".1%", title="pass rate"),
            alt.Tooltip("n_errors:Q", title="errors"),
        ],
    )
    bars = base.mark_bar().encode(
        x=alt.X("mean:Q", scale=alt.Scale(domain=[0, 1]), title=f"mean {metric}"),
        color=alt.Color("mean:Q", scale=alt.Scale(**SCORE_SCALE), legend=None),
    )
    errors = base.mark_errorbar(ticks=True, color="black").encode(
        x=alt.X("ci_low:Q", title=f"mean {metric}"), x2="ci_high:Q"
    )
    labels = base.mark_text(align="left", dx=4, dy=-8, fontSize=11).encode(
        x="ci_high:Q", text=alt.Text("mean:Q", format=".2f")
    )
    return alt.layer(bars, errors, labels).properties(title=title, width=420, height=alt.Step(28))
