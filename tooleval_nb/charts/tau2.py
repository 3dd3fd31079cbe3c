"""τ²-bench charts: pass^k by k with its interval, and the reward's parts per task.

Pure ``DataFrame -> chart`` functions over the frames a τ² run gives (``run.tau2_scores()``:
``model``, ``domain``, ``pass^k``, ``pass^k_low``, ``pass^k_high`` per k;
``run.tau2_results_df()``: one row per simulation with ``reward`` and its parts ``db``,
``communicate``, ``env_assertion``, ``action``, ``nl_assertion``), each with a table twin
returning the numbers it draws.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = [
    "REWARD_PARTS",
    "pass_k_table",
    "pass_k_chart",
    "reward_parts_table",
    "reward_parts_chart",
]

#: the reward's parts, as ``tau2_results_df`` names them (tau2's reward basis), then the reward
REWARD_PARTS = ("db", "communicate", "env_assertion", "action", "nl_assertion")
_PASS = re.compile(r"^pass\^(\d+)$")


def pass_k_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The points the pass^k chart draws, one per model, domain and k: ``label`` (model and
    domain), ``model``, ``domain``, ``k``, ``pass_k``, ``ci_low``, ``ci_high``."""
    import pandas as pd

    rows = []
    for record in scores.to_dict("records"):
        for column, value in record.items():
            found = _PASS.match(str(column))
            if found is None or value != value:  # not a pass^k column, or NaN
                continue
            rows.append(
                {
                    "label": f"{record['model']} ({record['domain']})",
                    "model": record["model"],
                    "domain": record["domain"],
                    "k": int(found.group(1)),
                    "pass_k": float(value),
                    "ci_low": float(record.get(f"{column}_low", value)),
                    "ci_high": float(record.get(f"{column}_high", value)),
                }
            )
    columns = ["label", "model", "domain", "k", "pass_k", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=columns).sort_values(["label", "k"], ignore_index=True)


@drawn_offline
def pass_k_chart(scores: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """pass^k by k (a line and points per model and domain) with each value's interval (a
    band): how fast reliability falls as more trials must all succeed."""
    import altair as alt

    table = pass_k_table(scores)
    base = alt.Chart(table).encode(
        x=alt.X("k:O", title="k (trials that must all succeed)"),
        color=alt.Color("label:N", title=None),
        tooltip=[
            "label:N",
            "k:O",
            alt.Tooltip("pass_k:Q", format=".1%", title="pass^k"),
            alt.Tooltip("ci_low:Q", format=".1%"),
            alt.Tooltip("ci_high:Q", format=".1%"),
        ],
    )
    band = base.mark_area(opacity=0.2).encode(
        y=alt.Y("ci_low:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        y2="ci_high:Q",
    )
    line = base.mark_line(point=True).encode(
        y=alt.Y("pass_k:Q", title="pass^k", scale=alt.Scale(domain=[0, 1]))
    )
    return (band + line).properties(title=title or "τ²-bench pass^k", width=360, height=240)


def reward_parts_table(results: pd.DataFrame) -> pd.DataFrame:
    """The cells the heatmap draws, one per model, task and part: ``model``, ``task_id``,
    ``part`` (each of :data:`REWARD_PARTS` in the task's basis, then ``reward``), ``value``
    (its mean over the task's trials), ``trials``."""
    import pandas as pd

    parts = [p for p in REWARD_PARTS if p in results.columns]
    long = results.melt(
        id_vars=["model", "task_id"],
        value_vars=[*parts, "reward"],
        var_name="part",
        value_name="value",
    ).dropna(subset=["value"])
    long["value"] = long["value"].astype(float)
    table = (
        long.groupby(["model", "task_id", "part"], sort=False)["value"]
        .agg(["mean", "size"])
        .reset_index()
        .rename(columns={"mean": "value", "size": "trials"})
    )
    return pd.DataFrame(table, columns=["model", "task_id", "part", "value", "trials"])


@drawn_offline
def reward_parts_chart(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """The reward's parts per task (rows: tasks; columns: each part in the task's basis, then
    the reward; colour: the mean over trials), one panel per model: which check fails where."""
    import altair as alt

    table = reward_parts_table(results)
    order = [*[p for p in REWARD_PARTS if p in set(table["part"])], "reward"]
    return (
        alt.Chart(table)
        .mark_rect()
        .encode(
            x=alt.X("part:N", sort=order, title=None),
            y=alt.Y("task_id:N", sort=None, title="task"),
            color=alt.Color(
                "value:Q", scale=alt.Scale(domain=[0, 1], scheme="redyellowgreen"), title="mean"
            ),
            column=alt.Column("model:N", title=None),
            tooltip=[
                "model:N",
                "task_id:N",
                "part:N",
                alt.Tooltip("value:Q", format=".2f"),
                "trials:Q",
            ],
        )
        .properties(title=title or "τ²-bench reward parts per task", width=180)
    )
