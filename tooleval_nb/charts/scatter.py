"""Score against latency and against cost, one point per model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from .embed import drawn_offline
from .frame import empty_chart, prepare, require_columns

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["model_stats", "latency_scatter", "cost_scatter"]

STATS_COLUMNS = [
    "label",
    "model",
    "mode",
    "n_cases",
    "overall",
    "pass_rate",
    "latency_p50_ms",
    "latency_p95_ms",
    "cost",
    "cost_per_case",
    "tokens_per_case",
]


def model_stats(results: pd.DataFrame) -> pd.DataFrame:
    """One row per model label: mean overall, pass rate, latency percentiles, cost and tokens.

    Columns: ``label, model, mode, n_cases, overall, pass_rate, latency_p50_ms, latency_p95_ms,
    cost, cost_per_case, tokens_per_case``. ``cost`` is None when no row of the model has a cost
    (local models, or providers litellm has no price for).
    """
    import pandas as pd

    require_columns(results, ["model", "case_id", "overall"], "model_stats")
    df = prepare(results)
    for col in ("latency_ms", "cost", "prompt_tokens", "completion_tokens"):
        df[col] = pd.to_numeric(df[col], errors="coerce") if col in df.columns else float("nan")
    if "passed" not in df.columns:
        df["passed"] = False
    rows = []
    for (label, model, mode), grp in df.groupby(["label", "model", "mode"], sort=False):
        lat = grp["latency_ms"].dropna()
        costs = grp["cost"].dropna()
        tokens = grp["prompt_tokens"].fillna(0) + grp["completion_tokens"].fillna(0)
        rows.append(
            {
                "label": label,
                "model": model,
                "mode": mode,
                "n_cases": int(grp["case_id"].nunique()),
                "overall": float(grp["score"].mean()),
                "pass_rate": float(grp["passed"].mean()),
                "latency_p50_ms": float(lat.quantile(0.5)) if len(lat) else None,
                "latency_p95_ms": float(lat.quantile(0.95)) if len(lat) else None,
                "cost": float(costs.sum()) if len(costs) else None,
                "cost_per_case": float(costs.sum()) / len(grp) if len(costs) else None,
                "tokens_per_case": float(tokens.mean()) if len(grp) else None,
            }
        )
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


@drawn_offline
def _scatter(stats: pd.DataFrame, x: str, x_title: str, title: str) -> alt.TopLevelMixin:
    import altair as alt

    base = alt.Chart(stats).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=False)),
        y=alt.Y("overall:Q", title="mean overall", scale=alt.Scale(domain=[0, 1])),
        tooltip=[
            alt.Tooltip("label:N", title="model"),
            alt.Tooltip("n_cases:Q", title="cases"),
            alt.Tooltip("overall:Q", format=".3f"),
            alt.Tooltip("pass_rate:Q", format=".1%", title="pass rate"),
            alt.Tooltip("latency_p50_ms:Q", format=".0f", title="p50 latency (ms)"),
            alt.Tooltip("latency_p95_ms:Q", format=".0f", title="p95 latency (ms)"),
            alt.Tooltip("cost:Q", format="$.4f", title="total cost"),
            alt.Tooltip("tokens_per_case:Q", format=".0f", title="tokens per case"),
        ],
    )
    points = base.mark_circle(size=120).encode(color=alt.Color("label:N", title="model"))
    labels = base.mark_text(align="left", dx=8, fontSize=11).encode(text="label:N")
    return alt.layer(points, labels).properties(title=title, width=420, height=260)


def latency_scatter(
    results: pd.DataFrame, percentile: Literal[50, 95] = 50, title: str | None = None
) -> alt.TopLevelMixin:
    """Mean overall score against median (or p95) latency per model; up and left is better."""
    stats = model_stats(results)
    col = f"latency_p{percentile}_ms"
    stats = stats[stats[col].notna()]
    title = title or f"Score vs p{percentile} latency"
    if stats.empty:
        return empty_chart("no latency recorded", title)
    return _scatter(stats, col, f"p{percentile} latency per call (ms)", title)


def cost_scatter(results: pd.DataFrame, title: str | None = None) -> alt.TopLevelMixin:
    """Mean overall score against cost per case per model; models without a price are left out."""
    stats = model_stats(results)
    stats = stats[stats["cost_per_case"].notna()]
    title = title or "Score vs cost per case"
    if stats.empty:
        return empty_chart(
            "no cost recorded (local models are free; litellm knows no price for the others)", title
        )
    return _scatter(stats, "cost_per_case", "cost per case (USD)", title)
