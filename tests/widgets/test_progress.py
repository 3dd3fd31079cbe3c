"""The notebook progress widget over the runner's progress state (no browser), and its
registration as the runner's ``"widget"`` display."""

from __future__ import annotations

from tooleval_nb.runner.events import Event
from tooleval_nb.runner.progress import create_display
from tooleval_nb.widgets.progress import WidgetProgress


def test_widget_progress_values():
    widget = WidgetProgress(interval=0.0)
    widget(Event("tool_eval_init", "j", {"suite": "weather", "targets": [
        {"model": "m1", "total": 2}, {"model": "m2", "total": 3}]}))
    for ok in (True, False):
        widget(Event("tool_eval_result", "j", {"model": "m1", "passed": ok,
                                               "overall": 1.0 if ok else 0.0,
                                               "error": None if ok else "429"}))
    widget(Event("job_completed", "j", {}))
    (bar, info), (bar2, _) = widget.rows.values()
    assert (bar.value, bar.max, bar.bar_style) == (2, 2, "success")
    assert (bar2.value, bar2.max) == (0, 3)
    assert "errors 1" in info.value and "score 0.500" in info.value
    assert "completed" in widget.header.value and "weather" in widget.header.value
    assert len(widget.box.children) == 3  # header + one row per model


def test_registered_as_the_runner_widget_display():
    assert isinstance(create_display("widget"), WidgetProgress)
