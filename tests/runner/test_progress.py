"""Progress: the pure state (rate and time left from a clock), its text renderings, the terminal
display on a TTY and in a log, and the registry of displays (the runner imports no widgets)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tooleval_nb.runner.events import Event
from tooleval_nb.runner.progress import (
    ProgressState,
    TextProgress,
    create_display,
    display_kinds,
    register_display,
    render_html,
    render_line,
    render_text,
)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def feed(
    consumer,
    n_ok: int = 2,
    n_err: int = 1,
    final: str = "job_completed",
    clock: Clock | None = None,
    step: float = 0.0,
) -> None:
    consumer(
        Event(
            "tool_eval_init",
            "j",
            {
                "suite": "weather",
                "targets": [
                    {
                        "model": "m1",
                        "total": 4,
                        "done": 1,
                        "passed": 1,
                        "errors": 0,
                        "overall": 1.0,
                    },
                    {"model": "m2", "total": 3},
                ],
            },
        )
    )
    for i in range(n_ok + n_err):
        if clock is not None:
            clock.now += step
        ok = i < n_ok
        consumer(
            Event(
                "tool_eval_result",
                "j",
                {
                    "model": "m1",
                    "passed": ok,
                    "overall": 0.5 if ok else 0.0,
                    "error": None if ok else "429",
                },
            )
        )
    consumer(Event("job_progress", "j", {"detail": "m1: 4/4"}))
    consumer(Event(final, "j", {"error": "boom"} if final == "job_failed" else {}))


def test_state_counts():
    state = ProgressState()
    feed(state.update)
    m1, m2 = state.models["m1"], state.models["m2"]
    assert (m1.done, m1.total, m1.passed, m1.errors) == (4, 4, 3, 1)
    assert m1.score == pytest.approx((1.0 + 0.5 + 0.5 + 0.0) / 4)
    assert (m2.done, m2.score) == (0, None)
    assert state.status == "completed" and state.finished and state.suite == "weather"
    assert (state.done, state.total) == (4, 7)


def test_rate_and_eta_count_only_cases_done_here():
    clock = Clock()
    state = ProgressState(clock)
    feed(state.update, n_ok=2, n_err=0, clock=clock, step=2.0)  # 2 new cases in 4 s
    m1 = state.models["m1"]
    assert state.rate(m1) == pytest.approx(0.5)  # the resumed case (done at init) not counted
    assert state.eta(m1) == pytest.approx(2.0)  # 1 case left at 0.5 case/s
    assert state.eta(state.models["m2"]) is None and state.eta() is None  # m2: no rate yet


def test_render_text_and_html():
    state = ProgressState()
    feed(state.update, final="job_failed")
    lines = render_text(state, width=10)
    assert lines[0].startswith("m1 |██████████| 100.0% 4/4 err 1 pass 3 score 0.500")
    assert "ETA 0s" in lines[0]
    assert "0/3" in lines[1] and lines[1].endswith("[failed]")
    html = render_html(state)
    assert "<progress value='4' max='4'>" in html and "boom" in html


def test_render_line_names_the_suite_counts_rate_eta_and_errors():
    clock = Clock()
    state = ProgressState(clock)
    feed(state.update, n_ok=1, n_err=1, final="job_progress", clock=clock, step=1.0)
    line = render_line(state, state.models["m1"])
    assert line == ("[weather] m1: 3/4 (75%)  1.00 case/s  ETA 1s  errors 1  pass 2  score 0.500")


def test_text_progress_in_a_log_prints_lines_periodically_and_at_the_end():
    clock = Clock()
    out = io.StringIO()
    bar = TextProgress(stream=out, log_interval=5.0, clock=clock)
    feed(bar, n_ok=3, n_err=0, clock=clock, step=3.0)  # results at 3, 6 and 9 s
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().splitlines() == [
        # the suite starts: one line per model
        "[weather] m1: 1/4 (25%)  - case/s  ETA ?  errors 0  pass 1  score 1.000",
        "[weather] m2: 0/3 (0%)  - case/s  ETA ?  errors 0  pass 0  score -",
        # 6 s later (the result at 3 s came sooner than log_interval)
        "[weather] m1: 3/4 (75%)  0.33 case/s  ETA 3s  errors 0  pass 3  score 0.667",
        "[weather] m2: 0/3 (0%)  - case/s  ETA ?  errors 0  pass 0  score -",
        # the end (the result at 9 s came sooner than log_interval after the last lines)
        "[weather] m1: 4/4 (100%)  0.33 case/s  done in 9s  errors 0  pass 4  score 0.625  "
        "[completed]",
        "[weather] m2: 0/3 (0%)  - case/s  ETA ?  errors 0  pass 0  score -  [completed]",
    ]


def test_text_progress_in_a_log_names_each_finished_model():
    out = io.StringIO()
    bar = TextProgress(stream=out)
    bar(
        Event(
            "tool_eval_init",
            "j",
            {"suite": "s", "targets": [{"model": "a", "total": 1}, {"model": "b", "total": 1}]},
        )
    )
    bar(Event("tool_eval_result", "j", {"model": "a", "passed": True, "overall": 1.0}))
    bar(Event("tool_eval_summary", "j", {"model": "a"}))
    assert out.getvalue().splitlines()[-1].startswith("[s] a: 1/1 (100%)")


def test_text_progress_tty_redraws_in_place():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    bar = TextProgress(stream=out, interval=0.0)
    feed(bar)
    assert "\x1b[3F" in out.getvalue()  # up over the suite line and two model lines
    assert "suite weather: 4/7" in out.getvalue()


def test_displays_registry():
    assert "text" in display_kinds()
    assert isinstance(create_display("text"), TextProgress)
    with pytest.raises(ValueError, match="'nope' is not a registered progress display"):
        create_display("nope")
    seen: list[Event] = []
    register_display("test-list", lambda: seen.append)
    create_display("test-list")(Event("job_progress", "j", {}))
    assert len(seen) == 1


def test_the_runner_imports_no_widget_library():
    code = (
        "import sys, tooleval_nb.runner, tooleval_nb.runner.progress; "
        "print([m for m in sys.modules if m.startswith(('ipywidgets', "
        "'tooleval_nb.widgets'))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_log_gets_one_line_at_the_end_not_a_periodic_one_before_it():
    clock = Clock()
    out = io.StringIO()
    bar = TextProgress(stream=out, clock=clock)
    bar(Event("tool_eval_init", "j", {"suite": "s", "targets": [{"model": "a", "total": 1}]}))
    clock.now += 10.0
    bar(Event("tool_eval_result", "j", {"model": "a", "passed": True, "overall": 1.0}))
    assert len(out.getvalue().splitlines()) == 1  # every case done: the end's line follows
    bar(Event("job_completed", "j", {}))
    assert out.getvalue().splitlines()[1] == (
        "[s] a: 1/1 (100%)  0.10 case/s  done in 10s  errors 0  pass 1  score 1.000  [completed]"
    )
