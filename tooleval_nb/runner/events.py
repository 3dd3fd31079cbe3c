"""Run events: the seed's event names and a small publish/subscribe bus.

The web app pushed these over a WebSocket; here they go to Python callbacks. A job publishes::

    job_created -> tool_eval_init -> (tool_eval_progress, tool_eval_result) per case,
                   job_progress per stored batch (after its last case; one per case when cases
                   finish one at a time) -> tool_eval_summary per model -> tool_eval_complete
                -> job_completed | job_failed | job_cancelled

Callbacks receive one :class:`Event`. A callback may be a plain function or a coroutine function
(scheduled as a task on the running loop). A callback that raises is logged and never stops the run.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, get_args

__all__ = [
    "EventType",
    "EVENT_TYPES",
    "Event",
    "EventBus",
    "Callback",
    "as_callbacks",
    "BUS",
    "subscribe",
    "CaseProgressData",
    "CaseResultData",
    "JobProgressData",
]

log = logging.getLogger("tooleval_nb.runner")

#: The event names of seed 001 ("WebSocket Event Flow").
EventType = Literal[
    "job_created",
    "tool_eval_init",
    "tool_eval_progress",
    "tool_eval_result",
    "tool_eval_summary",
    "tool_eval_complete",
    "job_progress",
    "job_completed",
    "job_failed",
    "job_cancelled",
]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)


class CaseProgressData(TypedDict):
    """``tool_eval_progress``: a case stored; ``current`` of ``total`` for its model."""

    run_id: str
    model: str
    case_id: str
    sample: int
    current: int
    total: int


class CaseResultData(TypedDict):
    """``tool_eval_result``: a stored case's scores (the columns of its result row)."""

    run_id: str
    model: str
    mode: str
    case_id: str
    sample: int
    tool_score: float | None
    param_score: float | None
    overall: float | None
    passed: bool
    failure_mode: str | None
    error: str | None
    latency_ms: float | None


class JobProgressData(TypedDict):
    """``job_progress``: the job's cases done, after a stored batch."""

    percent: float
    done: int
    total: int
    detail: str


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a job.

    Attributes:
        type: one of :data:`EVENT_TYPES`.
        job_id: the job that published it.
        data: the payload (JSON-serialisable; the per-case payloads' keys are typed:
            :class:`CaseProgressData`, :class:`CaseResultData`, :class:`JobProgressData`).
        ts: Unix time of publication.
    """

    type: EventType
    job_id: str
    data: Mapping[str, Any] = field(default_factory=dict)
    ts: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "job_id": self.job_id, "ts": self.ts, **self.data}


Callback = Callable[[Event], Any]


class EventBus:
    """Subscribers keyed by event type (``None`` = every type).

    >>> bus = EventBus()
    >>> seen = []
    >>> unsubscribe = bus.subscribe(seen.append, types=["job_completed"])
    >>> bus.publish(Event("job_completed", "job_1"))
    >>> [e.type for e in seen]
    ['job_completed']
    """

    def __init__(self) -> None:
        self._subs: list[tuple[Callback, frozenset[str] | None]] = []

    def subscribe(
        self, callback: Callback, types: Iterable[str] | None = None
    ) -> Callable[[], None]:
        """Call ``callback(event)`` for each event (of ``types`` only, when given).

        Returns a function that removes the subscription.
        """
        wanted = frozenset(types) if types is not None else None
        if wanted:
            unknown = wanted - set(EVENT_TYPES)
            if unknown:
                raise ValueError(
                    f"unknown event type(s) {sorted(unknown)}; known: {', '.join(EVENT_TYPES)}"
                )
        entry = (callback, wanted)
        self._subs.append(entry)

        def unsubscribe() -> None:
            if entry in self._subs:
                self._subs.remove(entry)

        return unsubscribe

    def __len__(self) -> int:
        return len(self._subs)

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every matching subscriber, in subscription order."""
        for callback, wanted in tuple(self._subs):
            if wanted is not None and event.type not in wanted:
                continue
            deliver(callback, event)


def deliver(callback: Callback, event: Event) -> None:
    """Call one subscriber; a coroutine result is scheduled; an exception is logged, not raised."""
    try:
        result = callback(event)
        if inspect.isawaitable(result):
            import asyncio

            task = asyncio.ensure_future(result)
            _PENDING.add(task)
            task.add_done_callback(_finish_callback_task)
    except Exception:  # a user's callback must never break a run
        log.exception("event callback %r failed on %s", callback, event.type)


_PENDING: set[Any] = set()


def _finish_callback_task(task: Any) -> None:
    _PENDING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("async event callback failed", exc_info=task.exception())


def as_callbacks(
    callbacks: Callback | Iterable[Callback] | Mapping[str, Callback] | None,
) -> list[tuple[Callback, list[str] | None]]:
    """Normalise ``run_eval(callbacks=...)``: one callable, a list of them, or ``{type: callable}``."""
    if callbacks is None:
        return []
    if callable(callbacks):
        return [(callbacks, None)]
    if isinstance(callbacks, Mapping):
        out: list[tuple[Callback, list[str] | None]] = []
        for key, cb in callbacks.items():
            if key not in EVENT_TYPES and key != "*":
                raise ValueError(
                    f"callbacks: unknown event type {key!r}; "
                    f"known: {', '.join(EVENT_TYPES)} (or '*' for all)"
                )
            out.append((cb, None if key == "*" else [key]))
        return out
    items = list(callbacks)
    for cb in items:
        if not callable(cb):
            raise TypeError(f"callbacks: {cb!r} is not callable")
    return [(cb, None) for cb in items]


#: The process-wide bus: subscribe here to hear every job's events.
BUS = EventBus()


def subscribe(callback, types=None):  # type: ignore[no-untyped-def]
    """Hear every job's events in this process: ``callback(event)``; returns an unsubscribe
    function. ``types`` limits it to some event names (:data:`EVENT_TYPES`)."""
    return BUS.subscribe(callback, types)
