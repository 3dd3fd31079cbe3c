"""A sweep's charts (``Sweep.trials_df()`` and ``Sweep.effects_df()``).

* :func:`forest_chart`: each trial's paired delta vs the base with CI, a zero line, eliminated
  trials greyed.
* :func:`effects_chart`: small multiples of each swept parameter's marginal effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["forest_chart", "effects_chart"]


@drawn_offline
def forest_chart(trials: pd.DataFrame) -> alt.LayerChart:
    """Paired delta vs the base with CI per trial; eliminated trials in grey."""
    import altair as alt

    df = trials.copy()
    df["state"] = [
        "base"
        if b
        else ("eliminated" if s == "eliminated" else ("significant" if sig else "alive"))
        for b, s, sig in zip(df["is_base"], df["status"], df["significant"], strict=True)
    ]
    cols = ["trial_id", "delta", "delta_ci_low", "delta_ci_high", "n_cases", "state", "score"]
    df = df[cols]
    colour = alt.Color(
        "state:N",
        scale=alt.Scale(
            domain=["significant", "alive", "eliminated", "base"],
            range=["#2ca02c", "#4c78a8", "#c7c7c7", "#000000"],
        ),
    )
    base = alt.Chart(df).encode(y=alt.Y("trial_id:N", sort=None, title="trial"))
    ci = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("delta_ci_low:Q", title="delta vs base"), x2="delta_ci_high:Q", color=colour
    )
    pt = base.mark_point(filled=True, size=60).encode(
        x="delta:Q",
        color=colour,
        tooltip=[
            "trial_id:N",
            alt.Tooltip("delta:Q", format="+.3f"),
            alt.Tooltip("score:Q", format=".3f"),
            "n_cases:Q",
            "state:N",
        ],
    )
    zero = alt.Chart({"values": [{"x": 0}]}).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    return alt.LayerChart(layer=[ci, pt, zero]).properties(
        width=420, height=max(80, 22 * len(df)), title="Trials: delta vs base (CI)"
    )


@drawn_offline
def effects_chart(effects: pd.DataFrame) -> alt.FacetChart:
    """One panel per swept parameter: each value's marginal delta with CI."""
    import altair as alt

    df = effects.copy()
    df["value"] = df["value"].astype(str)
    base = alt.Chart(df).encode(x=alt.X("value:N", title=None))
    ci = base.mark_rule().encode(y=alt.Y("ci_low:Q", title="delta"), y2="ci_high:Q")
    pt = base.mark_point(filled=True).encode(
        y="delta:Q",
        color=alt.Color("detectable:N"),
        tooltip=[
            "param:N",
            "value:N",
            alt.Tooltip("delta:Q", format="+.3f"),
            alt.Tooltip("ci_low:Q", format="+.3f"),
            alt.Tooltip("ci_high:Q", format="+.3f"),
            "n_pairs:Q",
        ],
    )
    return (
        alt.layer(ci, pt, data=df)
        .properties(width=140, height=140)
        .facet(facet=alt.Facet("param:N", title=None), columns=4)
        .resolve_scale(x="independent")
    )
