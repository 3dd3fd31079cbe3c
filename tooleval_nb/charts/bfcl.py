"""BFCL charts: accuracy per category with its interval, FC against prompt mode, and BFCL V4's
overall score by its weighted parts.

Pure ``DataFrame -> chart`` functions over the frames a BFCL run returns
(``run.bfcl_category_df()``, ``run.bfcl_results_df()``; :mod:`tooleval_nb.bfcl.scores` and
:mod:`tooleval_nb.bfcl.verdicts`), each with a table twin returning the numbers it draws.
Categories keep the order of the frame given, which is BFCL's order in those frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bfcl_rules.categories import OVERALL_WEIGHTS

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = [
    "accuracy_table",
    "accuracy_chart",
    "mode_comparison_table",
    "worst_entries",
    "overall_table",
    "overall_chart",
]


def accuracy_table(categories: pd.DataFrame) -> pd.DataFrame:
    """The rows the accuracy chart draws: ``label`` (model and mode), ``category``,
    ``accuracy``, ``ci_low``, ``ci_high``, ``n`` (from ``scores.category_table``)."""
    df = categories.copy()
    df["label"] = df["model"].astype(str) + " (" + df["mode"].astype(str) + ")"
    return df[
        [
            "label",
            "model",
            "mode",
            "category",
            "group",
            "n",
            "n_passed",
            "accuracy",
            "ci_low",
            "ci_high",
            "n_errored",
            "n_decoder_failed",
        ]
    ].reset_index(drop=True)


def accuracy_chart(categories: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Accuracy per category (bars, one colour per model and mode) with its Wilson interval."""
    import altair as alt

    table = accuracy_table(categories)
    order = list(dict.fromkeys(table["category"]))  # BFCL's order, as the frame has it
    base = alt.Chart(table).encode(
        y=alt.Y("category:N", sort=order, title=None),
        yOffset="label:N",
        tooltip=[
            "label:N",
            "category:N",
            "n:Q",
            "n_passed:Q",
            alt.Tooltip("accuracy:Q", format=".1%"),
            alt.Tooltip("ci_low:Q", format=".1%"),
            alt.Tooltip("ci_high:Q", format=".1%"),
            "n_errored:Q",
            "n_decoder_failed:Q",
        ],
    )
    bars = base.mark_bar().encode(
        x=alt.X(
            "accuracy:Q",
            scale=alt.Scale(domain=[0, 1]),
            axis=alt.Axis(format="%"),
            title="BFCL accuracy",
        ),
        color=alt.Color("label:N", title="model (mode)"),
    )
    rules = base.mark_rule(color="black").encode(x="ci_low:Q", x2="ci_high:Q")
    return alt.layer(bars, rules).properties(
        title=title or "BFCL accuracy per category (95% Wilson interval)", width=420
    )


def mode_comparison_table(categories: pd.DataFrame) -> pd.DataFrame:
    """FC against prompt mode per model and category: both accuracies and ``fc - prompt``."""
    wide = categories.pivot_table(
        index=["model", "category"], columns="mode", values="accuracy"
    ).reset_index()
    wide.columns.name = None
    for mode in ("fc", "prompt"):
        if mode not in wide:
            wide[mode] = float("nan")
    wide["fc_minus_prompt"] = wide["fc"] - wide["prompt"]
    order = {c: i for i, c in enumerate(dict.fromkeys(categories["category"]))}
    wide = wide.sort_values(
        ["model", "category"],
        key=lambda s: s.map(order) if s.name == "category" else s,
        kind="stable",
    )
    return wide[["model", "category", "fc", "prompt", "fc_minus_prompt"]].reset_index(drop=True)


def worst_entries(entries: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The failed entries with the least partial credit first (BFCL's error type beside it)."""
    failed = entries[~entries["passed"]].copy()
    failed = failed.sort_values(["overall", "tool_score", "category", "id"], kind="stable")
    columns = [
        "model",
        "mode",
        "category",
        "id",
        "error_type",
        "tool_score",
        "param_score",
        "calls_expected",
        "calls_made",
        "calls_matched",
        "result",
    ]
    return failed[[c for c in columns if c in failed]].head(n).reset_index(drop=True)


def overall_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows the overall chart draws, from ``run.bfcl_scores()``: per model, mode and part of
    BFCL V4's overall, the part's accuracy (``value``, a missing category counted 0 as bfcl-eval
    counts it), its ``weight`` and its ``contribution`` (weight x value; they sum to
    ``overall``), with ``overall_partial`` and ``categories_not_run`` beside them."""
    import pandas as pd

    rows = []
    total = sum(OVERALL_WEIGHTS.values())
    for _, board in scores.iterrows():
        for part, points in OVERALL_WEIGHTS.items():
            weight = points / total
            value = float(board[f"overall_{part}"])
            rows.append(
                {
                    "label": f"{board['model']} ({board['mode']})",
                    "model": board["model"],
                    "mode": board["mode"],
                    "part": part,
                    "weight": weight,
                    "value": value,
                    "contribution": weight * value,
                    "overall": board["overall"],
                    "overall_partial": bool(board["overall_partial"]),
                    "categories_not_run": board["categories_not_run"],
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "label",
            "model",
            "mode",
            "part",
            "weight",
            "value",
            "contribution",
            "overall",
            "overall_partial",
            "categories_not_run",
        ],
    )


def overall_chart(scores: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """BFCL V4's overall per model and mode, one bar stacked by its weighted parts; a partial
    overall (a category not run, as web search offline) is said in the title."""
    import altair as alt

    table = overall_table(scores)
    partial = bool(table["overall_partial"].any()) if len(table) else False
    note = " (partial: categories not run count 0, as in bfcl-eval)" if partial else ""
    return (
        alt.Chart(table)
        .mark_bar()
        .encode(
            y=alt.Y("label:N", title=None),
            x=alt.X(
                "contribution:Q",
                stack="zero",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
                title="BFCL V4 overall",
            ),
            color=alt.Color("part:N", sort=list(OVERALL_WEIGHTS), title="part (weight)"),
            order=alt.Order("weight:Q"),
            tooltip=[
                "label:N",
                "part:N",
                alt.Tooltip("weight:Q", format=".0%"),
                alt.Tooltip("value:Q", format=".1%"),
                alt.Tooltip("contribution:Q", format=".1%"),
                alt.Tooltip("overall:Q", format=".1%"),
                "categories_not_run:N",
            ],
        )
        .properties(title=title or f"BFCL V4 overall by part{note}", width=420)
    )
