"""Live progress of a job: a pure state fed by events, the terminal display, and the registry of
displays ``run_eval(progress=...)`` chooses from.

:class:`ProgressState` counts, per model, cases done out of total, errors, passes and the running
mean overall score, from the job's events, and derives the rate and the time left.
:class:`TextProgress` draws it on a terminal: bars redrawn in place on a TTY; on anything else (a
CI log, a pipe) one plain line per model every ``log_interval`` seconds and at the end, so a log
shows a long run moving. Notebook displays live outside the runner (the runner imports no widget
library): the registry names ``"widget"`` by the path of :class:`tooleval_nb.widgets.progress.WidgetProgress`
and imports it when a run first asks for it, whatever was imported before;
:func:`register_display` adds others, and :func:`create_display` builds the display a run asks
for.
"""

from __future__ import annotations

import html
import pkgutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TextIO

from .events import Event

__all__ = [
    "ModelProgress",
    "ProgressState",
    "ProgressDisplay",
    "render_text",
    "render_html",
    "render_line",
    "TextProgress",
    "register_display",
    "create_display",
    "display_kinds",
    "FINAL_EVENTS",
]

#: the events that end a job
FINAL_EVENTS = ("job_completed", "job_failed", "job_cancelled")
_FINAL = FINAL_EVENTS


@dataclass(slots=True)
class ModelProgress:
    """One model's counters."""

    label: str
    total: int
    done: int = 0
    passed: int = 0
    errors: int = 0
    score_sum: float = 0.0
    #: cases already done when this process started following the job (a resumed job)
    done_at_start: int = 0

    @property
    def score(self) -> float | None:
        """The mean overall score of the cases done so far."""
        return self.score_sum / self.done if self.done else None


class ProgressState:
    """Per-model progress built from events (pure: no display, no I/O).

    ``clock`` gives the time in seconds (``time.monotonic`` by default; tests pass their own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.models: dict[str, ModelProgress] = {}
        self.status = "queued"
        self.detail = ""
        self.suite = ""
        self.clock = clock
        self.started = clock()

    def update(self, event: Event) -> bool:
        """Apply one event; True when what a display shows changed."""
        data = event.data
        if event.type == "tool_eval_init":
            self.status = "running"
            self.started = self.clock()
            self.suite = str(data.get("suite") or "")
            for t in data.get("targets", []):
                done = int(t.get("done") or 0)
                mp = ModelProgress(
                    t["model"],
                    int(t["total"]),
                    done,
                    int(t.get("passed") or 0),
                    int(t.get("errors") or 0),
                    done_at_start=done,
                )
                mp.score_sum = float(t.get("overall") or 0.0) * mp.done
                self.models[mp.label] = mp
            return True
        if event.type == "tool_eval_result":
            found = self.models.get(data["model"])
            if found is None:
                found = self.models[data["model"]] = ModelProgress(data["model"], 0)
            mp = found
            mp.done += 1
            mp.total = max(mp.total, mp.done)
            mp.passed += bool(data.get("passed"))
            mp.errors += data.get("error") is not None
            mp.score_sum += float(data.get("overall") or 0.0)
            return True
        if event.type == "job_progress":
            self.detail = str(data.get("detail") or "")
            return False
        if event.type in _FINAL:
            self.status = event.type.removeprefix("job_")
            if event.type == "job_failed":
                self.detail = str(data.get("error") or "")
            return True
        return event.type == "tool_eval_summary"

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed", "cancelled")

    @property
    def done(self) -> int:
        return sum(m.done for m in self.models.values())

    @property
    def total(self) -> int:
        return sum(m.total for m in self.models.values())

    @property
    def elapsed(self) -> float:
        """Seconds since the job started running."""
        return max(self.clock() - self.started, 0.0)

    def rate(self, model: ModelProgress | None = None) -> float | None:
        """Cases per second done in this process (one model's, or the job's); None before any."""
        parts = [model] if model is not None else list(self.models.values())
        new = sum(m.done - m.done_at_start for m in parts)
        elapsed = self.elapsed
        return new / elapsed if new and elapsed > 0 else None

    def eta(self, model: ModelProgress | None = None) -> float | None:
        """Seconds left at the current rate (0 when done; None while the rate is unknown).

        Models of a job run side by side, so the job's time left is that of its slowest model.
        """
        if model is None:
            left = [self.eta(m) for m in self.models.values()]
            if any(v is None for v in left):
                return None
            return max((v for v in left if v is not None), default=0.0)
        if model.done >= model.total:
            return 0.0
        rate = self.rate(model)
        return (model.total - model.done) / rate if rate else None


def _bar(done: int, total: int, width: int) -> str:
    filled = int(width * done / total) if total else width
    return "█" * filled + "░" * (width - filled)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _rate(value: float | None) -> str:
    return f"{value:.2f} case/s" if value is not None else "- case/s"


def render_text(state: ProgressState, width: int = 24) -> list[str]:
    """One line per model: ``label |bar| pct done/total err E pass P score S  rate  ETA``."""
    if not state.models:
        return [f"tooleval: {state.status} {state.detail}".rstrip()]
    name_width = min(max(len(m) for m in state.models), 40)
    lines = []
    for m in state.models.values():
        score = f"{m.score:.3f}" if m.score is not None else "  -  "
        pct = 100.0 * m.done / m.total if m.total else 100.0
        lines.append(
            f"{m.label[:name_width]:<{name_width}} |{_bar(m.done, m.total, width)}| "
            f"{pct:5.1f}% {m.done}/{m.total} err {m.errors} pass {m.passed} "
            f"score {score}  {_rate(state.rate(m))}  ETA {_duration(state.eta(m))}"
        )
    if state.finished:
        lines[-1] += f"  [{state.status}]"
    return lines


def render_line(state: ProgressState, model: ModelProgress) -> str:
    """One plain line for a log: suite, model, done/total, rate, time left, errors, score."""
    pct = 100.0 * model.done / model.total if model.total else 100.0
    score = f"{model.score:.3f}" if model.score is not None else "-"
    where = f"[{state.suite}] " if state.suite else ""
    tail = (
        f"done in {_duration(state.elapsed)}"
        if model.done >= model.total
        else f"ETA {_duration(state.eta(model))}"
    )
    line = (
        f"{where}{model.label}: {model.done}/{model.total} ({pct:.0f}%)  "
        f"{_rate(state.rate(model))}  {tail}  errors {model.errors}  pass {model.passed}  "
        f"score {score}"
    )
    if state.finished:
        failed = state.status == "failed" and state.detail
        line += f"  [{state.status}{': ' + state.detail if failed else ''}]"
    return line


def render_html(state: ProgressState) -> str:
    """The same as :func:`render_text`, as an HTML table (used by ``Job._repr_mimebundle_``)."""
    rows = []
    for m in state.models.values():
        pct = 100.0 * m.done / m.total if m.total else 100.0
        score = f"{m.score:.3f}" if m.score is not None else "–"
        rows.append(
            f"<tr><td>{html.escape(m.label)}</td><td><progress value='{m.done}' "
            f"max='{max(m.total, 1)}'></progress> {pct:.0f}%</td><td>{m.done}/{m.total}</td>"
            f"<td>{m.errors}</td><td>{m.passed}</td><td>{score}</td></tr>"
        )
    head = (
        "<tr><th>model</th><th>progress</th><th>done</th><th>errors</th><th>passed</th>"
        "<th>score</th></tr>"
    )
    return (
        f"<div><b>status:</b> {html.escape(state.status)} {html.escape(state.detail)}"
        f"<table>{head}{''.join(rows)}</table></div>"
    )


class ProgressDisplay(Protocol):
    """What ``run_eval(progress=...)`` subscribes to a job: a callable fed every event. A display
    that shows itself somewhere (a widget) also has ``display()``, called once at the start."""

    def __call__(self, event: Event) -> None: ...


class TextProgress:
    """Progress on a terminal stream (stderr by default).

    On a TTY: tqdm-like bars, one per model under a suite header, redrawn in place at most every
    ``interval`` seconds. Elsewhere (CI logs, pipes; no escape codes): one line per model when
    the suite starts, at most every ``log_interval`` seconds while it runs, when a model finishes
    and at the end, each with cases done and total, rate, time left and errors so far.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        interval: float = 0.1,
        log_interval: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = ProgressState(clock)
        self.stream = stream or sys.stderr
        self.interval = interval
        self.log_interval = log_interval
        self.clock = clock
        self._last = float("-inf")
        self._lines = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, event: Event) -> None:
        if not self.state.update(event):
            return
        if self._tty:
            self._on_tty(event)
        else:
            self._on_log(event)

    def _on_tty(self, event: Event) -> None:
        now = self.clock()
        final = event.type in _FINAL or event.type in ("tool_eval_summary", "tool_eval_init")
        if final or now - self._last >= self.interval:
            self._last = now
            self.draw()

    def _on_log(self, event: Event) -> None:
        now = self.clock()
        if event.type == "tool_eval_summary":  # one of several models finished: its line
            model = self.state.models.get(str(event.data.get("model")))
            if model is not None and len(self.state.models) > 1:
                self._write([render_line(self.state, model)])
            return
        if (
            event.type in _FINAL
            or event.type == "tool_eval_init"
            or (now - self._last >= self.log_interval and self.state.done < self.state.total)
        ):  # all done: the end's lines follow
            self._last = now
            self._write(
                [render_line(self.state, m) for m in self.state.models.values()]
                or render_text(self.state)
            )

    def _write(self, lines: list[str]) -> None:
        self.stream.write("".join(f"{line}\n" for line in lines))
        self.stream.flush()

    def draw(self) -> None:
        """Redraw the bars (on a TTY, over the previous drawing)."""
        lines = render_text(self.state)
        if self.state.suite:
            lines.insert(
                0,
                f"suite {self.state.suite}: {self.state.done}/{self.state.total} "
                f"in {_duration(self.state.elapsed)}",
            )
        out = ""
        if self._tty and self._lines:
            out += f"\x1b[{self._lines}F"
        out += "".join(f"{line}\x1b[K\n" if self._tty else f"{line}\n" for line in lines)
        self._lines = len(lines)
        self.stream.write(out)
        self.stream.flush()


# -- the displays run_eval(progress=...) can ask for ---------------------------------------------
#: name -> a display factory, or the ``"module:attribute"`` of one that lives on a floor above the
#: runner (the notebook widget): loaded the first time it is asked for, so what a name gives never
#: depends on which modules were imported before (``from tooleval_nb.runner import run_eval`` and
#: ``te.run_eval`` show the same display), and the runner imports no widget code
_DISPLAYS: dict[str, Callable[[], ProgressDisplay] | str] = {
    "text": TextProgress,
    "widget": "tooleval_nb.widgets.progress:WidgetProgress",
}


def register_display(kind: str, factory: Callable[[], ProgressDisplay]) -> None:
    """Make ``run_eval(progress=kind)`` build its display with ``factory()``.

    The runner knows ``"text"`` and, by name, ``"widget"``
    (:class:`tooleval_nb.widgets.progress.WidgetProgress`).
    """
    _DISPLAYS[kind] = factory


def _factory(kind: str) -> Callable[[], ProgressDisplay] | None:
    found = _DISPLAYS.get(kind)
    if isinstance(found, str):
        try:
            found = _DISPLAYS[kind] = pkgutil.resolve_name(found)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ImportError(
                f"progress display {kind!r}: {found!r} cannot be imported ({exc}); "
                "register it again with register_display"
            ) from exc
    return found


def display_kinds() -> list[str]:
    """The registered display names (``"text"`` and whatever was registered)."""
    return sorted(_DISPLAYS)


def create_display(kind: str) -> ProgressDisplay:
    """A new display of ``kind`` (see :func:`register_display`).

    Raises:
        ValueError: nothing is registered under ``kind`` (the message lists what is).
    """
    factory = _factory(kind)
    if factory is None:
        raise ValueError(
            f"progress={kind!r} is not a registered progress display; use "
            f"'auto', 'none' or one of {', '.join(map(repr, display_kinds()))}"
        )
    return factory()
