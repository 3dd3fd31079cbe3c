"""The notebook progress widget over the runner's progress state (no browser), and its
registration as the runner's ``"widget"`` display."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tooleval_nb.runner.events import Event
from tooleval_nb.runner.progress import create_display
from tooleval_nb.widgets.progress import WidgetProgress


def test_widget_progress_values():
    widget = WidgetProgress(interval=0.0)
    widget(
        Event(
            "tool_eval_init",
            "j",
            {
                "suite": "weather",
                "targets": [{"model": "m1", "total": 2}, {"model": "m2", "total": 3}],
            },
        )
    )
    for ok in (True, False):
        widget(
            Event(
                "tool_eval_result",
                "j",
                {
                    "model": "m1",
                    "passed": ok,
                    "overall": 1.0 if ok else 0.0,
                    "error": None if ok else "429",
                },
            )
        )
    widget(Event("job_completed", "j", {}))
    (bar, info), (bar2, _) = widget.rows.values()
    assert (bar.value, bar.max, bar.bar_style) == (2, 2, "success")
    assert (bar2.value, bar2.max) == (0, 3)
    assert "errors 1" in info.value and "score 0.500" in info.value
    assert "completed" in widget.header.value and "weather" in widget.header.value
    assert len(widget.box.children) == 3  # header + one row per model


def test_registered_as_the_runner_widget_display():
    assert isinstance(create_display("widget"), WidgetProgress)


WAYS = {
    "runner": "from tooleval_nb.runner import run_eval",
    "facade": "import tooleval_nb as te; run_eval = te.run_eval",
    "submodule": "from tooleval_nb.runner.launch import run_eval",
}


@pytest.mark.process
@pytest.mark.parametrize("way", list(WAYS), ids=list(WAYS))
def test_the_widget_display_does_not_depend_on_the_import_path(way):
    """In a fresh process (a kernel), however ``run_eval`` was imported, ``progress="widget"``
    (and ``"auto"`` in a notebook) builds the notebook widget, twice in a row."""
    code = WAYS[way] + textwrap.dedent("""
        import sys
        from tooleval_nb.runner.progress import create_display, display_kinds
        assert "widget" in display_kinds(), display_kinds()
        print([type(create_display("widget")).__name__ for _ in range(2)])
        print("tooleval_nb.widgets.progress" in sys.modules)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['WidgetProgress',", "'WidgetProgress']", "True"]
