"""The sweep form (``te.sweep_form(suite)``): pick parameters and values, strategy and budget;
Run / Cancel; a live forest plot (eliminated trials greyed) and a budget bar; then the finished
sweep's view (:func:`.experiment_views.sweep_view`: effects, trials, Confirm / Promote).

The form's text fields become a space through the pure :func:`parse_values` and
:func:`space_from_fields`.
"""

from __future__ import annotations

import asyncio
import html
from typing import Any

import ipywidgets as widgets
from IPython.display import display

from ..charts import forest_chart
from ..experiments import Budget, Config, Experiment, Space, Sweep, space, sweep_async
from ..experiments.race import live_trials
from ..suite import Suite
from .background import show, start
from .experiment_views import sweep_view

__all__ = ["SweepForm", "sweep_form", "parse_values", "space_from_fields", "SWEEP_FIELDS"]

#: the form's parameters and their default values (empty = not swept)
SWEEP_FIELDS: dict[str, str] = {
    "temperature": "0, 0.7",
    "tool_choice": "auto, required",
    "max_tokens": "",
    "top_p": "",
    "repeat_penalty": "",
    "min_p": "",
}


def parse_values(text: str) -> list[Any]:
    """``"0, 0.7"`` → ``[0.0, 0.7]``; ``"auto, required"`` → strings; ``"128"`` → ``[128]``."""
    out: list[Any] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        for cast in (int, float):
            try:
                out.append(cast(part))
                break
            except ValueError:
                continue
        else:
            out.append(part)
    return out


def space_from_fields(fields: dict[str, str]) -> Space:
    """A :class:`~tooleval_nb.experiments.Space` from the form's text fields (empty fields are
    not swept)."""
    values = {k: parse_values(v) for k, v in fields.items() if parse_values(v)}
    return space(**values)


class SweepForm:
    """A form that drives sweeps (``te.sweep_form(suite)``); ``.widget`` is the ipywidget."""

    def __init__(
        self,
        suite: Suite,
        base: Config | None = None,
        *,
        store: Any = None,
        experiment: Experiment | None = None,
        calls: int = 60,
    ) -> None:
        self.suite, self.store, self.experiment = suite, store, experiment
        self.base = base or (experiment.best.config if experiment is not None else Config())
        self.fields = {
            k: widgets.Text(value=v, description=k, placeholder="not swept")
            for k, v in SWEEP_FIELDS.items()
        }
        self.strategy = widgets.Dropdown(
            options=["race", "grid", "random"], value="race", description="strategy"
        )
        self.calls = widgets.IntText(value=calls, description="calls")
        self.minutes = widgets.FloatText(value=15.0, description="minutes")
        self.run = widgets.Button(description="Run", button_style="primary", icon="play")
        self.cancel = widgets.Button(description="Cancel", disabled=True, icon="stop")
        self.bar = widgets.IntProgress(min=0, max=calls, description="budget")
        self.live = widgets.Output()
        self.result_box = widgets.VBox([])
        self.status = widgets.HTML()
        self.sweep: Sweep | None = None
        self.task: asyncio.Task[Any] | None = None
        self.run.on_click(self._on_run)
        self.cancel.on_click(self._on_cancel)
        self.widget = widgets.VBox(
            [
                widgets.HTML("<b>Parameter sweep</b> (comma-separated values; empty = not swept)"),
                *self.fields.values(),
                widgets.HBox([self.strategy, self.calls, self.minutes]),
                widgets.HBox([self.run, self.cancel, self.bar]),
                self.status,
                self.live,
                self.result_box,
            ]
        )

    def _ipython_display_(self) -> None:
        display(self.widget)

    def space(self) -> Space:
        """The space the fields describe."""
        return space_from_fields({k: w.value for k, w in self.fields.items()})

    def _on_event(self, kind: str, data: dict[str, Any]) -> None:
        self.bar.value = min(self.bar.max, int(data.get("calls", 0)))
        if kind == "round" and data.get("arms"):
            show(self.live, forest_chart(live_trials(data["arms"])))

    def _on_run(self, _: Any) -> None:
        try:
            space = self.space()
        except Exception as exc:  # a bad field: say which, keep the form usable
            self.status.value = f"<span style='color:#c00'>{html.escape(str(exc))}</span>"
            return
        self.run.disabled, self.cancel.disabled = True, False
        self.bar.max = self.calls.value
        self.status.value = "running…"
        coro = sweep_async(
            self.suite,
            self.base,
            space,
            strategy=self.strategy.value,
            budget=Budget(calls=self.calls.value, minutes=self.minutes.value),
            store=self.store,
            experiment=self.experiment,
            on_event=self._on_event,
            split=getattr(self.experiment, "split", None),
        )
        self.task = start(coro, self._done)

    def _done(self, result: Any, error: BaseException | None) -> None:
        self.run.disabled, self.cancel.disabled = False, True
        if error is not None:
            self.status.value = f"<span style='color:#c00'>{html.escape(str(error))}</span>"
            return
        if result is None:
            self.status.value = "cancelled (finished cells are kept; Run resumes)"
            return
        self.sweep = result
        self.status.value = html.escape(result.message)
        self.result_box.children = (sweep_view(result, self.experiment),)

    def _on_cancel(self, _: Any) -> None:
        if self.task is not None:
            self.task.cancel()


def sweep_form(suite: Suite, base: Config | None = None, **kwargs: Any) -> SweepForm:
    """The sweep form (see :class:`SweepForm`)."""
    return SweepForm(suite, base, **kwargs)
