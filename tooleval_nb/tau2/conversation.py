"""One τ² simulation: tau2's own orchestrator, with the agent's and the user's requests ours.

tau2's :class:`~tau2.orchestrator.orchestrator.Orchestrator` is the protocol: the agent's first
message, agent ↔ user ↔ environment turn by turn, the domain's environment answering the
agent's tool calls (and, in telecom, the user's own: dual control), and the termination
reasons it records (agent stop, user stop, max steps, too many errors). It is synchronous: it
asks the agent and the user for their next message by a plain call. It runs here unchanged, in
a thread of its own per simulation (:func:`in_thread`), while the two participants it is given
(:class:`~.agent.Tau2Agent`, :class:`~.user.Tau2User`) hand each request back to the event
loop (:class:`Bridge`), where the runner's ``ask`` sends it: the cell's cache, retries, rate
limit, timeout and cancellation, for the agent's model and the user's alike.

What tau2 would raise is recorded as tau2 records it:

* a participant's protocol error (an empty message) ends the simulation with
  ``agent_error`` / ``user_error`` and the messages so far (tau2's evaluator scores it 0);
* a model call that failed after its retries (an infrastructure error) is the cell's error (the
  runner retries the case as configured) and, as tau2 records a failed sample it skips, a
  simulation with that termination reason, ``skipped`` and no reward.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..runner.record import CaseOutcome

__all__ = ["Bridge", "ModelCallFailed", "Simulation", "in_thread", "run_orchestrator"]

T = TypeVar("T")


class ModelCallFailed(Exception):
    """A participant's model call failed after its retries (the reply's error)."""

    def __init__(self, role: str, reply: Any) -> None:
        super().__init__(f"the {role}'s model call failed: {reply.error}")
        self.role, self.reply = role, reply


class Bridge:
    """Runs coroutines on the event loop from the orchestrator's thread, one at a time.

    ``cancel()`` (the cell was cancelled or timed out) cancels the request in flight and makes
    every later one raise, so the orchestrator's thread ends at its next request.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._current: concurrent.futures.Future[Any] | None = None
        self._cancelled = False
        self._lock = threading.Lock()

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        with self._lock:
            if self._cancelled:
                raise concurrent.futures.CancelledError("the simulation was cancelled")
            future = asyncio.run_coroutine_threadsafe(_awaited(make), self.loop)
            self._current = future
        try:
            return future.result()
        finally:
            self._current = None

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._current is not None:
                self._current.cancel()


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


class _Threads:
    """Threads for simulations, kept for the next one when theirs ends.

    A simulation holds its thread for as long as it talks, so a pool with a bound (the loop's
    default executor, a few threads) would cap the run's concurrency: a thread is started
    whenever none is idle. Starting one makes the starting thread, here the event loop, wait
    until the new thread runs, and it runs only when the simulations that are computing let go
    of the interpreter (measured: a third of the loop's busy time on a mock run of 16 simulations at
    once); so a thread that finished a simulation waits :data:`IDLE_SECONDS` for another (every
    wave of a run after its first reuses the first wave's threads) and then ends."""

    IDLE_SECONDS = 30.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for work, and not yet promised any
        self._work: queue.SimpleQueue[Callable[[], Callable[[], None]]] = queue.SimpleQueue()

    def run(self, fn: Callable[[], Callable[[], None]]) -> None:
        """``fn()`` in an idle thread, or in a new one when none is idle; what it returns is
        called once the thread counts as idle again (it hands the result over: whoever waits
        for it and then asks for another thread finds this one idle)."""
        with self._lock:
            reuse = self._idle > 0
            if reuse:
                self._idle -= 1  # that thread is promised this work
        self._work.put(fn)
        if not reuse:
            threading.Thread(target=self._serve, name="tau2-simulation", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                fn = self._work.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # no work was promised to an idle thread: this one ends
                        self._idle -= 1
                        return
                continue  # work was promised while this one timed out: it is in the queue
            hand_over = fn()  # never raises: in_thread's target catches everything
            with self._lock:
                self._idle += 1
            hand_over()


_THREADS = _Threads()


async def in_thread(fn: Callable[[], T], on_cancel: Callable[[], None]) -> T:
    """``fn()`` in a thread of its own (:class:`_Threads`: one reused, or a new one); awaiting
    it can be cancelled: ``on_cancel`` then stops ``fn``, whose thread is free again when it
    has ended."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def target() -> Callable[[], None]:
        try:
            value: Any = fn()
            error: BaseException | None = None
        except BaseException as exc:  # noqa: BLE001  # handed to the awaiting task
            value, error = None, exc

        def hand_over() -> None:
            try:
                loop.call_soon_threadsafe(settle, value, error)
            except RuntimeError:  # the loop closed while the thread ended (cancelled at exit)
                pass

        return hand_over

    _THREADS.run(target)
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        on_cancel()
        # the thread ends with the cancellation it was given: read, so it is never reported
        done.add_done_callback(lambda f: f.cancelled() or f.exception())
        raise


@dataclass
class Simulation:
    """What one simulation produced: tau2's ``SimulationRun`` and the cell's outcome (every
    model call a hop, marked with its ``role``)."""

    run: Any  # tau2.data_model.simulation.SimulationRun
    outcome: CaseOutcome = field(default_factory=CaseOutcome)


def run_orchestrator(orchestrator: Any, outcome: CaseOutcome) -> Any:
    """``orchestrator.run()``: tau2's ``SimulationRun``; a participant's protocol error (what
    tau2 raises from ``Message.validate`` or a participant) becomes the simulation tau2 would
    have recorded had it finished there (``agent_error`` / ``user_error``); a failed model
    call becomes a skipped simulation and the outcome's error."""
    from tau2.data_model.simulation import RewardInfo, SimulationRun, TerminationReason
    from tau2.utils.utils import get_now

    start_time, start = get_now(), time.perf_counter()

    def ended(reason: Any, **extra: Any) -> Any:
        """The simulation as tau2 records one that ended here, for ``reason``."""
        return SimulationRun(
            id=str(uuid.uuid4()),
            task_id=orchestrator.task.id,
            start_time=start_time,
            end_time=get_now(),
            duration=time.perf_counter() - start,
            termination_reason=reason,
            messages=orchestrator.get_trajectory(),
            seed=orchestrator.seed,
            **extra,
        )

    try:
        return orchestrator.run()
    except concurrent.futures.CancelledError:
        raise
    except ModelCallFailed as exc:
        outcome.error = str(exc)
        outcome.error_type = exc.reply.error_type or "ModelError"
        reason = (
            TerminationReason.USER_ERROR if exc.role == "user" else TerminationReason.AGENT_ERROR
        )
        return ended(
            reason, reward_info=RewardInfo(reward=0.0, info={"note": str(exc)}), skipped=True
        )
    except Exception as exc:  # noqa: BLE001  # tau2's protocol errors: a message it refuses
        from tau2.agent.base import AgentError
        from tau2.user.base import UserError

        user = isinstance(exc, UserError) or (
            not isinstance(exc, AgentError) and getattr(orchestrator, "to_role", None) == "user"
        )
        reason = TerminationReason.USER_ERROR if user else TerminationReason.AGENT_ERROR
        return ended(reason, reward_info=None)
