"""A judge report's chart: the count of each failure mode (``JudgeReport.failure_modes_df()``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["failure_modes_chart"]


@drawn_offline
def failure_modes_chart(modes: pd.DataFrame) -> alt.Chart:
    """Count of each failure mode (from the facts)."""
    import altair as alt

    df = modes[["failure_mode", "count", "share"]]
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("count:Q"),
            y=alt.Y("failure_mode:N", sort="-x", title=None),
            tooltip=["failure_mode:N", "count:Q", alt.Tooltip("share:Q", format=".0%")],
        )
        .properties(width=320, height=max(60, 22 * len(df)), title="Failure modes")
    )
