"""Multi-turn chains: completion, efficiency and the redundancy / detour penalties per model.

Seed 001: ``overall = completion * efficiency - redundancy - detour`` (clamped to 0..1). The chart
puts the four parts beside the overall score so one sees *why* a model's chains score low.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline
from .frame import empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["multiturn_table", "multiturn_chart", "MULTITURN_METRICS"]

#: The parts of a multi-turn score, in the order they are drawn.
MULTITURN_METRICS = ["completion", "efficiency", "redundancy_penalty", "detour_penalty", "overall"]


def multiturn_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean of each multi-turn metric per model label, long form: ``label, metric, value, n,
    mean_hops``. Only rows with a ``completion`` (multi-turn cases) count."""
    import pandas as pd

    require_columns(
        results,
        [
            "model",
            "case_id",
            "overall",
            "completion",
            "efficiency",
            "redundancy_penalty",
            "detour_penalty",
        ],
        "multiturn_table",
    )
    df = prepare(results)
    df = df[pd.to_numeric(df["completion"], errors="coerce").notna()]
    cols = ["label", "metric", "value", "n", "mean_hops"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    for col in MULTITURN_METRICS[:-1]:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df["overall"] = df["score"]
    df["n_hops"] = pd.to_numeric(df["n_hops"], errors="coerce") if "n_hops" in df else float("nan")
    rows = []
    for label, grp in df.groupby("label", sort=False):
        hops = grp["n_hops"].mean()
        for metric in MULTITURN_METRICS:
            rows.append(
                {
                    "label": label,
                    "metric": metric,
                    "value": float(grp[metric].mean()),
                    "n": int(grp["case_id"].nunique()),
                    "mean_hops": None if hops != hops else float(hops),
                }
            )
    return pd.DataFrame(rows, columns=cols)


@drawn_offline
def multiturn_chart(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Grouped bars: per model, the mean completion, efficiency, penalties and overall."""
    import altair as alt

    title = title or "Multi-turn chains: completion, efficiency and penalties"
    table = multiturn_table(results)
    if table.empty:
        return empty_chart("no multi-turn cases in these results", title)
    return (
        alt.Chart(table, title=title)
        .mark_bar()
        .encode(
            x=alt.X("metric:N", sort=MULTITURN_METRICS, title=None, axis=alt.Axis(labelAngle=-20)),
            xOffset=alt.XOffset("label:N"),
            y=alt.Y("value:Q", title="mean", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("label:N", title="model"),
            tooltip=[
                alt.Tooltip("label:N", title="model"),
                alt.Tooltip("metric:N"),
                alt.Tooltip("value:Q", format=".3f", title="mean"),
                alt.Tooltip("n:Q", title="cases"),
                alt.Tooltip("mean_hops:Q", format=".2f", title="mean hops"),
            ],
        )
        .properties(width=alt.Step(18), height=240)
    )
