"""The run panel's logic, without widgets: read the form, and keep the live results table.

:func:`run_request` turns what the form holds into ``run_eval`` arguments (or problems keyed by
field). :class:`LiveResults` is fed the job's events (the same events any subscriber gets) and
renders the per-model progress and the results table as HTML.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..models.spec import MODES
from ..runner.events import Event
from ..runner.progress import ProgressState
from ..runner.settings import DEFAULT_TOOL_CHOICE, TOOL_CHOICES, RunSettings, settings_problems

__all__ = ["RunRequest", "run_request", "LiveResults", "model_name", "TOOL_CHOICES", "MODES"]


def model_name(model: Any) -> str:
    """The name a model is listed under: the string, or ``label`` / ``model`` of a spec."""
    if isinstance(model, str):
        return model
    if isinstance(model, Mapping):
        return str(model.get("label") or model.get("name") or model.get("model"))
    return str(getattr(model, "label", None) or getattr(model, "model", model))


@dataclass
class RunRequest:
    """Validated ``run_eval`` arguments: the models and one :class:`RunSettings`."""

    models: list[Any]
    settings: RunSettings = field(default_factory=RunSettings)
    #: run only the first N cases of the suite (0: all)
    max_cases: int = 0

    @property
    def options(self) -> dict[str, Any]:
        """The settings the form changed, as ``run_eval`` keywords."""
        return self.settings.model_dump(exclude_unset=True)


def run_request(
    models: Sequence[str],
    *,
    temperature: float = 0.0,
    tool_choice: str = DEFAULT_TOOL_CHOICE,
    mode: str = "native",
    system_prompt: str = "",
    per_model_prompt: bool = False,
    tags: str = "",
    max_cases: int = 0,
    specs: Mapping[str, Any] | None = None,
) -> tuple[RunRequest | None, dict[str, list[str]]]:
    """``run_eval`` arguments from the panel's values, or problems keyed by field.

    Args:
        models: The model names chosen (specs for names found in ``specs`` are used instead).
        system_prompt: One prompt for every model, or with ``per_model_prompt`` a JSON object
            ``{model name: prompt}``.
        tags: Comma-separated tags (blank: every case).
        max_cases: Run only the first N cases (0: all).
    """
    problems: dict[str, list[str]] = {}
    names = list(dict.fromkeys(m.strip() for m in models if m and m.strip()))
    if not names:
        problems["models"] = ["pick at least one model (litellm name, e.g. local/smollm2-135m)"]
    if tool_choice not in TOOL_CHOICES:
        problems["tool_choice"] = [f"tool_choice must be one of {', '.join(TOOL_CHOICES)}"]
    if mode not in MODES:
        problems["mode"] = [f"mode must be one of {', '.join(MODES)}"]
    if not 0.0 <= temperature <= 2.0:
        problems["temperature"] = ["temperature must be between 0 and 2"]
    text = system_prompt.strip()
    prompt: str | dict[str, str] | None = text or None
    if per_model_prompt and text:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            value = None
            problems["system_prompt"] = [
                f"per-model prompts must be a JSON object "
                f'{{"model": "prompt"}}: line {exc.lineno}, column '
                f"{exc.colno}: {exc.msg}"
            ]
        if value is not None:
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                problems["system_prompt"] = ["per-model prompts must map model names to text"]
            else:
                unknown = [k for k in value if k not in names]
                if unknown:
                    problems["system_prompt"] = [
                        f"no chosen model is called {', '.join(unknown)}"
                        f" (chosen: {', '.join(names)})"
                    ]
                prompt = value
    if max_cases < 0:
        problems["max_cases"] = ["max cases must be 0 (all) or more"]
    if problems:
        return None, problems
    tag_list = [t.strip() for t in tags.split(",") if t.strip()] or None
    targets = [(specs or {}).get(n, n) for n in names]
    try:
        # the form's free text is validated here (a bad value becomes a problem, not a crash)
        settings = RunSettings.model_validate(
            {
                "temperature": float(temperature),
                "tool_choice": tool_choice,
                "system_prompt": prompt,
                "tags": tag_list,
                "mode": mode,
            }
        )
    except ValidationError as exc:
        return None, settings_problems(exc)
    return RunRequest(models=targets, settings=settings, max_cases=max_cases), {}


_COLUMNS = ("model", "case_id", "sample", "passed", "overall", "failure_mode", "latency_ms")


class LiveResults:
    """Per-model progress and the results rows, built from a job's events (pure state)."""

    def __init__(self, max_rows: int = 500) -> None:
        self.progress = ProgressState()
        self.rows: list[dict[str, Any]] = []
        self.max_rows = max_rows
        self.job_id: str | None = None
        self.error: str | None = None

    def update(self, event: Event) -> bool:
        """Apply one event; True when the display changed."""
        self.job_id = event.job_id
        changed = self.progress.update(event)
        if event.type == "tool_eval_result":
            self.rows.append({k: event.data.get(k) for k in _COLUMNS})
            changed = True
        elif event.type == "job_failed":
            self.error = str(event.data.get("error") or "")
        return changed

    @property
    def finished(self) -> bool:
        return self.progress.finished

    @property
    def status(self) -> str:
        return self.progress.status

    def progress_html(self) -> str:
        """One line per model: a bar, done/total, errors, passes and the running score."""
        lines = []
        for m in self.progress.models.values():
            pct = 100.0 * m.done / m.total if m.total else 0.0
            score = f"{m.score:.3f}" if m.score is not None else "–"
            lines.append(
                f"<tr class='tooleval-model'><td>{html.escape(m.label)}</td>"
                f"<td><progress value='{m.done}' max='{max(m.total, 1)}'></progress> "
                f"{pct:.0f}%</td><td>{m.done}/{m.total}</td><td>{m.errors} errors</td>"
                f"<td>{m.passed} passed</td><td>score {score}</td></tr>"
            )
        status = html.escape(self.status)
        if self.error:
            status += f": {html.escape(self.error)}"
        return (
            f"<div class='tooleval-progress' data-status='{html.escape(self.status)}'>"
            f"<b>{status}</b><table>{''.join(lines)}</table></div>"
        )

    def table_html(self) -> str:
        """The results so far, newest last (the last ``max_rows``), as an HTML table."""
        shown = self.rows[-self.max_rows :]
        head = "".join(f"<th>{c}</th>" for c in _COLUMNS)
        body = []
        for r in shown:
            cells = []
            for c in _COLUMNS:
                v = r.get(c)
                if c == "passed":
                    text = "✓" if v else "✗"
                elif c == "overall" and v is not None:
                    text = f"{float(v):.2f}"
                elif c == "latency_ms" and v is not None:
                    text = f"{float(v):.0f}"
                else:
                    text = "" if v is None else html.escape(str(v))
                cells.append(f"<td>{text}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        more = (
            f"<p><i>{len(self.rows) - len(shown)} earlier rows not shown</i></p>"
            if len(self.rows) > len(shown)
            else ""
        )
        return (
            f"{more}<table class='tooleval-results' data-rows='{len(self.rows)}'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        )
