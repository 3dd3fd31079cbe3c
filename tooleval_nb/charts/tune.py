"""A prompt tune's charts (``PromptTune.candidates_df()``, ``.generations_df()``,
``.case_matrix_df()``).

* :func:`candidates_chart`: dev and holdout delta CIs side by side per candidate.
* :func:`best_so_far_chart`: the best dev lower bound against the calls used.
* :func:`candidate_heatmap`: candidate × dev case, fixed / broken / same against the base prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["candidates_chart", "best_so_far_chart", "candidate_heatmap"]


@drawn_offline
def candidates_chart(candidates: pd.DataFrame) -> alt.LayerChart:
    """Dev and holdout delta CIs side by side for every evaluated candidate."""
    import altair as alt
    import pandas as pd

    ev = candidates[candidates["dev_n"] > 0]
    rows = []
    for r in ev.itertuples():
        rows.append(
            {
                "cand": f"c{r.cand_id} {r.operator}",
                "split": "dev",
                "delta": r.dev_delta,
                "low": r.dev_lcb,
                "high": r.dev_delta_ci_high,
                "promoted": r.promoted,
            }
        )
        if r.holdout_delta == r.holdout_delta:
            rows.append(
                {
                    "cand": f"c{r.cand_id} {r.operator}",
                    "split": "holdout",
                    "delta": r.holdout_delta,
                    "low": r.holdout_ci_low,
                    "high": r.holdout_ci_high,
                    "promoted": r.promoted,
                }
            )
    df = pd.DataFrame(rows, columns=["cand", "split", "delta", "low", "high", "promoted"])
    base = alt.Chart(df).encode(
        y=alt.Y("cand:N", sort=None, title=None), yOffset="split:N", color="split:N"
    )
    ci = base.mark_rule().encode(x=alt.X("low:Q", title="delta vs base prompt"), x2="high:Q")
    pt = base.mark_point(filled=True).encode(
        x="delta:Q", tooltip=["cand:N", "split:N", alt.Tooltip("delta:Q", format="+.3f")]
    )
    return alt.LayerChart(layer=[ci, pt]).properties(
        width=380, height=max(80, 30 * len(ev)), title="Prompt candidates: dev vs holdout"
    )


@drawn_offline
def best_so_far_chart(generations: pd.DataFrame) -> alt.Chart:
    """Best dev LCB against the calls used."""
    import altair as alt

    df = generations[["generation", "calls_used", "best_dev_lcb"]].copy()
    df = df[df["best_dev_lcb"] > -1e9]
    return (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=alt.X("calls_used:Q", title="calls used"),
            y=alt.Y("best_dev_lcb:Q", title="best dev LCB (delta vs base)"),
            tooltip=["generation:Q", "calls_used:Q", alt.Tooltip("best_dev_lcb:Q", format="+.3f")],
        )
        .properties(width=320, height=180, title="Best so far")
    )


@drawn_offline
def candidate_heatmap(matrix: pd.DataFrame) -> alt.Chart:
    """Candidate × dev case, coloured fixed / broken / same against the base prompt."""
    import altair as alt

    return (
        alt.Chart(matrix)
        .mark_rect()
        .encode(
            x=alt.X("case_id:N", title="dev case"),
            y=alt.Y("cand_id:O", title="candidate"),
            color=alt.Color(
                "change:N",
                scale=alt.Scale(
                    domain=["fixed", "broken", "same"], range=["#2ca02c", "#d62728", "#e0e0e0"]
                ),
            ),
            tooltip=["cand_id:O", "case_id:N", "score:Q", "base_score:Q", "change:N"],
        )
        .properties(
            width=max(120, 14 * matrix["case_id"].nunique()),
            height=180,
            title="Fixed / broken vs base",
        )
    )
