"""Case x model heatmap of the overall score, with the calls in the tooltips."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .calls import format_calls
from .embed import drawn_offline
from .frame import SCORE_SCALE, empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["heatmap_table", "case_heatmap"]

HEATMAP_COLUMNS = [
    "case_id",
    "case_name",
    "label",
    "score",
    "passed",
    "n_samples",
    "failure_mode",
    "expected_text",
    "calls_text",
    "error",
]


def heatmap_table(results: pd.DataFrame, max_cases: int | None = 60) -> pd.DataFrame:
    """One row per case x model label: mean score over samples, and the first sample's calls.

    When there are more than ``max_cases`` cases, the hardest ones (lowest mean score over all
    models) are kept, since those are the ones worth a look.

    Columns: ``case_id, case_name, label, score, passed, n_samples, failure_mode, expected_text,
    calls_text, error``.
    """
    import pandas as pd

    require_columns(results, ["model", "case_id", "overall"], "case_heatmap")
    df = prepare(results)
    if "sample" in df.columns:
        df = df.sort_values("sample", kind="stable")
    for col in ("case_name", "failure_mode", "error", "expected", "tool_calls"):
        if col not in df.columns:
            df[col] = None
    if "passed" not in df.columns:
        df["passed"] = False
    for col in ("case_name", "failure_mode", "error"):
        df[col] = df[col].where(df[col].notna() & (df[col].astype(str) != ""), None)
    grouped = df.groupby(["case_id", "label"], sort=False)
    table = grouped.agg(
        score=("score", "mean"),
        passed=("passed", "mean"),
        n_samples=("score", "size"),
        case_name=("case_name", "first"),
        failure_mode=("failure_mode", "first"),
        expected=("expected", "first"),
        tool_calls=("tool_calls", "first"),
        error=("error", "first"),
    ).reset_index()
    for col in ("case_name", "failure_mode", "error"):
        table[col] = [str(v) if v is not None and v == v else "" for v in table[col]]
    if max_cases is not None and table["case_id"].nunique() > max_cases:
        hardness = table.groupby("case_id", sort=False)["score"].mean().sort_values(kind="stable")
        keep = set(hardness.index[:max_cases])
        table = table[table["case_id"].isin(keep)].copy()
    table["expected_text"] = [format_calls(v, none="(no call expected)") for v in table["expected"]]
    table["calls_text"] = [format_calls(v) for v in table["tool_calls"]]
    return pd.DataFrame(table, columns=HEATMAP_COLUMNS).reset_index(drop=True)


@drawn_offline
def case_heatmap(
    results: pd.DataFrame, max_cases: int | None = 60, title: str | None = None
) -> alt.TopLevelMixin:
    """Heatmap: one row per case, one column per model, colour = mean overall score.

    The tooltip of each cell shows the case, the score, the failure mode, the expected calls
    and the calls the model made (the first sample's), and any error.

    Args:
        results: ``Run.results_df()``.
        max_cases: Keep at most this many cases (the hardest); None keeps all.
        title: Chart title.
    """
    import altair as alt

    table = heatmap_table(results, max_cases=max_cases)
    n_cases = table["case_id"].nunique()
    title = title or f"Overall score per case and model ({n_cases} cases)"
    if table.empty:
        return empty_chart("no results to show", title)
    case_order = table["case_id"].drop_duplicates().tolist()
    data = table.assign(passed=table["passed"] >= 0.5)
    return (
        alt.Chart(data, title=title)
        .mark_rect(stroke="white", strokeWidth=0.5)
        .encode(
            x=alt.X("label:N", title="model", axis=alt.Axis(labelAngle=-30, labelLimit=220)),
            y=alt.Y("case_id:N", sort=case_order, title="case", axis=alt.Axis(labelLimit=220)),
            color=alt.Color("score:Q", scale=alt.Scale(**SCORE_SCALE), title="overall"),
            tooltip=[
                alt.Tooltip("case_id:N", title="case"),
                alt.Tooltip("case_name:N", title="name"),
                alt.Tooltip("label:N", title="model"),
                alt.Tooltip("score:Q", format=".2f", title="overall"),
                alt.Tooltip("passed:N"),
                alt.Tooltip("failure_mode:N", title="failure"),
                alt.Tooltip("expected_text:N", title="expected"),
                alt.Tooltip("calls_text:N", title="calls"),
                alt.Tooltip("error:N"),
                alt.Tooltip("n_samples:Q", title="samples"),
            ],
        )
        .properties(width=alt.Step(70), height=alt.Step(16))
    )
