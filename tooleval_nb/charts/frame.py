"""Preparing a run's results frame for charts: column checks, labels, tags and scores.

Every chart takes ``Run.results_df()`` (one row per case x model x sample; the columns are
documented in ``tooleval_nb.runner.run``). The helpers here are pure: they never change the frame
they are given.

Conventions shared by every chart:

* a model is shown by its *label*: the model name, or ``"model [mode]"`` when one model was run in
  several modes (native tools vs raw-text), so that the two never merge;
* a row that errored (``error`` set) or has no ``overall`` counts as a score of 0: an API error is a
  failed case for a leaderboard, never a silently dropped one;
* tags may arrive as lists, JSON text or comma-separated text; they are normalised to lists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import ToolEvalError
from .embed import drawn_offline

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = [
    "require_columns",
    "prepare",
    "split_tags",
    "empty_chart",
    "SCORE_SCALE",
]

#: The colour scale every score chart shares (0 red, 1 green).
SCORE_SCALE: dict[str, Any] = {"domain": [0, 1], "scheme": "redyellowgreen"}


def require_columns(df: Any, columns: Iterable[str], chart: str) -> None:
    """Raise a clear error when ``df`` lacks any of ``columns``.

    Args:
        df: The frame handed to a chart.
        columns: The columns the chart needs.
        chart: The chart's function name, used in the message.

    Raises:
        ToolEvalError: When ``df`` is not a DataFrame or misses columns.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise ToolEvalError(
            f"{chart}() needs a pandas DataFrame such as run.results_df(), got "
            f"{type(df).__name__}; pass run.results_df() (or load_run(id).results_df())."
        )
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ToolEvalError(
            f"{chart}() needs the column(s) {', '.join(missing)} which this frame lacks (it has: "
            f"{', '.join(map(str, df.columns)) or 'none'}); pass run.results_df()."
        )


def split_tags(value: Any) -> list[str]:
    """Tags as a list, whatever shape they arrive in (list, JSON text, comma text, None/NaN)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        return [str(t) for t in value]
    if hasattr(value, "tolist") and not isinstance(value, str):  # numpy arrays
        return [str(t) for t in value.tolist()]
    if isinstance(value, float):  # NaN
        return []
    text = str(value).strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded = None
        if isinstance(loaded, list):
            return [str(t) for t in loaded]
    return [t.strip() for t in text.split(",") if t.strip()]


def prepare(results: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``results`` with ``label``, a filled ``score`` and list ``tags`` columns.

    ``score`` is ``overall`` with errored or missing values counted as 0. ``label`` is the model,
    or ``"model [mode]"`` when the model appears in more than one mode; ``model`` is the bare
    model name (a runner label such as ``"m [hermes]"`` is split back into model and mode).
    """
    import pandas as pd

    df = results.copy()
    if "mode" not in df.columns:
        df["mode"] = "native"
    df["mode"] = df["mode"].fillna("native").astype(str)
    # The runner already labels twins "model [mode]"; ``model`` here is the bare model again.
    labels = df["model"].astype(str)
    df["model"] = [lab.removesuffix(f" [{md}]") for lab, md in zip(labels, df["mode"], strict=True)]
    n_modes = df.groupby("model")["mode"].nunique()
    multi = set(n_modes[n_modes > 1].index)
    df["label"] = [
        f"{m} [{md}]" if m in multi and lab == m else lab
        for m, md, lab in zip(df["model"], df["mode"], labels, strict=True)
    ]
    score = pd.to_numeric(df["overall"], errors="coerce") if "overall" in df else 0.0
    df["score"] = pd.Series(score, index=df.index, dtype="float64").fillna(0.0).clip(0.0, 1.0)
    if "tags" in df.columns:
        df["tags"] = [split_tags(t) for t in df["tags"]]
    if "passed" in df.columns:
        df["passed"] = df["passed"].fillna(False).astype(bool)
    return df


@drawn_offline
def empty_chart(message: str, title: str = "") -> alt.TopLevelMixin:
    """A small chart that states why there is nothing to draw (rather than failing)."""
    import altair as alt
    import pandas as pd

    return (
        alt.Chart(pd.DataFrame({"message": [message]}), title=title)
        .mark_text(size=13, color="gray")
        .encode(text="message:N")
        .properties(width=400, height=40)
    )
