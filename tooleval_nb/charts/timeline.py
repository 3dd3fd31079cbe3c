"""An experiment's timeline: score with CI per entry, a dashed baseline rule, the best entry
starred, colour by kind, ``config_diff`` on hover (``Experiment.timeline()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["timeline_chart"]

_KIND_COLOURS = {
    "eval": "#4c78a8",
    "sweep": "#f58518",
    "prompt_tune": "#54a24b",
    "confirm": "#e45756",
    "judge": "#b279a2",
}


@drawn_offline
def timeline_chart(timeline: pd.DataFrame) -> alt.LayerChart:
    """Score with CI per entry (judge rows have no score and are left out)."""
    import altair as alt

    df = timeline[timeline["kind"] != "judge"].copy()
    df["order"] = range(1, len(df) + 1)
    df["marker"] = [
        "best" if b else ("baseline" if base else "entry")
        for b, base in zip(df["is_best"], df["is_baseline"], strict=True)
    ]
    df = df[
        [
            "order",
            "entry_id",
            "kind",
            "score",
            "ci_low",
            "ci_high",
            "delta",
            "config_diff",
            "split_used",
            "marker",
            "note",
        ]
    ].fillna({"note": "", "config_diff": ""})
    colour = alt.Color(
        "kind:N", scale=alt.Scale(domain=list(_KIND_COLOURS), range=list(_KIND_COLOURS.values()))
    )
    base = alt.Chart(df).encode(x=alt.X("order:O", title="entry"))
    tooltip = [
        "entry_id:N",
        "kind:N",
        alt.Tooltip("score:Q", format=".3f"),
        alt.Tooltip("delta:Q", format="+.3f"),
        "split_used:N",
        "config_diff:N",
        "note:N",
    ]
    bars = base.mark_rule().encode(
        y=alt.Y("ci_low:Q", title="score", scale=alt.Scale(domain=[0, 1])),
        y2="ci_high:Q",
        color=colour,
    )
    points = base.mark_point(filled=True, size=80).encode(
        y="score:Q",
        color=colour,
        tooltip=tooltip,
        shape=alt.Shape(
            "marker:N",
            scale=alt.Scale(
                domain=["entry", "baseline", "best"], range=["circle", "square", "diamond"]
            ),
        ),
    )
    layers = [bars, points]
    if df["marker"].eq("baseline").any() or timeline["is_baseline"].any():
        score = timeline.loc[timeline["is_baseline"], "score"]
        if len(score):
            rule = (
                alt.Chart({"values": [{"baseline": float(score.iloc[0])}]})
                .mark_rule(strokeDash=[4, 4], color="grey")
                .encode(y="baseline:Q")
            )
            layers.append(rule)
    best = df[df["marker"] == "best"]
    if len(best):
        layers.append(
            alt.Chart(best).mark_text(text="★", size=18, dy=-14).encode(x="order:O", y="score:Q")
        )
    return alt.LayerChart(layer=layers).properties(
        width=480, height=220, title="Experiment timeline"
    )
