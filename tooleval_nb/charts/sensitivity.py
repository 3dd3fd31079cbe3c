"""Format sensitivity: the same model with native tools vs raw-text tool calls.

Only cases answered in every compared mode count (a paired comparison), so a mode is not
flattered by cases it happened to skip. The delta is each raw-text mode's mean minus native.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embed import drawn_offline
from .frame import empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["sensitivity_table", "format_sensitivity"]

SENSITIVITY_COLUMNS = ["model", "mode", "n_cases", "mean", "pass_rate", "delta_vs_native"]


def sensitivity_table(results: pd.DataFrame, baseline: str = "native") -> pd.DataFrame:
    """Per model run in two or more modes: mean overall and pass rate per mode on shared cases.

    Columns: ``model, mode, n_cases, mean, pass_rate, delta_vs_native`` (the delta is against
    ``baseline``; None when the model was not run in that mode).
    """
    import pandas as pd

    require_columns(results, ["model", "mode", "case_id", "overall"], "sensitivity_table")
    df = prepare(results)
    if "passed" not in df.columns:
        df["passed"] = False
    rows = []
    for model, grp in df.groupby("model", sort=False):
        modes = list(dict.fromkeys(grp["mode"]))
        if len(modes) < 2:
            continue
        per_mode = {m: set(grp.loc[grp["mode"] == m, "case_id"]) for m in modes}
        shared = set.intersection(*per_mode.values())
        part = grp[grp["case_id"].isin(shared)]
        per_case = part.groupby(["mode", "case_id"]).agg(
            score=("score", "mean"), passed=("passed", "mean")
        )
        means = per_case.groupby(level="mode")["score"].mean()
        base = means.get(baseline)
        for mode in modes:
            if mode not in means.index:
                continue
            sub = per_case.loc[mode]
            rows.append(
                {
                    "model": model,
                    "mode": mode,
                    "n_cases": len(sub),
                    "mean": float(means[mode]),
                    "pass_rate": float(sub["passed"].mean()),
                    "delta_vs_native": None if base is None else float(means[mode] - base),
                }
            )
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)


@drawn_offline
def format_sensitivity(
    results: pd.DataFrame, baseline: str = "native", title: str | None = None
) -> alt.TopLevelMixin:
    """Dot plot per model: one dot per mode on the shared cases, joined by a line (the gap)."""
    import altair as alt

    table = sensitivity_table(results, baseline=baseline)
    title = title or "Format sensitivity: native tools vs raw-text modes (shared cases)"
    if table.empty:
        return empty_chart(
            "no model was run in more than one mode (run it with "
            "mode='native' and mode='hermes' to compare)",
            title,
        )
    base = alt.Chart(table).encode(
        y=alt.Y("model:N", title="model"),
        tooltip=[
            alt.Tooltip("model:N"),
            alt.Tooltip("mode:N"),
            alt.Tooltip("n_cases:Q", title="shared cases"),
            alt.Tooltip("mean:Q", format=".3f", title="mean overall"),
            alt.Tooltip("pass_rate:Q", format=".1%", title="pass rate"),
            alt.Tooltip("delta_vs_native:Q", format="+.3f", title=f"delta vs {baseline}"),
        ],
    )
    line = base.mark_line(color="lightgray", strokeWidth=3).encode(
        x=alt.X("mean:Q", scale=alt.Scale(domain=[0, 1]), title="mean overall"), detail="model:N"
    )
    dots = base.mark_circle(size=140, opacity=1).encode(
        x="mean:Q", color=alt.Color("mode:N", title="mode")
    )
    return alt.layer(line, dots).properties(title=title, width=420, height=alt.Step(30))
