"""What the executor needs of the job it runs for: the store, the ids, and the two ways to send
an event. A small typed value, so that the executor does not reach back into its
:class:`~.jobs.Job` (and ``jobs`` and ``execute`` do not import each other)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .events import Event
from .store import Store

__all__ = ["JobContext"]


@dataclass(frozen=True, slots=True)
class JobContext:
    """The job as its executor sees it.

    Attributes:
        store: the run store the cases are written to.
        job_id, run_id: the job and its run.
        publish: delivers an event already stored (after its commit).
        emit: stores an event in its own transaction, then publishes it.
    """

    store: Store
    job_id: str
    run_id: str
    publish: Callable[[Event], None]
    emit: Callable[[Any, dict[str, Any]], Event]
