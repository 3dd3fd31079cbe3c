"""Case-level tables: the worst cases with their calls, ready to show in a report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .calls import format_calls
from .frame import prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["worst_cases", "WORST_COLUMNS"]

WORST_COLUMNS = [
    "suite",
    "label",
    "case_id",
    "case_name",
    "overall",
    "failure_mode",
    "prompt",
    "expected",
    "calls",
    "content",
    "error",
]


def worst_cases(results: pd.DataFrame, n: int = 10, per_model: bool = False) -> pd.DataFrame:
    """The ``n`` lowest-scoring rows (errors count as 0), with expected and actual calls as text.

    Args:
        results: ``Run.results_df()`` (optionally with a ``suite`` column).
        n: How many rows (per model when ``per_model``).
        per_model: Take the worst ``n`` of each model instead of the worst ``n`` overall.

    Returns:
        Columns ``suite, label, case_id, case_name, overall, failure_mode, prompt, expected,
        calls, content, error`` (``suite`` is None without a ``suite`` column); ties keep the
        run's order.
    """
    import pandas as pd

    require_columns(results, ["model", "case_id", "overall"], "worst_cases")
    df = prepare(results)
    for col in (
        "suite",
        "case_name",
        "failure_mode",
        "prompt",
        "expected",
        "tool_calls",
        "content",
        "error",
    ):
        if col not in df.columns:
            df[col] = None
    df = df.sort_values("score", kind="stable")
    df = df.groupby("label", sort=False).head(n) if per_model else df.head(n)
    out = pd.DataFrame(
        {
            "suite": df["suite"],
            "label": df["label"],
            "case_id": df["case_id"],
            "case_name": df["case_name"],
            "overall": df["score"],
            "failure_mode": df["failure_mode"],
            "prompt": df["prompt"],
            "expected": [format_calls(v, none="(no call expected)") for v in df["expected"]],
            "calls": [format_calls(v) for v in df["tool_calls"]],
            "content": df["content"],
            "error": df["error"],
        },
        columns=WORST_COLUMNS,
    )
    for col in ("suite", "case_name", "failure_mode", "prompt", "content", "error"):
        out[col] = [None if v is None or v != v else v for v in out[col]]
    return out.reset_index(drop=True)
