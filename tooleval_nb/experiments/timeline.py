"""An experiment's timeline and best history as DataFrames.

Columns of the timeline (:data:`TIMELINE_COLUMNS`): identity and timing (``entry_id, created_at,
kind, ref_id, run_id, model``), what changed (``config_diff`` against the baseline config of the
entry's model), the data used (``split_used, n_cases``), the entry's score with its CI, the paired
``delta`` against the baseline *of the entry's model* on common cases with ``delta_ci_low,
delta_ci_high, p_value``, flags (``selection_biased`` for a tuner's dev figure or a
``promote="copy"`` entry, ``is_baseline`` (one per model), ``is_best, promoted_from, comparable``),
judge rows' ``n_findings, top_failure_mode``, and ``note`` (why a delta is missing, what the best
rule decided).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from .compare import case_scores, compare_scores
from .config import Config

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["TIMELINE_COLUMNS", "timeline_frame", "best_history_frame"]

#: columns of :func:`timeline_frame`
TIMELINE_COLUMNS = [
    "entry_id",
    "created_at",
    "kind",
    "ref_id",
    "run_id",
    "model",
    "config_diff",
    "split_used",
    "n_cases",
    "score",
    "ci_low",
    "ci_high",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "p_value",
    "selection_biased",
    "is_baseline",
    "is_best",
    "promoted_from",
    "comparable",
    "n_findings",
    "top_failure_mode",
    "note",
]


def _append(note: str | None, text: str) -> str:
    return f"{note}; {text}" if note else text


def _nan(value: Any) -> float:
    return float("nan") if value is None else float(value)


def timeline_frame(exp: Any) -> pd.DataFrame:
    """One row per entry of ``exp`` (columns :data:`TIMELINE_COLUMNS`), oldest first."""
    import pandas as pd

    base_rows = exp._baseline_rows()
    primary = Config.from_json(exp._row().get("baseline_config_json"))
    best_id = exp._row().get("best_run_id")
    base_runs = {m: r["run_id"] for m, r in base_rows.items()}
    base_scores: dict[str, pd.Series] = {}
    out = []
    for e in exp._entries():
        extra = json.loads(e.get("extra_json") or "{}")
        cfg = Config.from_json(e["config_json"]) if e.get("config_json") else None
        model = e["model"]
        base_row = base_rows.get(model) if model else None
        base_cfg = Config.from_json(base_row["config_json"]) if base_row else primary
        rec: dict[str, Any] = {
            "entry_id": e["id"],
            "created_at": pd.Timestamp(e["created_at"], unit="s"),
            "kind": e["kind"],
            "ref_id": e["ref_id"],
            "run_id": e["run_id"],
            "model": model,
            "config_diff": cfg.describe_diff(base_cfg) if cfg else "",
            "split_used": e["split_used"],
            "n_cases": e["n_cases"],
            "score": _nan(e["score"]),
            "ci_low": _nan(e["ci_low"]),
            "ci_high": _nan(e["ci_high"]),
            "delta": math.nan,
            "delta_ci_low": math.nan,
            "delta_ci_high": math.nan,
            "p_value": math.nan,
            "selection_biased": bool(e["selection_biased"]),
            "is_baseline": e["kind"] == "eval"
            and e["run_id"] is not None
            and base_runs.get(model) == e["run_id"],
            "is_best": bool(best_id)
            and e["run_id"] == best_id
            and e["kind"] in ("eval", "confirm"),
            "promoted_from": e["promoted_from"],
            "comparable": bool(e["comparable"]),
            "n_findings": extra.get("n_findings"),
            "top_failure_mode": extra.get("top_failure_mode"),
            "note": e["note"],
        }
        run_ids = exp._run_ids(e)
        if e["kind"] != "judge" and run_ids and e["comparable"] and model:
            if base_row is None:
                if not exp.scope_reason(model):  # a bound experiment's note says it already
                    rec["note"] = _append(rec["note"], f"no baseline for model {model}: no delta")
            else:
                if model not in base_scores:
                    base_scores[model] = case_scores(exp._frame([base_row["run_id"]]), exp.metric)[
                        0
                    ]
                a = base_scores[model]
                b = case_scores(exp._frame(run_ids), exp.metric)[0]
                common = [c for c in b.index if c in a.index]
                if common:
                    res = compare_scores(a.loc[common], b.loc[common])
                    rec.update(
                        delta=res.delta,
                        delta_ci_low=res.ci_low,
                        delta_ci_high=res.ci_high,
                        p_value=res.p_value,
                    )
        out.append(rec)
    return pd.DataFrame(out, columns=TIMELINE_COLUMNS)


def best_history_frame(exp: Any) -> pd.DataFrame:
    """Every change of the experiment's ``best``, with its reason."""
    import pandas as pd

    rows = exp.store.select("experiment_best_history", {"experiment_id": exp.id}, order="id")
    df = pd.DataFrame(
        rows,
        columns=[
            "id",
            "experiment_id",
            "at",
            "config_json",
            "run_id",
            "score",
            "delta_vs_prev",
            "ci_low",
            "ci_high",
            "source",
            "reason",
        ],
    )
    df["at"] = pd.to_datetime(df["at"], unit="s")
    return df.drop(columns=["experiment_id"])
