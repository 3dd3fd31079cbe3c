"""The Ray side of a run: the replica pool, and a job's cells sent and streamed.

:class:`RayBackend` belongs to one :class:`~.executor.RayExecutor`: it has the process's Ray
session (:mod:`.session`) connected off the event loop, and keeps a pool of
:class:`~.replica.Replica` actors that outlive a job, so the model servers they started stay
warm for the executor's next run. The pool ends with the executor (``close()``, or when it is
collected), with the job that owns it (``executor="ray"``: one pool per run), or with the
session.

:class:`ClusterJob` runs one job's cells. For a target it picks its replicas (one per endpoint,
or ``replicas``), keeps ``max_concurrency_per_replica`` cells in flight on each (a pull queue:
a faster replica takes more), and hands each outcome to the runner's finisher as soon as it
lands (an awaited object reference: the loop never blocks). A replica runs at most
``max_concurrency_per_replica`` cells at once and holds half as many more queued, so the model
never waits for Ray's round trip. A cell is done only once the
driver has it: when a replica dies, its cells in flight go back to the queue and run on another
replica (or on the same one once Ray restarted it), so nothing is lost; what the dead replica
had sent to the model is at most its cells running, and the store keeps one row per cell.
Cancelling the job cancels the cells in flight.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import (
    GetTimeoutError,
    ObjectLostError,
    RayActorError,
    RayTaskError,
    WorkerCrashedError,
)

from .errors import ClusterError
from .options import RayOptions
from .ratelimit import RateLimitHolder
from .replica import Replica
from .session import connect, current, job_ended, job_started, register

__all__ = ["ClusterJob", "RayBackend"]

#: errors that mean the replica (its process or node) went away, not that the cell failed
_LOST = (RayActorError, WorkerCrashedError, ObjectLostError)


@dataclass(slots=True)
class _Member:
    """One replica of the pool: its actor handle and what the driver knows of it."""

    handle: Any
    index: int
    dead: bool = False
    error: str | None = None


class RayBackend:
    """A :class:`~.executor.RayExecutor`'s replica pool, in the process's Ray session (:mod:`.session`).

    It holds a copy of the executor's options, not the executor: the executor's finalizer
    (when it is collected) closes this pool."""

    def __init__(self, options: RayOptions) -> None:
        self.options = RayOptions.model_validate(options.model_dump())
        self.pool: list[_Member] = []
        self.closed = False
        self._replica = ray.remote(Replica)
        self._holder = ray.remote(RateLimitHolder)
        self._cpus = 1.0
        self._generation = 0
        register(self)

    # -- connection --------------------------------------------------------------------------
    async def open_job(self, job_id: str, runner: Any, *, owned: bool = False) -> ClusterJob:
        """Connect (off the loop), ship the job's runner once, and return the job's cells'
        dispatcher; ``owned``: the job closes this pool when it ends (``executor="ray"``).
        Fails with :class:`ClusterError` before any cell runs."""
        if self.closed:
            raise ClusterError(
                "this RayExecutor was closed (executor.close()); create a new "
                "one for the next run: executor=te.RayExecutor(...), or "
                "executor='ray'"
            )
        opts = self.options
        joined = await asyncio.wrap_future(
            connect(opts.address, num_cpus=opts.num_cpus, log_to_driver=opts.log_to_driver)
        )
        if joined.generation != self._generation:  # a new session: the old pool is gone
            self.drop()
            self._generation, self._cpus = joined.generation, joined.cpus
        try:
            box = [ray.put(runner)]
        except Exception as exc:  # an agent or live-tools object that cannot be pickled
            if owned:
                self.close()
            raise ClusterError(
                f"the run cannot be sent to the Ray workers: {exc}; give an "
                "importable agent function and live tools as an MCP "
                "target"
            ) from exc
        job_started(job_id)
        return ClusterJob(self, job_id, box, owned=owned)

    # -- the pool ----------------------------------------------------------------------------
    def default_replicas(self) -> int:
        per = self.options.num_cpus_per_replica
        return max(1, int(self._cpus // per) if per > 0 else int(self._cpus))

    def members(self, count: int) -> list[_Member]:
        """The first ``count`` live replicas of the pool (started as needed; a replica given
        up by an earlier job is replaced)."""
        for i, member in enumerate(self.pool):
            if member.dead:
                with contextlib.suppress(Exception):
                    ray.kill(member.handle)
                self.pool[i] = self._start(member.index)
        while len(self.pool) < count:
            self.pool.append(self._start(len(self.pool)))
        return self.pool[:count]

    def _start(self, index: int) -> _Member:
        opts = self.options
        handle = self._replica.options(
            num_cpus=opts.num_cpus_per_replica,
            num_gpus=opts.num_gpus_per_replica,
            max_restarts=opts.max_restarts,
            max_task_retries=0,
            max_concurrency=1000,
            scheduling_strategy="SPREAD",
        ).remote(index, int(opts.num_cpus_per_replica) or 1)
        return _Member(handle, index)

    def limiter(self, limiter: Any) -> Any:
        """A new actor holding ``limiter`` (one rpm / tpm budget for every replica)."""
        return self._holder.options(num_cpus=0, max_concurrency=1000).remote(limiter)

    def shutdown(self) -> None:
        """Kill the pool's replicas (their model servers exit with them); the next job starts
        new ones."""
        pool, self.pool = self.pool, []
        if current() is None:  # no session: the replicas ended with it
            return
        for member in pool:
            with contextlib.suppress(Exception):
                ray.kill(member.handle)

    def close(self) -> None:
        """Kill the replicas; no job runs here again (twice is harmless)."""
        self.closed = True
        self.shutdown()

    def drop(self) -> None:
        """Forget the replicas of a session that ended (they ended with it)."""
        self.pool = []


class ClusterJob:
    """One job's cells on the cluster (see the module docstring)."""

    def __init__(
        self, backend: RayBackend, job_id: str, box: list[Any], *, owned: bool = False
    ) -> None:
        self.backend = backend
        self.job_id = job_id
        self.box = box
        self.owned = owned
        self._limits: dict[int, Any] = {}
        self._used: set[int] = set()

    async def run_cells(
        self,
        target: Any,
        cells: list[tuple[int, int]],
        limiter: Any,
        width: int,
        finished: Callable[[tuple[int, int], Any], None],
    ) -> None:
        """Run ``cells`` (case index, sample) of ``target``; call ``finished(cell, outcome)``
        for each as it lands. Returns when every cell finished; raises the cell's own error
        for a ``ModelConfigError``, :class:`ClusterError` when every replica died."""
        opts = self.backend.options
        spec = target.spec
        endpoints = _lookup(opts.endpoints, target)
        gguf = _lookup(opts.gguf, target)
        count = len(endpoints) if endpoints else opts.replicas or self.backend.default_replicas()
        members = self.backend.members(count)
        self._used.update(m.index for m in members)
        per = opts.max_concurrency_per_replica or width
        slots = spec.request_slots or (1 if gguf is not None else None)
        per = min(per, slots or per, len(cells))
        # cells queued at a replica beyond the ``per`` it runs: they hide Ray's round trip
        # (a replica that dies had sent its model at most ``per`` of its cells)
        queued = max(1, per // 2)
        limit = None
        if limiter.active:
            limit = self._limits.get(id(limiter))
            if limit is None:
                limit = self._limits[id(limiter)] = self.backend.limiter(limiter)
        queue = collections.deque(cells)
        left = len(cells)
        wake = asyncio.Event()
        all_done = asyncio.Event()

        async def slot(member: _Member, api_base: str | None, ready: asyncio.Task[Any]) -> None:
            nonlocal left
            # a replica takes cells once Ray has placed and started it (one the cluster has no
            # room for yet takes none, instead of holding cells hostage)
            done = asyncio.ensure_future(all_done.wait())
            await asyncio.wait({ready, done}, return_when=asyncio.FIRST_COMPLETED)
            done.cancel()
            if not ready.done() or ready.cancelled() or ready.exception() is not None:
                return
            while left and not member.dead:
                if not queue:
                    wake.clear()
                    await wake.wait()
                    continue
                cell = queue.popleft()
                ref = member.handle.run_cell.remote(
                    self.job_id,
                    self.box,
                    target.index,
                    cell[0],
                    cell[1],
                    per,
                    limit,
                    api_base,
                    gguf,
                )
                try:
                    outcome = await ref
                except asyncio.CancelledError:
                    with contextlib.suppress(Exception):
                        ray.cancel(ref)
                    raise
                except RayTaskError as exc:  # the cell's code raised (ModelConfigError)
                    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                    raise cause from None
                except _LOST as exc:  # the replica died: the cell runs again elsewhere
                    queue.appendleft(cell)
                    wake.set()
                    await _check(member, exc)
                    continue
                left -= 1
                if not left:
                    wake.set()
                    all_done.set()
                finished(cell, outcome)

        readiness = [asyncio.ensure_future(_ready(member)) for member in members]
        try:
            async with asyncio.TaskGroup() as tg:
                for i, (member, ready) in enumerate(zip(members, readiness, strict=True)):
                    api_base = endpoints[i] if endpoints else None
                    for _ in range(per + queued):
                        tg.create_task(slot(member, api_base, ready))
        finally:
            for ready in readiness:
                ready.cancel()
        if left:
            errors = "; ".join(sorted({m.error or "?" for m in members}))
            raise ClusterError(
                f"every Ray replica of {target.label} died with {left} cell(s) "
                f"left ({errors}); the finished cells are stored: resume the "
                "job to run the rest"
            )

    async def close(self) -> None:
        """Release the job: its runner on the replicas, its rate-limit actors; the replicas
        too when the job owns them (``executor="ray"``)."""
        job_ended(self.job_id)
        if self.owned:
            self.backend.close()
        else:
            for member in self.backend.pool:
                if member.index in self._used and not member.dead:
                    with contextlib.suppress(Exception):
                        member.handle.forget.remote(self.job_id)
        for actor in self._limits.values():
            with contextlib.suppress(Exception):
                ray.kill(actor)
        self._limits.clear()
        self.box.clear()


async def _ready(member: _Member) -> None:
    """Returns once the replica runs (raises when it died before)."""
    try:
        await member.handle.pid.remote()
    except _LOST as exc:
        member.dead, member.error = True, f"{type(exc).__name__}: it did not start"
        raise


async def _check(member: _Member, exc: BaseException) -> None:
    """After a lost cell: is the replica back (restarted by Ray) or gone for good?"""
    member.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if member.dead:
        return
    try:
        await member.handle.pid.remote()
    except (*_LOST, GetTimeoutError):
        member.dead = True


def _lookup(table: dict[str, Any], target: Any) -> Any:
    for key in (target.label, target.model):
        if key in table:
            return table[key]
    return None
