"""BFCL charts: accuracy per category with its interval, and FC against prompt mode.

Pure ``DataFrame -> chart`` functions over the frames a BFCL run returns
(``run.bfcl_category_df()``, ``run.bfcl_results_df()``; :mod:`tooleval_nb.bfcl.scores` and
:mod:`tooleval_nb.bfcl.verdicts`), each with a table twin returning the numbers it draws.
Categories keep the order of the frame given, which is BFCL's order in those frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["accuracy_table", "accuracy_chart", "mode_comparison_table", "worst_entries"]


def accuracy_table(categories: pd.DataFrame) -> pd.DataFrame:
    """The rows the accuracy chart draws: ``label`` (model and mode), ``category``,
    ``accuracy``, ``ci_low``, ``ci_high``, ``n`` (from ``scores.category_table``)."""
    df = categories.copy()
    df["label"] = df["model"].astype(str) + " (" + df["mode"].astype(str) + ")"
    return df[["label", "model", "mode", "category", "group", "n", "n_passed", "accuracy",
               "ci_low", "ci_high", "n_errored", "n_decoder_failed"]].reset_index(drop=True)


def accuracy_chart(categories: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Accuracy per category (bars, one colour per model and mode) with its Wilson interval."""
    import altair as alt

    table = accuracy_table(categories)
    order = list(dict.fromkeys(table["category"]))  # BFCL's order, as the frame has it
    base = alt.Chart(table).encode(
        y=alt.Y("category:N", sort=order, title=None),
        yOffset="label:N",
        tooltip=["label:N", "category:N", "n:Q", "n_passed:Q",
                 alt.Tooltip("accuracy:Q", format=".1%"), alt.Tooltip("ci_low:Q", format=".1%"),
                 alt.Tooltip("ci_high:Q", format=".1%"), "n_errored:Q", "n_decoder_failed:Q"])
    bars = base.mark_bar().encode(
        x=alt.X("accuracy:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"),
                title="BFCL accuracy"),
        color=alt.Color("label:N", title="model (mode)"))
    rules = base.mark_rule(color="black").encode(x="ci_low:Q", x2="ci_high:Q")
    return alt.layer(bars, rules).properties(
        title=title or "BFCL accuracy per category (95% Wilson interval)", width=420)


def mode_comparison_table(categories: pd.DataFrame) -> pd.DataFrame:
    """FC against prompt mode per model and category: both accuracies and ``fc - prompt``."""
    wide = categories.pivot_table(index=["model", "category"], columns="mode",
                                  values="accuracy").reset_index()
    wide.columns.name = None
    for mode in ("fc", "prompt"):
        if mode not in wide:
            wide[mode] = float("nan")
    wide["fc_minus_prompt"] = wide["fc"] - wide["prompt"]
    order = {c: i for i, c in enumerate(dict.fromkeys(categories["category"]))}
    wide = wide.sort_values(["model", "category"], key=lambda s: s.map(order)
                            if s.name == "category" else s, kind="stable")
    return wide[["model", "category", "fc", "prompt", "fc_minus_prompt"]].reset_index(drop=True)


def worst_entries(entries: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The failed entries with the least partial credit first (BFCL's error type beside it)."""
    failed = entries[~entries["passed"]].copy()
    failed = failed.sort_values(["overall", "tool_score", "category", "id"], kind="stable")
    columns = ["model", "mode", "category", "id", "error_type", "tool_score", "param_score",
               "calls_expected", "calls_made", "calls_matched", "result"]
    return failed[[c for c in columns if c in failed]].head(n).reset_index(drop=True)
