"""Finishing behind the request pipeline: scoring the cells whose replies arrived, and the
timing of their commits (backpressure).

A worker whose case's replies are in hands a :class:`~.finished.FinishedCell` to
:meth:`Finisher.queue` and sends its next request at once. One finisher task scores queued
cells a few per loop iteration (:data:`FINISH_CHUNK`), only when no other callback is ready (a
burst of replies and the requests they send go first; cells with LLM graders are scored in
tasks of their own), builds their rows and events (:mod:`.rows`) and stores them in one
transaction once the oldest has waited :data:`COMMIT_AFTER_S` or ``max_concurrency`` are
scored (:mod:`.writer`), publishing each case's events only after its commit.

The scorer (:mod:`tooleval_nb.scoring.case`, BFCL's checker with it) is not imported with the
runner: the finisher imports it at its first case, in the loop's idle time while the other
requests are in flight, so that a fresh process's first run (the CLI, a papermill report, a new
kernel) does not pay for it before its first requests are sent.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .finished import FinishedCell
from .record import CaseOutcome
from .rows import CaseRows
from .writer import ResultWriter

if TYPE_CHECKING:  # pragma: no cover
    from ..scoring.result import CaseScore

__all__ = ["COMMIT_AFTER_S", "FINISH_CHUNK", "STEP_ASIDE_S", "Finisher"]

#: cases scored (and stored in one transaction) per loop iteration by the finisher: small, so
#: that replies waiting go first; more when the backlog passes ``max_concurrency``
FINISH_CHUNK = 4

#: how long (seconds) the finisher steps aside at most while other callbacks are ready: long
#: enough for a burst of replies to send their next requests, short enough that finished cases
#: reach the store promptly (a kill loses little) and that another job's finisher stepping
#: aside too cannot starve both
STEP_ASIDE_S = 0.01

#: how long (seconds) a scored case waits at most for its commit, so that the cases scored in
#: a burst share one transaction (each commit rewrites the pages it touched: the fewer, the
#: less the loop waits for SQLite); a kill loses at most that much more
COMMIT_AFTER_S = 0.05


class Finisher:
    """Scores, stores and publishes one job's finished cells (see the module docstring).

    Args:
        writer: batches the rows and events into commits.
        rows: builds each scored cell's row and events.
        bound: the job's ``max_concurrency`` (a commit at most; the backlog let wait).
        base_dir: the suite file's folder (scoring resolves relative paths against it).
        code_graders: whether the suite's code graders run (False: graded as refused).
    """

    def __init__(
        self,
        writer: ResultWriter,
        rows: CaseRows,
        bound: int,
        base_dir: str | None,
        code_graders: bool = True,
    ) -> None:
        self.writer = writer
        self.rows = rows
        self.bound = bound
        self.base_dir = base_dir
        self.code_graders = code_graders
        #: cells whose replies arrived, waiting to be scored
        self._backlog: collections.deque[FinishedCell] = collections.deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: scoring tasks of cells with LLM graders
        self._grading: set[asyncio.Task[None]] = set()
        #: per target sent one request at a time: its cells with LLM graders, graded after
        #: its last case (see :meth:`hold`)
        self._held: dict[str, list[FinishedCell]] = {}
        self._failure: BaseException | None = None
        #: when (loop time) the scored cases waiting in the writer are committed at the latest
        self._commit_at: float | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    # -- handing cells over -------------------------------------------------------------------
    def queue(self, cell: FinishedCell) -> None:
        """Queue a cell for finishing (raises the finisher's failure, if any, to stop the
        worker)."""
        if self._failure is not None:
            raise self._failure
        if cell.case.graders:  # LLM graders are awaited: a task of its own
            held = self._held.get(cell.target.label)
            if held is not None:
                held.append(cell)
            else:
                self._start_graded(cell)
            return
        self._backlog.append(cell)
        self._wake.set()

    def hold(self, label: str) -> None:
        """Hold the cells with LLM graders of target ``label`` until :meth:`release`: a judge's
        request sent between two cases of a server that answers one request at a time (the
        same local server, as a rule) would take the server's cache, and the next case would
        pay again for the suite's shared prompt prefix."""
        self._held.setdefault(label, [])

    def release(self, label: str, *, grade: bool = True) -> None:
        """Grade the cells held for ``label`` (dropped when ``grade`` is false: the target
        failed, and a resume runs them again)."""
        held = self._held.pop(label, [])
        for cell in held if grade else ():
            self._start_graded(cell)

    def _start_graded(self, cell: FinishedCell) -> None:
        task = asyncio.get_running_loop().create_task(self._finish_graded(cell))
        self._grading.add(task)
        task.add_done_callback(self._graded)

    # -- the finisher task --------------------------------------------------------------------
    async def _loop(self) -> None:
        """Score and store queued cases a few per loop iteration (:data:`FINISH_CHUNK`), in
        the loop's idle time: while other callbacks are ready (a burst of replies, each sending
        its case's next request; so never with one request in flight, where cases finish one
        by one) it steps aside for up to :data:`STEP_ASIDE_S`, so that scoring does not delay
        the next requests; the excess over ``bound`` is finished at once when the backlog grows
        past it. The scored cases are committed together once the oldest has waited
        :data:`COMMIT_AFTER_S` or once there are ``bound`` of them (:meth:`_commit_due`).
        Sleeps while nothing is queued, until the next commit is due."""
        bound = self.bound
        loop = asyncio.get_running_loop()
        aside_since: float | None = None
        while True:
            if not self._backlog:
                if self._commit_due(loop):
                    self.writer.commit()
                    continue
                self._wake.clear()
                timer = None
                if self.writer.pending:  # _commit_due has just set when they are due
                    assert self._commit_at is not None
                    timer = loop.call_at(self._commit_at, self._wake.set)
                try:
                    await self._wake.wait()
                finally:
                    if timer is not None:
                        timer.cancel()
                continue
            waiting = len(self._backlog)
            excess = waiting - bound
            if excess <= 0 and bound > 1 and others_ready(loop):
                now = loop.time()
                if aside_since is None:
                    aside_since = now
                if now - aside_since < STEP_ASIDE_S:
                    await asyncio.sleep(0)
                    continue
            aside_since = None
            try:
                self._finish_backlog(min(waiting, max(FINISH_CHUNK, excess)), commit=False)
                if self._commit_due(loop):
                    self.writer.commit()
            except Exception as exc:
                if self._failure is None:
                    self._failure = exc
                self._backlog.clear()
                with contextlib.suppress(Exception):  # keep the rows built before the failure
                    self.writer.commit()
            await asyncio.sleep(0)

    def _commit_due(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether the scored cases waiting in the writer are committed now: ``bound`` of them,
        or the oldest waited :data:`COMMIT_AFTER_S` (a serial run, one case at a time, commits
        each case as soon as the next one is due: the model takes longer than that)."""
        if not self.writer.pending:
            return False
        if self._commit_at is None:
            self._commit_at = loop.time() + COMMIT_AFTER_S
        if self.writer.pending >= self.bound or loop.time() >= self._commit_at:
            self._commit_at = None
            return True
        return False

    def _finish_backlog(self, count: int | None = None, *, commit: bool = True) -> None:
        """Score ``count`` queued cases (default all); store them, and whatever else waits in
        the writer, in one transaction (unless ``commit`` is false: see :meth:`_loop`)."""
        count = len(self._backlog) if count is None else count
        for left in range(count - 1, -1, -1):
            cell = self._backlog.popleft()
            self._add(cell, self._score_now(cell), last=not left)
        if commit:
            self._commit_at = None
            self.writer.commit()

    # -- scoring ------------------------------------------------------------------------------
    def _score_now(self, cell: FinishedCell) -> CaseScore | None:
        from ..scoring.case import score_case  # at the first case (see the module docstring)

        try:
            score = score_case(cell.case, *self._answer(cell), **self._scoring(cell))
            return with_verdict(score, cell.outcome)
        except Exception as exc:  # a scoring configuration that cannot be applied
            _unscored(cell.outcome, exc)
            return None

    async def _finish_graded(self, cell: FinishedCell) -> None:
        from ..scoring.case import score_case_async  # see the module docstring

        score: CaseScore | None
        try:
            score = await score_case_async(cell.case, *self._answer(cell), **self._scoring(cell))
            score = with_verdict(score, cell.outcome)
        except Exception as exc:
            _unscored(cell.outcome, exc)
            score = None
        self._add(cell, score, last=True)
        self.writer.commit()

    @staticmethod
    def _answer(cell: FinishedCell) -> tuple[Any, Any]:
        """The cell's calls and text, as ``score_case`` takes them."""
        return cell.outcome.tool_calls, cell.outcome.content

    def _scoring(self, cell: FinishedCell) -> dict[str, Any]:
        """``score_case``'s keyword arguments for ``cell`` (the sync and the async one take the
        same)."""
        outcome = cell.outcome
        return {
            "tools": cell.tools,
            "trace": outcome.trace,
            "error": outcome.error,
            "error_type": outcome.error_type,
            "base_dir": self.base_dir,
            "code_graders": self.code_graders,
        }

    def _graded(self, task: asyncio.Task[None]) -> None:
        self._grading.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()

    def _add(self, cell: FinishedCell, score: CaseScore | None, *, last: bool) -> None:
        record, events = self.rows.build(cell, score, last=last)
        self.writer.add(record, events, lambda: self.rows.uncount(cell))

    async def drain(self, timeout: float | None = 5.0) -> None:
        """Score, store and publish the cases whose replies arrived (on cancel: cases with LLM
        graders get at most ``timeout`` seconds, then are dropped and re-run by a resume)."""
        if self._failure is None:
            self._finish_backlog()  # what is queued, and the rows waiting for their commit
        pending = list(self._grading)
        if pending:
            _, late = await asyncio.wait(pending, timeout=timeout)
            for task in late:
                task.cancel()
        if self._failure is not None:
            raise self._failure


def base_dir_of(source: str | None) -> str | None:
    """The folder of a suite's file (None for a suite built in code)."""
    return str(Path(source).parent) if source else None


def others_ready(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether callbacks besides the running one wait in this iteration of ``loop`` (replies
    read, tasks woken). asyncio's own loops keep them in ``_ready``; a loop without it (uvloop)
    reports none, and the finisher then takes its chunk at once, as before."""
    ready = getattr(loop, "_ready", None)
    return bool(ready)


def with_verdict(score: CaseScore, outcome: CaseOutcome) -> CaseScore:
    """``score`` with the verdict of the case's hook (``outcome.verdict``: a benchmark's own
    checker, such as τ²'s evaluator) as its ``overall``, ``tool_score`` and ``passed``; a case
    that errored keeps its error's score."""
    if outcome.verdict is None or outcome.error is not None:
        return score
    overall, passed = outcome.verdict
    return score.model_copy(update={"overall": overall, "tool_score": overall, "passed": passed})


def _unscored(outcome: CaseOutcome, exc: Exception) -> None:
    """A cell whose scoring raised: it has no score; its outcome's error says why."""
    outcome.error = f"scoring failed: {exc}"
    outcome.error_type = type(exc).__name__
