"""Jobs: a run going on in the background, with events, progress, cancellation and queueing.

In a notebook (a loop runs in this thread) a job is an asyncio task on the kernel's loop:
``run_eval`` returns at once and ``await job`` gives the :class:`~.run.Run`. Elsewhere the job runs
to the end before ``run_eval`` returns (with a terminal progress bar). A store admits
``Store.max_jobs`` running jobs at once, across processes; further jobs wait in the ``queued``
state and start when a slot frees.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import Any, Literal

from ..aio import run_sync, running_loop, spawn
from ..display import mimebundle
from ..errors import JobCancelled, JobError, StoreError
from .context import JobContext
from .events import BUS, Callback, Event, EventBus
from .execute import Executor
from .plan import Plan
from .progress import ProgressState, render_html, render_text
from .run import Run
from .slots import owner_id
from .store import Store

__all__ = ["Job", "JobStatus"]

JobStatus = Literal["queued", "running", "completed", "failed", "cancelled", "interrupted"]

#: how often a queued job re-checks the store for a slot freed by another process
QUEUE_POLL = 0.5


class Job:
    """A run in progress (or done). Await it, or call :meth:`result`, for the :class:`Run`.

    Attributes:
        id, run_id: the job and its run.
        status: queued | running | completed | failed | cancelled.
        events: every event this job published in this process, in order.
        progress: per-model counters (:class:`~.progress.ProgressState`).
        error: the exception that failed the job, if any.
    """

    def __init__(
        self,
        plan: Plan,
        store: Store,
        *,
        job_id: str,
        run_id: str,
        callbacks: Sequence[tuple[Callback, list[str] | None]] = (),
    ) -> None:
        self.plan = plan
        self.store = store
        self.id = job_id
        self.run_id = run_id
        self.status: JobStatus = "queued"
        self.events: list[Event] = []
        self.bus = EventBus()
        self.progress = ProgressState()
        self.bus.subscribe(self.progress.update)
        for callback, types in callbacks:
            self.bus.subscribe(callback, types)
        self.error: BaseException | None = None
        self._run: Run | None = None
        self._task: asyncio.Task[Run] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread_id: int | None = None
        self._started = False
        self._done = threading.Event()

    def __repr__(self) -> str:
        return (
            f"Job(id={self.id!r}, run_id={self.run_id!r}, status={self.status!r}, "
            f"done={self.progress.done}/{self.plan.n_total})"
        )

    # -- events ------------------------------------------------------------------------------
    def subscribe(self, callback: Callback, types: list[str] | None = None) -> Any:
        """Call ``callback(event)`` for this job's events; returns an unsubscribe function."""
        return self.bus.subscribe(callback, types)

    def publish(self, event: Event) -> None:
        """Deliver an event (already stored) to this job's subscribers and the global bus."""
        self.events.append(event)
        self.bus.publish(event)
        BUS.publish(event)

    def emit(self, type_: Any, data: dict[str, Any]) -> Event:
        """Store an event in its own transaction, then publish it."""
        event = Event(type_, self.id, data)
        self.store.add_events(self.id, [(event.type, event.ts, event.data)])
        self.publish(event)
        return event

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Job:
        """Run on the current loop as a task (returns at once), or to completion when no loop
        runs in this thread."""
        loop = running_loop()
        if loop is not None:
            self._loop, self._thread_id = loop, threading.get_ident()
            self._task = spawn(self._main(), name=f"tooleval-{self.id}")
            self._task.add_done_callback(_retrieve)
            return self
        run_sync(self._main)  # the loop is ours; its HTTP session is closed before it ends
        return self

    async def _main(self) -> Run:
        self._started = True
        self._loop = asyncio.get_running_loop()
        self._thread_id = threading.get_ident()
        executor = None
        try:
            await self._acquire_slot()
        except StoreError as exc:  # it runs in another live process: leave its state alone
            self.status, self.error = "failed", exc
            self._done.set()
            raise JobError(str(exc)) from exc
        except asyncio.CancelledError:  # cancelled while queued: it never held a slot
            self._finish(
                "cancelled",
                "job_cancelled",
                {"run_id": self.run_id, "done": self.store.count_results(self.run_id)},
            )
            self._done.set()
            raise
        try:
            self.status = "running"
            targets = []
            for t in self.plan.targets:
                s = self.store.summary(self.run_id, t.label)
                targets.append(
                    {
                        "model": t.label,
                        "mode": t.mode,
                        "api_base": t.api_base,
                        "total": len(self.plan.cases) * self.plan.settings.repeats,
                        "done": s.n_cases,
                        "passed": s.n_passed,
                        "errors": s.n_errored,
                        "overall": s.overall,
                    }
                )
            self.emit(
                "tool_eval_init",
                {
                    "run_id": self.run_id,
                    "suite": self.plan.suite.name,
                    "targets": targets,
                    "total_cases": len(self.plan.cases),
                    "repeats": self.plan.settings.repeats,
                    "total": self.plan.n_total,
                    "done": sum(t["done"] for t in targets),
                    "drafts_skipped": self.plan.n_drafts_skipped,
                },
            )
            executor = Executor(
                self.plan, JobContext(self.store, self.id, self.run_id, self.publish, self.emit)
            )
            await executor.run()
            self.emit(
                "tool_eval_complete", {"run_id": self.run_id, "eval_id": self.run_id, "delta": None}
            )
            self._finish("completed", "job_completed", {"run_id": self.run_id})
            self._run = Run.load(self.store, self.run_id, lazy=True)  # its rows are final
            return self._run
        except asyncio.CancelledError:
            if executor is not None:  # keep the cases whose replies already arrived
                with contextlib.suppress(Exception):
                    await executor.drain()
            self._finish(
                "cancelled",
                "job_cancelled",
                {"run_id": self.run_id, "done": self.store.count_results(self.run_id)},
            )
            raise
        except Exception as exc:
            if executor is not None:  # keep the cases whose replies already arrived
                with contextlib.suppress(Exception):
                    await executor.drain()
            cause = _first_cause(exc)
            message = f"{type(cause).__name__}: {cause}"
            self.error = cause
            self._finish("failed", "job_failed", {"run_id": self.run_id, "error": message})
            raise JobError(
                f"job {self.id} (run {self.run_id}) failed: {message}; the cases "
                f"finished before are kept, te.resume({self.id!r}) finishes the "
                "rest"
            ) from cause
        finally:
            if executor is not None:  # the finisher, the live tools the job opened
                await executor.close()
            self._done.set()
            _wake_queued()

    def _finish(self, status: JobStatus, event_type: Any, data: dict[str, Any]) -> None:
        self.status = status
        event = Event(event_type, self.id, data)
        self.store.finish_job(
            self.id, status, data.get("error"), [(event.type, event.ts, event.data)]
        )
        self.publish(event)

    async def _acquire_slot(self) -> None:
        owner = owner_id()
        announced = False
        while not self.store.claim_job(self.id, owner):
            if not announced:
                announced = True
                self.emit(
                    "job_progress",
                    {
                        "percent": 0.0,
                        "done": 0,
                        "total": self.plan.n_total,
                        "detail": f"queued: {self.store.max_jobs} job(s) "
                        f"already running on {self.store.path}",
                    },
                )
            await _wait_for_slot(QUEUE_POLL)

    # -- results -----------------------------------------------------------------------------
    def done(self) -> bool:
        return self._done.is_set()

    def cancel(self) -> bool:
        """Stop the job promptly; finished cases stay in the store. False when already done."""
        if self.done() or self._task is None:
            return False
        if not self._started:  # cancelled before its first step: its body never runs
            self._task.cancel()
            self._finish("cancelled", "job_cancelled", {"run_id": self.run_id, "done": 0})
            self._done.set()
            return True
        if threading.get_ident() == self._thread_id or self._loop is None:
            self._task.cancel()
        else:
            self._loop.call_soon_threadsafe(self._task.cancel)
        return True

    def _outcome(self) -> Run:
        if self.status == "cancelled":
            exc = JobCancelled(
                f"job {self.id} was cancelled; {len(self.snapshot())} finished "
                f"case(s) are kept (job.snapshot() or te.load_run("
                f"{self.run_id!r})); te.resume({self.id!r}) finishes the rest"
            )
            exc.run = self.snapshot()  # type: ignore[attr-defined]
            raise exc
        if self.status == "failed":
            raise JobError(
                f"job {self.id} failed: {self.error}; te.resume({self.id!r}) "
                "finishes the missing cases"
            ) from self.error
        if self._run is None:
            self._run = Run.load(self.store, self.run_id)
        return self._run

    def __await__(self) -> Any:
        return self._wait().__await__()

    async def _wait(self) -> Run:
        if self._task is not None and not self.done():
            try:
                await asyncio.shield(self._task)
            except asyncio.CancelledError:
                if not self._task.cancelled():
                    raise  # the awaiting task itself was cancelled, not the job
            except JobError:
                pass
        return self._outcome()

    def result(self, timeout: float | None = None) -> Run:
        """The finished run. Raises JobCancelled / JobError when the job did not complete.

        In a notebook, while the job still runs on this very loop, this cannot block (the
        loop would stop): ``await job`` instead.
        """
        if not self.done():
            if threading.get_ident() == self._thread_id:
                raise JobError(
                    f"job {self.id} is still running on this event loop; use "
                    "`run = await job` in a notebook cell (blocking here would "
                    "freeze the kernel)"
                )
            if not self._done.wait(timeout):
                raise TimeoutError(f"job {self.id} did not finish within {timeout} s")
        return self._outcome()

    def snapshot(self) -> Run:
        """The run as stored right now (partial while running or after a cancel)."""
        return Run.load(self.store, self.run_id)

    # -- display -----------------------------------------------------------------------------
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        text = "\n".join([repr(self), *render_text(self.progress)])
        return mimebundle(text, lambda: f"<b>Job {self.id}</b>{render_html(self.progress)}")


def _retrieve(task: asyncio.Task[Any]) -> None:
    # the failure is on the job (status, error, events); do not also log "never retrieved"
    if not task.cancelled():
        task.exception()


def _first_cause(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


_QUEUED: set[asyncio.Future[None]] = set()
_QUEUED_LOCK = threading.Lock()


async def _wait_for_slot(timeout: float) -> None:
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    with _QUEUED_LOCK:
        _QUEUED.add(fut)
    try:
        await asyncio.wait([fut], timeout=timeout)
    finally:
        with _QUEUED_LOCK:
            _QUEUED.discard(fut)


def _wake_queued() -> None:
    with _QUEUED_LOCK:
        waiting = list(_QUEUED)
    for fut in waiting:
        loop = fut.get_loop()
        if not loop.is_closed():
            loop.call_soon_threadsafe(_resolve, fut)


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)
