"""The eval itself: targets and cases scheduled, each case run, scored and stored.

Scheduling (seed 001): provider groups run in parallel; the models of one provider run one after
another; the cases of a model run concurrently on ``max_concurrency`` workers (one for a server
that answers one request at a time, such as the embedded model's), behind the group's
optional rpm / tpm limiter. A case is one model call, or a chain or agent loop
(:mod:`.chains`), or a user's agent callable. A case's ``timeout`` bounds the whole case;
``retries`` re-runs a case whose model call or agent failed (never one that merely scored badly).
A model misconfiguration (``ModelConfigError``) fails the job at once instead of every case.

The request pipeline comes first. As soon as a worker has a case's replies, its concurrency slot
is free: it hands the case (a :class:`~.finished.FinishedCell`) to the finisher and sends its
next request at once. Finishing is done behind it (:mod:`.finish`: scoring, and the timing of
the commits), with each case's row and events built by :mod:`.rows` and stored in batches by
:mod:`.writer`, each case's events published only after its commit. So what a subscriber has
seen is on disk, and the replies of a burst share a commit. While a run goes, the objects that
existed before it are frozen out of the garbage collector's scans (:mod:`.heap`), so that a
full collection does not stop the loop. A 64-wide run at 200 ms latency stays near the ideal
wall time. The executor knows its job only as a :class:`~.context.JobContext`.

What a kill can lose is bounded: the requests in flight, plus the answered cases waiting to be
scored. Those are at most ``max_concurrency`` after each finisher iteration (when more wait,
it takes the excess instead of :data:`~.finish.FINISH_CHUNK`), plus the replies that land
before its next one, plus the scored cases waiting for their commit (fewer than
``max_concurrency``, for at most :data:`~.finish.COMMIT_AFTER_S`): about three times
``max_concurrency`` at worst. With the reply cache on (temperature 0, the default) even those are answered from the cache on resume.

Where a cell runs is the plan's ``executor``. ``"local"`` (the default): the workers above, on
this loop. ``"ray"`` or a ``te.RayExecutor``: :mod:`tooleval_nb.cluster` sends each cell to a
model replica on a Ray cluster, which runs it with :class:`~.cell.CaseRunner` (the same
model calls, chains and agent loops) and streams its :class:`CaseOutcome` back; the outcome then
takes the same finisher path as a local one, so the rows, events and store are the same.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..cluster import open_cluster
from ..suite import EvalCase
from .cell import CaseRunner
from .context import JobContext
from .finish import Finisher, base_dir_of
from .finished import FinishedCell, TargetTally
from .heap import freeze_heap, thaw_heap
from .limits import RateLimiter
from .live import close_live, open_live
from .plan import Plan, Target
from .record import CaseOutcome
from .results import ModelSummary, summary_of
from .rows import CaseRows
from .writer import ResultWriter

__all__ = ["Executor"]

#: a target's cells still to run: (case index, case, sample)
_Items = list[tuple[int, EvalCase, int]]


class Executor:
    """Runs a :class:`Plan` for a job, skipping cases the store already holds. Call
    :meth:`close` once done (the job does, whatever happened)."""

    def __init__(self, plan: Plan, job: JobContext) -> None:
        self.plan = plan
        self.job = job
        self.settings = plan.settings
        self.cases = plan.cases
        #: runs one cell to its outcome (here, or pickled to the replicas of a cluster)
        self.runner = CaseRunner(plan)
        #: the cells' cluster when the plan's executor is not local (:mod:`tooleval_nb.cluster`)
        self._cluster: Any = None
        self.writer = ResultWriter(job.store, job.job_id, job.publish)
        self.rows = CaseRows(job.job_id, job.run_id, plan.n_total)
        self.finisher = Finisher(
            self.writer,
            self.rows,
            self.settings.max_concurrency,
            base_dir_of(plan.suite.source),
            code_graders=self.settings.code_graders,
        )
        self._live: Any = None
        self._live_owned = False
        #: whether this run froze the heap (see :func:`~.heap.freeze_heap`)
        self._frozen = False

    async def run(self) -> None:
        freeze_heap()
        self._frozen = True
        groups: dict[str, list[Target]] = {}
        for target in self.plan.targets:
            groups.setdefault(target.provider, []).append(target)
        done = self.job.store.done_keys(self.job.run_id)
        self.rows.done_total = len(done)
        self._live, self._live_owned = await open_live(
            self.plan.live_tools, self.settings.live_tools, self.settings.live_tool_timeout
        )
        self.runner.live, self.runner.live_owned = self._live, self._live_owned
        # None for the local executor; else connected before any cell runs (a cluster that
        # cannot be reached fails the job here, naming its address)
        self._cluster = await open_cluster(self.plan.executor, self.runner, self.job.job_id)
        self.finisher.start()
        async with asyncio.TaskGroup() as tg:
            for targets in groups.values():
                tg.create_task(self._group(targets, done))

    async def close(self) -> None:
        """Stop the finisher, release the job's cluster work and close the live tools the job
        opened. Never raises."""
        if self._frozen:
            self._frozen = False
            thaw_heap()
        await self.finisher.stop()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                await self._cluster.close()
        await close_live(self._live, self._live_owned)

    async def drain(self, timeout: float | None = 5.0) -> None:
        """Score, store and publish the cases whose replies arrived (see
        :meth:`.finish.Finisher.drain`)."""
        await self.finisher.drain(timeout)

    async def _group(self, targets: list[Target], done: set[tuple[str, str, str, int]]) -> None:
        limiter = RateLimiter(self.settings.rpm, self.settings.tpm)
        for target in targets:
            await self._target(target, done, limiter)

    async def _target(
        self, target: Target, done: set[tuple[str, str, str, int]], limiter: RateLimiter
    ) -> None:
        repeats = self.settings.repeats
        items = [
            (ci, case, s)
            for s in range(repeats)
            for ci, case in self.cases
            if (target.label, target.mode, case.id, s) not in done
        ]
        total = len(self.cases) * repeats
        tally = TargetTally(done=total - len(items), total=total)
        if items and self._cluster is not None:
            await self._on_cluster(target, items, limiter, tally)
        elif items:
            await self._locally(target, items, limiter, tally)
        summary = self._summary(target, items, total)
        self.job.emit(
            "tool_eval_summary",
            {
                "run_id": self.job.run_id,
                "model": target.label,
                "mode": target.mode,
                **summary.as_data(),
            },
        )

    async def _locally(
        self, target: Target, items: _Items, limiter: RateLimiter, tally: TargetTally
    ) -> None:
        """Run a target's missing cells on ``max_concurrency`` workers of this loop."""
        it = iter(items)
        tools_of = self.plan.suite.tools_for
        attempts = self.runner.attempts
        seed_for = self.settings.seed_for
        queue = self.finisher.queue

        async def worker() -> None:
            for case_index, case, sample in it:
                seed = seed_for(sample)
                tools = tools_of(case)
                outcome = await attempts(target, case, tools, seed, limiter)
                # the slot is free: queue the case for finishing, send the next request
                queue(FinishedCell(target, case_index, case, sample, seed, tools, outcome, tally))

        # a server that answers one request at a time gets one worker: cases then run in
        # suite order, each chain's turns back to back (see ModelSpec.request_slots)
        width = min(
            self.settings.max_concurrency, len(items), target.spec.request_slots or len(items)
        )
        # ...and its LLM graders wait for its last case (see Finisher.hold)
        if width == 1:
            self.finisher.hold(target.label)
        try:
            async with asyncio.TaskGroup() as tg:
                for _ in range(width):
                    tg.create_task(worker())
        except BaseException:
            if width == 1:
                self.finisher.release(target.label, grade=False)
            raise
        if width == 1:
            self.finisher.release(target.label)
        await self.finisher.drain(None)

    def _summary(self, target: Target, items: _Items, total: int) -> ModelSummary:
        """A finished target's summary: from the rows this job wrote when it wrote all of them
        (nothing stored before it, no row found stored already), else read from the store."""
        if len(items) == total and not self.writer.duplicates:
            return summary_of(self.writer.summary_rows.get(target.label, []))
        return self.job.store.summary(self.job.run_id, target.label)

    async def _on_cluster(
        self, target: Target, items: _Items, limiter: RateLimiter, tally: TargetTally
    ) -> None:
        """Run a target's missing cells on the cluster; each outcome streams back into the
        same finisher as a local one (a cell is done once stored: a replica that dies takes
        nothing with it but its cells in flight, which run again elsewhere)."""
        cases = {case_index: case for case_index, case, _ in items}
        tools_of = self.plan.suite.tools_for

        def finished(cell: tuple[int, int], outcome: CaseOutcome) -> None:
            case_index, sample = cell
            case = cases[case_index]
            self.finisher.queue(
                FinishedCell(
                    target,
                    case_index,
                    case,
                    sample,
                    self.settings.seed_for(sample),
                    tools_of(case),
                    outcome,
                    tally,
                )
            )

        await self._cluster.run_cells(
            target,
            [(ci, s) for ci, _, s in items],
            limiter,
            self.settings.max_concurrency,
            finished,
        )
        await self.finisher.drain(None)
