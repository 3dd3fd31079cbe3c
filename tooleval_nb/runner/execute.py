"""The eval itself: targets and cases scheduled, each case run, scored and stored.

Scheduling (seed 001): provider groups run in parallel; the models of one provider run one after
another; the cases of a model run concurrently on ``max_concurrency`` workers (one for a server
that answers one request at a time, such as the embedded model's), behind the group's
optional rpm / tpm limiter. A case is one model call, or a chain or agent loop
(:mod:`.chains`), or a user's agent callable. A case's ``timeout`` bounds the whole case;
``retries`` re-runs a case whose model call or agent failed (never one that merely scored badly).
A model misconfiguration (``ModelConfigError``) fails the job at once instead of every case.

The request pipeline comes first. As soon as a worker has a case's replies, its concurrency slot
is free: it queues the case for finishing and sends its next request at once. Finishing is done
behind it: one finisher task scores queued cases and builds their rows, a few per loop iteration
and only when no other callback is ready (a burst of replies and the requests they send go
first; cases with LLM graders are scored in tasks of their own), and stores them in one
transaction once the oldest has waited :data:`COMMIT_AFTER_S` or ``max_concurrency`` are
scored (:mod:`.writer`), publishing each case's events only after its commit. So what a
subscriber has seen is on disk, and the replies of a burst share a commit: each commit rewrites
the pages it touched, and the loop waits for it. While a run goes, the objects that existed
before it are frozen out of the garbage collector's scans (:func:`_freeze_heap`), so that a
full collection does not stop the loop. A 64-wide run at 200 ms latency stays near the ideal
wall time.

What a kill can lose is bounded: the requests in flight, plus the answered cases waiting to be
scored. Those are at most ``max_concurrency`` after each finisher iteration (when more wait, it
takes the excess instead of :data:`FINISH_CHUNK`), plus the replies that land before its next
one, plus the scored cases waiting for their commit (fewer than ``max_concurrency``, for at
most :data:`COMMIT_AFTER_S`): about three times ``max_concurrency`` at worst. With the reply
cache on (temperature 0, the default) even those are answered from the cache on resume.

Where a cell runs is the plan's ``executor``. ``"local"`` (the default): the workers above, on
this loop. ``"ray"`` or a ``te.RayExecutor``: :mod:`tooleval_nb.cluster` sends each cell to a
model replica on a Ray cluster, which runs it with :class:`~.cell.CaseRunner` (the same
model calls, chains and agent loops) and streams its :class:`CaseOutcome` back; the outcome then
takes the same finisher path as a local one, so the rows, events and store are the same.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cluster import open_cluster
from ..scoring import score_case, score_case_async
from ..suite import EvalCase, Tool
from .cell import CaseRunner
from .events import Event
from .limits import RateLimiter
from .live import close_live, open_live
from .plan import Plan, Target
from .record import CaseOutcome, build_record, expected_json
from .store import summary_of
from .writer import ResultWriter

if TYPE_CHECKING:  # pragma: no cover
    from .jobs import Job

__all__ = ["Executor"]

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

#: what a worker hands to the finisher: target, case index, case, sample, seed, tools, outcome,
#: the target's done counter and its total
_Finished = tuple[Target, int, EvalCase, int, "int | None", list[Tool], CaseOutcome, list[int],
                  int]


class Executor:
    """Runs a :class:`Plan` for a job, skipping cases the store already holds. Call
    :meth:`close` once done (the job does, whatever happened)."""

    def __init__(self, plan: Plan, job: Job) -> None:
        self.plan = plan
        self.job = job
        self.store = job.store
        self.settings = plan.settings
        self.cases = plan.cases
        self.done_total = 0
        self.total = plan.n_total
        source = plan.suite.source
        self._base_dir = str(Path(source).parent) if source else None
        #: runs one cell to its outcome (here, or pickled to the replicas of a cluster)
        self.runner = CaseRunner(plan)
        #: the cells' cluster when the plan's executor is not local (:mod:`tooleval_nb.cluster`)
        self._cluster: Any = None
        self.writer = ResultWriter(self.store, job.id, job.publish)
        #: cases whose replies arrived, waiting to be scored (see the module docstring)
        self._backlog: collections.deque[_Finished] = collections.deque()
        self._wake: asyncio.Event | None = None
        self._finisher: asyncio.Task[None] | None = None
        #: scoring tasks of cases with LLM graders
        self._grading: set[asyncio.Task[None]] = set()
        #: per target sent one request at a time: its cases with LLM graders, graded after its
        #: last case (see :meth:`_target`)
        self._held: dict[str, list[_Finished]] = {}
        self._failure: BaseException | None = None
        self._live: Any = None
        self._live_owned = False
        #: per case: (tags JSON, expected JSON), computed on first use
        self._facts: dict[int, tuple[str, str]] = {}
        #: whether this run froze the heap (see :func:`_freeze_heap`)
        self._frozen = False
        #: when (loop time) the scored cases waiting in the writer are committed at the latest
        self._commit_at: float | None = None

    async def run(self) -> None:
        _freeze_heap()
        self._frozen = True
        groups: dict[str, list[Target]] = {}
        for target in self.plan.targets:
            groups.setdefault(target.provider, []).append(target)
        done = self.store.done_keys(self.job.run_id)
        self.done_total = len(done)
        self._live, self._live_owned = await open_live(
            self.plan.live_tools, self.settings.live_tools, self.settings.live_tool_timeout)
        self.runner.live, self.runner.live_owned = self._live, self._live_owned
        # None for the local executor; else connected before any cell runs (a cluster that
        # cannot be reached fails the job here, naming its address)
        self._cluster = await open_cluster(self.plan.executor, self.runner, self.job.id)
        self._wake = asyncio.Event()
        self._finisher = asyncio.get_running_loop().create_task(self._finish_loop())
        async with asyncio.TaskGroup() as tg:
            for targets in groups.values():
                tg.create_task(self._group(targets, done))

    async def close(self) -> None:
        """Stop the finisher, release the job's cluster work and close the live tools the job
        opened. Never raises."""
        if self._frozen:
            self._frozen = False
            _thaw_heap()
        if self._finisher is not None:
            self._finisher.cancel()
            with contextlib.suppress(BaseException):
                await self._finisher
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                await self._cluster.close()
        await close_live(self._live, self._live_owned)

    async def _group(self, targets: list[Target], done: set[tuple[str, str, str, int]]) -> None:
        limiter = RateLimiter(self.settings.rpm, self.settings.tpm)
        for target in targets:
            await self._target(target, done, limiter)

    async def _target(self, target: Target, done: set[tuple[str, str, str, int]],
                      limiter: RateLimiter) -> None:
        repeats = self.settings.repeats
        items = [(ci, case, s) for s in range(repeats) for ci, case in self.cases
                 if (target.label, target.mode, case.id, s) not in done]
        total = len(self.cases) * repeats
        counter = [total - len(items)]
        if items and self._cluster is not None:
            await self._on_cluster(target, items, limiter, counter, total)
        elif items:
            it = iter(items)
            tools_of = self.plan.suite.tools_for
            attempts = self.runner.attempts

            async def worker() -> None:
                for case_index, case, sample in it:
                    seed = self.settings.seed_for(sample)
                    tools = tools_of(case)
                    outcome = await attempts(target, case, tools, seed, limiter)
                    # the slot is free: queue the case for finishing, send the next request
                    self._queue_finish((target, case_index, case, sample, seed, tools, outcome,
                                        counter, total))

            # a server that answers one request at a time gets one worker: cases then run in
            # suite order, each chain's turns back to back (see ModelSpec.request_slots)
            width = min(self.settings.max_concurrency, len(items),
                        target.spec.request_slots or len(items))
            # ...and its LLM graders wait for its last case: a judge's request sent between two
            # cases (the same local server, as a rule) would take the server's cache, and the
            # next case would pay again for the suite's shared prompt prefix
            held = self._held.setdefault(target.label, []) if width == 1 else None
            try:
                async with asyncio.TaskGroup() as tg:
                    for _ in range(width):
                        tg.create_task(worker())
            finally:
                if held is not None:
                    del self._held[target.label]
            for item in held or ():
                self._start_graded(item)
            await self.drain(None)
        summary = self._summary(target, items, total)
        self.job.emit("tool_eval_summary", {"run_id": self.job.run_id, "model": target.label,
                                            "mode": target.mode, **summary})

    def _summary(self, target: Target, items: list[tuple[int, EvalCase, int]],
                 total: int) -> dict[str, Any]:
        """A finished target's summary: from the rows this job wrote when it wrote all of them
        (nothing stored before it, no row found stored already), else read from the store."""
        if len(items) == total and not self.writer.duplicates:
            return summary_of(self.writer.summary_rows.get(target.label, []))
        return self.store.summary(self.job.run_id, target.label)

    async def _on_cluster(self, target: Target, items: list[tuple[int, EvalCase, int]],
                          limiter: RateLimiter, counter: list[int], total: int) -> None:
        """Run a target's missing cells on the cluster; each outcome streams back into the
        same finisher as a local one (a cell is done once stored: a replica that dies takes
        nothing with it but its cells in flight, which run again elsewhere)."""
        cases = {case_index: case for case_index, case, _ in items}
        tools_of = self.plan.suite.tools_for

        def finished(cell: tuple[int, int], outcome: CaseOutcome) -> None:
            case_index, sample = cell
            case = cases[case_index]
            self._queue_finish((target, case_index, case, sample, self.settings.seed_for(sample),
                                tools_of(case), outcome, counter, total))

        await self._cluster.run_cells(target, [(ci, s) for ci, _, s in items], limiter,
                                      self.settings.max_concurrency, finished)
        await self.drain(None)

    # -- finishing: scoring and storing behind the request pipeline ---------------------------
    def _queue_finish(self, item: _Finished) -> None:
        if self._failure is not None:
            raise self._failure
        if item[2].graders:  # LLM graders are awaited: a task of its own
            held = self._held.get(item[0].label)
            if held is not None:
                held.append(item)
            else:
                self._start_graded(item)
            return
        self._backlog.append(item)
        assert self._wake is not None
        self._wake.set()

    def _start_graded(self, item: _Finished) -> None:
        task = asyncio.get_running_loop().create_task(self._finish_graded(item))
        self._grading.add(task)
        task.add_done_callback(self._graded)

    async def _finish_loop(self) -> None:
        """Score and store queued cases a few per loop iteration (:data:`FINISH_CHUNK`), in
        the loop's idle time: while other callbacks are ready (a burst of replies, each sending
        its case's next request; so never with one request in flight, where cases finish one
        by one) it steps aside for up to :data:`STEP_ASIDE_S`, so that scoring does not delay
        the next requests; the excess over ``max_concurrency`` is finished at once when the
        backlog grows past it. The scored cases are committed together once the oldest has
        waited :data:`COMMIT_AFTER_S` or once there are ``max_concurrency`` of them
        (:meth:`_commit_due`). Sleeps while nothing is queued, until the next commit is due."""
        assert self._wake is not None
        bound = self.settings.max_concurrency
        loop = asyncio.get_running_loop()
        aside_since: float | None = None
        while True:
            if not self._backlog:
                if self._commit_due(loop, bound):
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
            if excess <= 0 and bound > 1 and _others_ready(loop):
                now = loop.time()
                if aside_since is None:
                    aside_since = now
                if now - aside_since < STEP_ASIDE_S:
                    await asyncio.sleep(0)
                    continue
            aside_since = None
            try:
                self._finish_backlog(min(waiting, max(FINISH_CHUNK, excess)), commit=False)
                if self._commit_due(loop, bound):
                    self.writer.commit()
            except Exception as exc:
                if self._failure is None:
                    self._failure = exc
                self._backlog.clear()
                with contextlib.suppress(Exception):  # keep the rows built before the failure
                    self.writer.commit()
            await asyncio.sleep(0)

    def _commit_due(self, loop: asyncio.AbstractEventLoop, bound: int) -> bool:
        """Whether the scored cases waiting in the writer are committed now: ``bound`` of them,
        or the oldest waited :data:`COMMIT_AFTER_S` (a serial run, one case at a time, commits
        each case as soon as the next one is due: the model takes longer than that)."""
        if not self.writer.pending:
            return False
        if self._commit_at is None:
            self._commit_at = loop.time() + COMMIT_AFTER_S
        if self.writer.pending >= bound or loop.time() >= self._commit_at:
            self._commit_at = None
            return True
        return False

    def _finish_backlog(self, count: int | None = None, *, commit: bool = True) -> None:
        """Score ``count`` queued cases (default all); store them, and whatever else waits in
        the writer, in one transaction (unless ``commit`` is false: see :meth:`_finish_loop`)."""
        count = len(self._backlog) if count is None else count
        for left in range(count - 1, -1, -1):
            item = self._backlog.popleft()
            self._store(item, *self._score_now(item), last=not left)
        if commit:
            self._commit_at = None
            self.writer.commit()

    def _score_now(self, item: _Finished) -> tuple[Any, str | None]:
        _, _, case, _, _, tools, outcome, _, _ = item
        try:
            score = score_case(case, outcome.tool_calls, outcome.content, tools=tools,
                               trace=outcome.trace, error=outcome.error,
                               error_type=outcome.error_type, base_dir=self._base_dir)
        except Exception as exc:  # a scoring configuration that cannot be applied
            return _unscored(outcome, exc)
        return score, "api_error"

    async def _finish_graded(self, item: _Finished) -> None:
        _, _, case, _, _, tools, outcome, _, _ = item
        failure_mode: str | None = "api_error"
        score: Any
        try:
            score = await score_case_async(case, outcome.tool_calls, outcome.content, tools=tools,
                                           trace=outcome.trace, error=outcome.error,
                                           error_type=outcome.error_type,
                                           base_dir=self._base_dir)
        except Exception as exc:
            score, failure_mode = _unscored(outcome, exc)
        self._store(item, score, failure_mode, last=True)
        self.writer.commit()

    def _graded(self, task: asyncio.Task[None]) -> None:
        self._grading.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()

    def _store(self, item: _Finished, score: Any, failure_mode: str | None, *,
               last: bool) -> None:
        """Build a scored case's row and events and queue them for the next commit (``last``:
        the last case of its commit, which also carries the batch's ``job_progress``)."""
        target, case_index, case, sample, seed, _, outcome, counter, total = item
        tags, expected = self._case_facts(case)
        record = build_record(run_id=self.job.run_id, label=target.label, mode=target.mode,
                              model_index=target.index, case=case, case_index=case_index,
                              sample=sample, seed=seed, outcome=outcome, score=score,
                              tags=tags, expected=expected, failure_mode=failure_mode)
        counter[0] += 1
        self.done_total += 1

        def duplicate() -> None:  # stored already (by a concurrent resume): not counted
            counter[0] -= 1
            self.done_total -= 1

        self.writer.add(record, self._case_events(target, record, counter[0], total, last),
                        duplicate)

    def _case_events(self, target: Target, record: dict[str, Any], current: int, total: int,
                     last: bool) -> list[Event]:
        """A finished case's events (published once it is stored): ``tool_eval_progress`` and
        ``tool_eval_result``, and for the last case of a commit the ``job_progress`` of the
        whole batch (one per case when cases finish one at a time)."""
        job_id, run_id, now = self.job.id, self.job.run_id, time.time()
        events = [
            Event("tool_eval_progress", job_id, {
                "run_id": run_id, "model": target.label, "case_id": record["case_id"],
                "sample": record["sample"], "current": current, "total": total}, now),
            Event("tool_eval_result", job_id, {
                "run_id": run_id, "model": target.label, "mode": target.mode,
                "case_id": record["case_id"], "sample": record["sample"],
                "tool_score": record["tool_score"], "param_score": record["param_score"],
                "overall": record["overall"], "passed": bool(record["passed"]),
                "failure_mode": record["failure_mode"], "error": record["error"],
                "latency_ms": record["latency_ms"]}, now),
        ]
        if last:
            percent = round(100.0 * self.done_total / self.total, 2) if self.total else 100.0
            events.append(Event("job_progress", job_id, {
                "percent": percent, "done": self.done_total, "total": self.total,
                "detail": f"{target.label}: {current}/{total}"}, now))
        return events

    def _case_facts(self, case: EvalCase) -> tuple[str, str]:
        """A case's tags and expectations as stored (JSON text), computed once per run."""
        facts = self._facts.get(id(case))  # the plan's case objects live as long as the run
        if facts is None:
            facts = self._facts[id(case)] = (json.dumps(case.tags, ensure_ascii=False),
                                             expected_json(case))
        return facts

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


#: runs between their start and close (the heap is frozen while there is one); jobs may run
#: on loops in several threads, hence the lock
_running = 0
_running_lock = threading.Lock()


def _freeze_heap() -> None:
    """While a run goes, the objects that existed when the first one started (the kernel's
    imports, pandas, pydantic, the suite) are left out of the garbage collector's scans
    (``gc.freeze``). Otherwise a full collection, triggered by the rows and events the run
    allocates, walks all of them and stops the loop for tens of milliseconds (about 70 ms with
    this package's imports), delaying every reply waiting to be read. Nothing is lost: the
    last run to close unfreezes them (:func:`_thaw_heap`), and garbage among them is then
    collected as usual."""
    global _running
    with _running_lock:
        if _running == 0:
            gc.freeze()
        _running += 1


def _thaw_heap() -> None:
    global _running
    with _running_lock:
        _running = max(0, _running - 1)
        if _running == 0:
            gc.unfreeze()


def _others_ready(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether callbacks besides the running one wait in this iteration of ``loop`` (replies
    read, tasks woken). asyncio's own loops keep them in ``_ready``; a loop without it (uvloop)
    reports none, and the finisher then takes its chunk at once, as before."""
    ready = getattr(loop, "_ready", None)
    return bool(ready)


def _unscored(outcome: CaseOutcome, exc: Exception) -> tuple[None, None]:
    outcome.error = f"scoring failed: {exc}"
    outcome.error_type = type(exc).__name__
    return None, None
