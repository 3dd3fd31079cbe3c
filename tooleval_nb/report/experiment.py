"""The optional experiment section of a report: the experiment, a paragraph on it, its timeline.

Experiment things come from the :mod:`tooleval_nb.experiments` facade only.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..errors import ExperimentError, ToolEvalError
from ..experiments import experiment
from ..runner.store import resolve_store
from .markdown import markdown_code, markdown_text
from .params import ReportParams
from .tables import styled

__all__ = ["open_experiment", "experiment_summary", "timeline_table", "TIMELINE_REPORT_COLUMNS"]

#: the timeline columns a report shows
TIMELINE_REPORT_COLUMNS = [
    "kind",
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
    "is_baseline",
    "is_best",
    "note",
]


def _experiment_names(store: str | None) -> list[str]:
    """The experiments in ``store`` (their table lives in the run store's SQLite file)."""
    try:
        rows = resolve_store(store).connection().execute("SELECT name FROM experiments")
    except sqlite3.OperationalError:  # no experiment was ever created there
        return []
    return sorted(r[0] for r in rows)


def open_experiment(params: ReportParams) -> Any:
    """The experiment named by ``params.experiment`` in the report's store.

    Raises:
        ToolEvalError: there is no such experiment (the message lists the ones in the store).
    """
    if not params.experiment:
        raise ToolEvalError("no experiment named in the report parameters; set experiment=NAME")
    try:
        return experiment(params.experiment, store=params.store)
    except ExperimentError:
        names = _experiment_names(params.store)
        have = ", ".join(repr(n) for n in names) if names else "none"
        raise ToolEvalError(
            f"experiment: no experiment {params.experiment!r} in the store "
            f"{resolve_store(params.store).path} (experiments there: {have}); "
            "check --experiment and --store"
        ) from None


def _fmt(value: Any, spec: str = "{:.3f}") -> str:
    return "–" if value is None or value != value else spec.format(value)


def experiment_summary(exp: Any) -> str:
    """A Markdown paragraph on ``exp``: its suite, entries, baseline and best config (with the
    evidence: score, CI, paired delta vs the baseline, where it came from)."""
    timeline = exp.timeline()
    kinds = timeline["kind"].value_counts().to_dict() if len(timeline) else {}
    entries = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "no entries yet"
    lines = [
        f"**{markdown_text(exp.name)}** on suite {markdown_code(exp.suite.name)}: "
        f"{markdown_text(entries)}."
    ]
    base = exp.baseline
    baselines = getattr(exp, "baselines", None) or ({} if base is None else {"": base})
    for model, record in baselines.items():  # one per model when several were compared
        who = f" of {markdown_text(model)}" if model and len(baselines) > 1 else ""
        lines.append(
            f"Baseline{who}: run {markdown_code(record.run_id)}, score {_fmt(record.score)} "
            f"[{_fmt(record.ci_low)}, {_fmt(record.ci_high)}]."
        )
    best = exp.best
    if best.run_id is None:
        lines.append(f"Best: {markdown_text(best.source)}.")
    else:
        change = (
            markdown_text(best.config.describe_diff(base.config))
            if base is not None
            else "no baseline pinned"
        )
        lines.append(
            f"Best ({markdown_text(best.source)}{', confirmed' if best.confirmed else ''}):"
            f" score {_fmt(best.score)} [{_fmt(best.ci_low)}, {_fmt(best.ci_high)}], "
            f"paired delta vs baseline {_fmt(best.delta, '{:+.3f}')}; change: {change}."
        )
    return "\n\n".join(lines)


def timeline_table(exp: Any) -> Any:
    """``exp``'s timeline as a report table (styled, text escaped)."""
    timeline = exp.timeline()
    cols = [c for c in TIMELINE_REPORT_COLUMNS if c in timeline.columns]
    numbers = {
        c: "{:.3f}"
        for c in ("score", "ci_low", "ci_high", "delta_ci_low", "delta_ci_high", "p_value")
    }
    numbers["delta"] = "{:+.3f}"
    return styled(timeline[cols], {c: f for c, f in numbers.items() if c in cols}, wrap=True)
