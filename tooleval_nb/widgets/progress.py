"""The notebook progress display of a run: per model a progress bar and a line of counts.

A thin ipywidgets layer over :class:`tooleval_nb.runner.progress.ProgressState` (pure, tested on
its own). The runner never imports this module: ``run_eval(progress="widget")`` (and ``"auto"``
in a notebook) builds it through the display registry of :mod:`tooleval_nb.runner.progress`,
which names it (``"widget"``) and imports this module the first time a run asks for it.
"""

from __future__ import annotations

import html
import time
from typing import Any

from ..runner.events import Event
from ..runner.progress import FINAL_EVENTS, ProgressState

__all__ = ["WidgetProgress"]

_STYLES = {"completed": "success", "failed": "danger", "cancelled": "warning"}


class WidgetProgress:
    """ipywidgets display: per model a progress bar and a line of counts and score."""

    def __init__(self, interval: float = 0.2) -> None:
        import ipywidgets as widgets

        self.state = ProgressState()
        self.interval = interval
        self._w = widgets
        self._last = float("-inf")
        self.header = widgets.HTML(value="<b>tooleval</b>: queued")
        self.rows: dict[str, tuple[Any, Any]] = {}
        self.box = widgets.VBox([self.header])

    def __call__(self, event: Event) -> None:
        if not self.state.update(event):
            return
        now = time.monotonic()
        if (
            event.type in FINAL_EVENTS
            or event.type in ("tool_eval_summary", "tool_eval_init")
            or now - self._last >= self.interval
        ):
            self._last = now
            self.draw()

    def draw(self) -> None:
        """Bring the widgets up to date with the state."""
        w = self._w
        suite = f" suite <i>{html.escape(self.state.suite)}</i>" if self.state.suite else ""
        self.header.value = (
            f"<b>tooleval</b>{suite}: {html.escape(self.state.status)} "
            f"{html.escape(self.state.detail)}"
        )
        for m in self.state.models.values():
            if m.label not in self.rows:
                bar = w.IntProgress(
                    min=0,
                    max=max(m.total, 1),
                    description=m.label[:20],
                    layout=w.Layout(width="60%"),
                )
                info = w.HTML()
                self.rows[m.label] = (bar, info)
                self.box.children = (*self.box.children, w.HBox([bar, info]))
            bar, info = self.rows[m.label]
            bar.max = max(m.total, 1)
            bar.value = m.done
            score = f"{m.score:.3f}" if m.score is not None else "–"
            info.value = (
                f"{m.done}/{m.total} &nbsp; errors {m.errors} &nbsp; "
                f"passed {m.passed} &nbsp; score {score}"
            )
            if self.state.finished:
                bar.bar_style = _STYLES.get(self.state.status, "")

    def display(self) -> None:
        """Show the widget below the running cell."""
        from IPython.display import display

        display(self.box)
