"""Scores broken down by mode, tag or category, and where the failures come from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..scoring import FAILURE_MODES  # scoring's list, in its order (how they are stacked)
from .embed import drawn_offline
from .frame import empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = [
    "breakdown_table",
    "breakdown_chart",
    "mode_breakdown",
    "tag_breakdown",
    "failure_table",
    "failure_chart",
    "By",
    "FAILURE_MODES",
]

#: What a breakdown groups cases by.
By = Literal["mode", "tag", "category", "suite"]


BREAKDOWN_COLUMNS = ["group", "label", "model", "mode", "n", "mean", "pass_rate"]


def breakdown_table(results: pd.DataFrame, by: By = "tag") -> pd.DataFrame:
    """Mean overall score and pass rate per ``by`` group and model label.

    ``by="suite"`` needs a ``suite`` column (the report adds one when it runs several suites).
    A case with several tags counts in each of its tags; a case without tag or category is
    grouped under ``"(none)"``. Columns: ``group, label, model, mode, n, mean, pass_rate``.
    """
    import pandas as pd

    need = {"tag": "tags", "category": "category", "mode": "model", "suite": "suite"}[by]
    require_columns(results, ["model", "case_id", "overall", need], f"breakdown_table(by={by!r})")
    df = prepare(results)
    if "passed" not in df.columns:
        df["passed"] = False
    if by == "tag":
        df["group"] = [t if t else ["(none)"] for t in df["tags"]]
        df = df.explode("group")
    elif by in ("category", "suite"):
        df["group"] = df[by].fillna("(none)").astype(str)
    else:
        df["group"] = df["mode"]
    if df.empty:
        return pd.DataFrame(columns=BREAKDOWN_COLUMNS)
    table = (
        df.groupby(["group", "label", "model", "mode"], sort=True)
        .agg(n=("case_id", "nunique"), mean=("score", "mean"), pass_rate=("passed", "mean"))
        .reset_index()
    )
    return pd.DataFrame(table, columns=BREAKDOWN_COLUMNS)


@drawn_offline
def breakdown_chart(
    results: pd.DataFrame, by: By = "tag", title: str | None = None
) -> alt.TopLevelMixin:
    """Grouped horizontal bars: one group per tag / category / mode, one bar per model."""
    import altair as alt

    table = breakdown_table(results, by=by)
    title = title or f"Mean overall score per {by}"
    if table.empty:
        return empty_chart(f"no results to break down by {by}", title)
    field = "label" if by != "mode" else "model"
    return (
        alt.Chart(table, title=title)
        .mark_bar()
        .encode(
            y=alt.Y("group:N", title=by),
            yOffset=alt.YOffset(f"{field}:N"),
            x=alt.X("mean:Q", title="mean overall", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(f"{field}:N", title="model"),
            tooltip=[
                alt.Tooltip("group:N", title=by),
                alt.Tooltip("label:N", title="model"),
                alt.Tooltip("mode:N"),
                alt.Tooltip("n:Q", title="cases"),
                alt.Tooltip("mean:Q", format=".3f", title="mean overall"),
                alt.Tooltip("pass_rate:Q", format=".1%", title="pass rate"),
            ],
        )
        .properties(width=420, height=alt.Step(14))
    )


def mode_breakdown(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Mean overall per tool-calling mode (native, hermes, pythonic) and model."""
    return breakdown_chart(results, by="mode", title=title)


def tag_breakdown(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Mean overall per case tag and model."""
    return breakdown_chart(results, by="tag", title=title)


def failure_table(results: pd.DataFrame) -> pd.DataFrame:
    """Count of each failure mode per model label: ``label, failure_mode, n, share``."""
    import pandas as pd

    require_columns(results, ["model", "case_id", "overall", "failure_mode"], "failure_table")
    df = prepare(results)
    totals = df.groupby("label", sort=False).size()
    failed = df[df["failure_mode"].notna() & (df["failure_mode"].astype(str) != "")]
    if failed.empty:
        return pd.DataFrame(columns=["label", "failure_mode", "n", "share"])
    table = failed.groupby(["label", "failure_mode"], sort=True).size().rename("n").reset_index()
    table["share"] = table["n"] / table["label"].map(totals)
    return table


@drawn_offline
def failure_chart(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Stacked bars: the share of cases per failure mode, one bar per model."""
    import altair as alt

    table = failure_table(results)
    title = title or "Failure modes (share of cases)"
    if table.empty:
        return empty_chart("no failures", title)
    known = [m for m in FAILURE_MODES if m in set(table["failure_mode"])]
    order = known + sorted(set(table["failure_mode"]) - set(known))
    return (
        alt.Chart(table, title=title)
        .mark_bar()
        .encode(
            y=alt.Y("label:N", title="model"),
            x=alt.X("share:Q", title="share of cases", axis=alt.Axis(format="%")),
            color=alt.Color(
                "failure_mode:N",
                sort=order,
                title="failure mode",
                scale=alt.Scale(scheme="tableau20"),
            ),
            order=alt.Order("failure_mode:N"),
            tooltip=[
                alt.Tooltip("label:N", title="model"),
                alt.Tooltip("failure_mode:N"),
                alt.Tooltip("n:Q", title="cases"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        .properties(width=420, height=alt.Step(24))
    )
