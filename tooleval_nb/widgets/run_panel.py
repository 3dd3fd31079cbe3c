"""RunPanel: start, follow and cancel runs from a notebook (thin ipywidgets over :mod:`.running`)."""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W

from ..errors import ToolEvalError
from ..formats import load_suites
from ..formats.bundled import bundled_suites_dir
from ..models import DEFAULT_MODEL
from ..runner import run_eval
from ..suite import Suite
from .explorer import ResultsExplorer
from .running import MODES, TOOL_CHOICES, LiveResults, model_name, run_request

__all__ = ["RunPanel"]

_FINAL = ("job_completed", "job_failed", "job_cancelled")


def _errors_html(messages: list[str] | None) -> str:
    if not messages:
        return ""
    items = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
    return f"<ul class='tooleval-error' style='color:#b00020;margin:2px 0'>{items}</ul>"


def _as_suites(suites: Any) -> dict[str, Suite]:
    if suites is None:
        try:
            suites = load_suites(bundled_suites_dir())
        except ToolEvalError:
            return {}
    if isinstance(suites, (Suite, str, Path)):
        suites = [suites]
    if isinstance(suites, Mapping):
        items = list(suites.items())
    else:
        items = []
        for s in suites:
            if isinstance(s, Suite):
                items.append((s.name, s))
            else:
                items.extend((x.name, x) for x in load_suites(s))
    out: dict[str, Suite] = {}
    for name, suite in items:
        out[name if name not in out else f"{name} ({len(out)})"] = suite
    return out


class _hybrid:
    """A method that works on the class (``RunPanel.attach(job)``) and on an instance."""

    def __init__(self, func: Any) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: Any) -> Any:
        target = cls if obj is None else obj
        return lambda *args, **kwargs: self.func(target, *args, **kwargs)


class RunPanel(W.VBox):
    """Pick a suite, models, temperature, tool_choice, mode, system prompt and tags; Run and
    Cancel; follow per-model progress and a results table that fills as cases finish.

    A run started from code shows the same way: ``RunPanel.attach(job)`` (or
    ``panel.attach(job)``) follows any job's events.

    Args:
        suites: Suites to choose from (Suite objects, paths, or ``{name: suite}``); default the
            bundled suites.
        models: Models chosen at first (default: the embedded ``local/smollm2-135m``); specs
            (dicts or ``ModelSpec``) are listed by their label or model name.
        model_specs: ``{name: spec}`` used for names typed into the models box (local servers
            with an ``api_base``, keys...).
        store: The run store for runs started here.
        max_concurrency: Concurrent cases per provider.
        refresh_interval: Redraw at most this often, seconds (always at the end).
    """

    def __init__(
        self,
        suites: Any = None,
        models: Sequence[Any] | None = None,
        *,
        model_specs: Mapping[str, Any] | None = None,
        store: Any = None,
        max_concurrency: int = 8,
        refresh_interval: float = 0.25,
        **kwargs: Any,
    ) -> None:
        self.suites = _as_suites(suites)
        chosen = list(models) if models is not None else [DEFAULT_MODEL]
        self.model_specs: dict[str, Any] = dict(model_specs or {})
        for m in chosen:
            if not isinstance(m, str):
                self.model_specs[model_name(m)] = m
        self.store = store
        self.max_concurrency = max_concurrency
        self.refresh_interval = refresh_interval
        self.job: Any = None
        self.run: Any = None
        self.live = LiveResults()
        self._unsubscribe: Any = None
        self._last_draw = 0.0

        self.suite_input = W.Dropdown(
            description="suite", options=list(self.suites), layout=W.Layout(width="95%")
        )
        self.models_input = W.TagsInput(
            value=[model_name(m) for m in chosen], allow_duplicates=False
        )
        wide = {"description_width": "initial"}
        self.temperature_input = W.BoundedFloatText(
            description="temperature", value=0.0, min=0.0, max=2.0, step=0.1, style=wide
        )
        self.tool_choice_input = W.Dropdown(
            description="tool_choice", options=TOOL_CHOICES, value="required", style=wide
        )
        self.mode_input = W.Dropdown(description="mode", options=MODES, value="native")
        self.system_prompt_input = W.Textarea(
            description="system prompt",
            placeholder=(
                'one prompt for every model (or, per model, a JSON object {"model": "prompt"})'
            ),
            layout=W.Layout(width="80%"),
            style=wide,
        )
        self.per_model_prompt = W.Checkbox(
            description="per model (JSON)", value=False, indent=False
        )
        self.tags_input = W.Text(description="tags", placeholder="smoke, weather (blank: all)")
        self.max_cases_input = W.BoundedIntText(
            description="max cases", value=0, min=0, max=1_000_000, style=wide
        )
        self.run_button = W.Button(description="Run", button_style="primary", icon="play")
        self.cancel_button = W.Button(description="Cancel", icon="stop", disabled=True)
        self.errors = {
            k: W.HTML()
            for k in (
                "suite",
                "models",
                "temperature",
                "tool_choice",
                "mode",
                "system_prompt",
                "max_cases",
                "run",
            )
        }
        self.progress_view = W.HTML()
        self.table_view = W.HTML()
        self.run_button.on_click(lambda _: self.start())
        self.cancel_button.on_click(lambda _: self.cancel())
        self.run_button.add_class("tooleval-run-button")
        self.table_view.add_class("tooleval-results-view")

        err = self.errors
        form = W.VBox(
            [
                self.suite_input,
                err["suite"],
                W.HTML("models:"),
                self.models_input,
                err["models"],
                W.HBox([self.temperature_input, self.tool_choice_input, self.mode_input]),
                err["temperature"],
                W.HBox([self.system_prompt_input, self.per_model_prompt]),
                err["system_prompt"],
                W.HBox([self.tags_input, self.max_cases_input]),
                err["max_cases"],
                W.HBox([self.run_button, self.cancel_button]),
                err["run"],
            ]
        )
        super().__init__([form, self.progress_view, self.table_view], **kwargs)
        self.add_class("tooleval-run-panel")
        if not self.suites:
            err["suite"].value = _errors_html(["no suites: pass suites=[...] to RunPanel"])

    # -- starting ----------------------------------------------------------------------------
    def start(self) -> Any:
        """Start a run with the form's values (what the Run button does); returns the Job, or
        None with the problems shown next to their fields."""
        for box in self.errors.values():
            box.value = ""
        if self.job is not None and not self.job.done():
            self.errors["run"].value = _errors_html(["a run is going on; cancel it first"])
            return None
        suite = self.suites.get(self.suite_input.value)
        request, problems = run_request(
            list(self.models_input.value),
            temperature=self.temperature_input.value,
            tool_choice=self.tool_choice_input.value,
            mode=self.mode_input.value,
            system_prompt=self.system_prompt_input.value,
            per_model_prompt=self.per_model_prompt.value,
            tags=self.tags_input.value,
            max_cases=self.max_cases_input.value,
            specs=self.model_specs,
        )
        if suite is None:
            problems["suite"] = ["pick a suite"]
        if request is None or suite is None:
            for key, msgs in problems.items():
                self.errors.get(key, self.errors["run"]).value = _errors_html(msgs)
            return None
        if request.max_cases:
            suite = suite.model_copy(update={"cases": suite.cases[: request.max_cases]})

        self.run_button.disabled = True
        try:
            job = run_eval(
                suite,
                request.models,
                request.settings,
                store=self.store,
                progress="none",
                max_concurrency=self.max_concurrency,
                callbacks=[self._on_event],
            )
        except (ToolEvalError, ValueError, TypeError) as exc:
            self.run_button.disabled = False
            self.errors["run"].value = _errors_html([str(exc)])
            return None
        self._follow(job, subscribed=True)
        return job

    def cancel(self) -> bool:
        """Cancel the run going on (what the Cancel button does)."""
        if self.job is None:
            return False
        return bool(self.job.cancel())

    # -- following ---------------------------------------------------------------------------
    @_hybrid
    def attach(self_or_cls: Any, job: Any) -> RunPanel:  # noqa: N805
        """Follow ``job`` (started anywhere): progress and results as they come.

        On the class, ``RunPanel.attach(job)`` makes a panel showing the job's suite, models and
        settings; on a panel, it follows the job in place.
        """
        if isinstance(self_or_cls, type):
            plan = job.plan
            panel = self_or_cls(
                suites={plan.suite.name: plan.suite},
                models=[t.label for t in plan.targets],
                store=job.store,
            )
            return panel.attach(job)
        self = self_or_cls
        settings = getattr(job, "plan", None) and job.plan.settings
        if settings is not None:
            self.temperature_input.value = settings.temperature
            if settings.tool_choice in TOOL_CHOICES:
                self.tool_choice_input.value = settings.tool_choice
            if settings.mode in MODES:
                self.mode_input.value = settings.mode
        self._follow(job, subscribed=False)
        return self

    def _follow(self, job: Any, subscribed: bool) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job, self.run = job, None
        self.live = LiveResults()
        for event in list(job.events):  # what happened before we listened
            self.live.update(event)
        if not subscribed:
            self._unsubscribe = job.subscribe(self._on_event)
        elif job.done():  # ran to the end inside run_eval (no event loop): events replayed
            pass
        self._finish_if_done()
        self.draw()

    def _on_event(self, event: Any) -> None:
        if self.job is None or event.job_id != self.job.id:
            return
        if not self.live.update(event):
            return
        final = event.type in _FINAL or event.type == "tool_eval_summary"
        if final or time.monotonic() - self._last_draw >= self.refresh_interval:
            self._finish_if_done()
            self.draw()

    def _finish_if_done(self) -> None:
        running = not self.live.finished
        self.run_button.disabled = running
        self.cancel_button.disabled = not running
        # a disabled button keeps its colour: lit only while there is something to cancel
        self.cancel_button.button_style = "warning" if running else ""
        if not running and self.run is None and self.job is not None:
            try:
                self.run = self.job.snapshot()
            except ToolEvalError:
                self.run = None

    def draw(self) -> None:
        """Redraw the progress and the results table from the events seen."""
        self._last_draw = time.monotonic()
        self.progress_view.value = self.live.progress_html()
        self.table_view.value = self.live.table_html()

    def explorer(self) -> Any:
        """A :class:`~tooleval_nb.widgets.ResultsExplorer` over this panel's run."""
        if self.job is None:
            return ResultsExplorer()
        return ResultsExplorer().attach(self.job)
