"""A benchmark's job: the runner's :class:`~tooleval_nb.runner.Job`, whose result is the
benchmark's own run.

``te.run_bfcl`` returns a ``BfclJob`` (and ``te.run_tau2`` its own): awaited
(``run = await job``, in a notebook) or asked (``job.result()``), it gives the finished
benchmark run (:meth:`BenchmarkJob.finish`: judged, files written); ``job.snapshot()`` gives
the run as stored so far (:meth:`BenchmarkJob.view`). Everything else (``cancel``,
``progress``, ``status``, ``events``, the notebook display) is the runner's job's own.

A benchmark that judges its cases while the run goes gives a follower (:class:`Follower`): it
takes the job's ``tool_eval_result`` events (published once a case's row is committed) from
before the job starts, and the job waits for it before finishing.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Generator
from typing import Any, Generic, Protocol, Self, TypeVar

from ..runner import Job, Run
from ..runner.events import Event

__all__ = ["BenchmarkJob", "Follower", "FOLLOWED_EVENTS"]

#: the events a follower takes: one per stored case (its row committed)
FOLLOWED_EVENTS = ["tool_eval_result"]

R = TypeVar("R", bound=Run)


class Follower(Protocol):
    """Takes a job's stored cases while the run goes (BFCL's ``EntryTally``)."""

    def __call__(self, event: Event) -> None:
        """Take one event (a ``tool_eval_result``: a case stored); must not raise."""

    def wait(self) -> None:
        """Wait for the work still going (called once the run is over, before finishing)."""


class BenchmarkJob(ABC, Generic[R]):
    """A benchmark run in progress: a runner :class:`~tooleval_nb.runner.Job` whose result is
    the benchmark's run ``R``.

    Args:
        job: the runner's job, prepared (``prepare_job``) and not started yet.
        follower: judges the stored cases while the run goes (subscribed here, before the job
            starts; waited for before :meth:`finish`).
    """

    def __init__(self, job: Job, follower: Follower | None = None) -> None:
        self.job = job
        self.follower = follower
        self._run: R | None = None
        if follower is not None:
            job.subscribe(follower, FOLLOWED_EVENTS)

    @abstractmethod
    def view(self, run: Run) -> R:
        """The benchmark's view of the runner's run, as stored (nothing written)."""

    @abstractmethod
    def finish(self, run: Run) -> R:
        """The finished benchmark run (its checks made, its files written); runs once, in a
        worker thread when awaited."""

    def __getattr__(self, name: str) -> Any:
        if name == "job":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.job, name)

    def start(self) -> Self:
        """Start the job: on the running event loop (returns at once), else to its end here,
        finished then (:meth:`result` will not wait)."""
        self.job.start()
        if self.job.done() and self.job.status == "completed":
            self.result()
        return self

    def _finished(self, run: Run) -> R:
        if self._run is None:
            if self.follower is not None:
                self.follower.wait()
            self._run = self.finish(run)
        return self._run

    def __await__(self) -> Generator[Any, None, R]:
        return self._wait().__await__()

    async def _wait(self) -> R:
        run = await self.job
        if self._run is None:
            return await asyncio.to_thread(self._finished, run)
        return self._run

    def result(self, timeout: float | None = None) -> R:
        """The finished run (JobCancelled / JobError when the job did not complete; in a
        notebook, while the job runs on the kernel's loop: ``await job``)."""
        if self._run is None:
            return self._finished(self.job.result(timeout))
        return self._run

    def snapshot(self) -> R:
        """The run as stored right now (partial while running or after a cancel)."""
        return self.view(self.job.snapshot())
