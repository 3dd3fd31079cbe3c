"""One τ² simulation: tau2's own orchestrator, with the agent's and the user's requests ours.

tau2's :class:`~tau2.orchestrator.orchestrator.Orchestrator` is the protocol: the agent's first
message, agent ↔ user ↔ environment turn by turn, the domain's environment answering the
agent's tool calls (and, in telecom, the user's own: dual control), and the termination
reasons it records (agent stop, user stop, max steps, too many errors). It is synchronous: it
asks the agent and the user for their next message by a plain call. It runs here unchanged,
in a greenlet on the event loop's thread (:func:`converse`), while the two participants it is
given (:class:`~.agent.Tau2Agent`, :class:`~.user.Tau2User`) hand each request to the task
that drives it (:class:`Bridge`), which awaits the runner's ``ask``: the cell's cache, retries,
rate limit, timeout and cancellation, for the agent's model and the user's alike. What takes
the interpreter for long, building the domain's environment before the conversation and
tau2's evaluator after it, runs in a thread (:func:`in_thread`), so the loop stays free.

A thread per simulation, with every request handed from it to the loop and its reply back,
cost two hand-overs between threads per request (about 1.2 ms each way when 16 simulations'
replies arrive together: each waits for the interpreter); a greenlet switch costs microseconds.

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
import contextlib
import queue
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..runner.record import CaseOutcome

__all__ = [
    "Bridge",
    "ModelCallFailed",
    "Placement",
    "Simulation",
    "converse",
    "in_thread",
    "run_orchestrator",
]

T = TypeVar("T")


class ModelCallFailed(Exception):
    """A participant's model call failed after its retries (the reply's error)."""

    def __init__(self, role: str, reply: Any) -> None:
        super().__init__(f"the {role}'s model call failed: {reply.error}")
        self.role, self.reply = role, reply


class Bridge:
    """A simulation's requests, from tau2's synchronous orchestrator to the event loop.

    The orchestrator runs in a greenlet on the loop's own thread (:func:`converse`): ``call``
    hands the request (a coroutine's factory) to the task that drives the greenlet, which
    awaits it on the loop and switches back with its result, or throws its error in. No thread
    is woken and no lock taken per request; the interpreter is never handed between threads.

    ``cancel()`` (the cell was cancelled or timed out) makes every later request raise, so the
    orchestrator ends at its next one.
    """

    def __init__(self) -> None:
        self._cancelled = False

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        if self._cancelled:
            raise concurrent.futures.CancelledError("the simulation was cancelled")
        from greenlet import getcurrent  # the tau2 extra's

        driver = getcurrent().parent
        if driver is None:
            raise RuntimeError("Bridge.call outside a simulation: run it through converse()")
        result: T = driver.switch(_Request(make))
        return result

    def cancel(self) -> None:
        self._cancelled = True


class _Request:
    """What a simulation's greenlet hands its driver: the coroutine to await for it."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Awaitable[Any]]) -> None:
        self.make = make


async def converse(fn: Callable[[], T], bridge: Bridge) -> T:
    """``fn()`` (tau2's orchestrator, running a conversation) in a greenlet of this loop's
    thread, each request it makes through ``bridge`` awaited here; what ``fn`` returns or
    raises. Cancelling this task cancels the request in flight and ends ``fn`` at once (the
    request raises ``concurrent.futures.CancelledError`` inside it).

    ``fn`` runs on the loop between its requests, so it must only talk: what takes the
    interpreter for long (building a domain's environment, tau2's evaluator) runs before and
    after it, in a thread (:func:`in_thread`)."""
    from greenlet import greenlet  # the tau2 extra's

    child = greenlet(fn)
    step: Any = child.switch()
    while not child.dead:
        try:
            value = await step.make()
        except asyncio.CancelledError:
            bridge.cancel()
            # raised where the request was made; every later request raises at once (the bridge
            # is cancelled), so the orchestrator ends even if it catches this one
            with contextlib.suppress(concurrent.futures.CancelledError):
                child.throw(concurrent.futures.CancelledError("the simulation was cancelled"))
            raise
        except BaseException as exc:  # noqa: BLE001  # raised where the request was made
            step = child.throw(exc)
        else:
            step = child.switch(value)
    result: T = step
    return result


class _Threads:
    """Threads for simulations' long computations, kept for the next one when theirs ends.

    A thread is started whenever none is idle (the loop's default executor, a few threads, also
    resolves the HTTP clients' host names: a run's environments would queue them). Starting one
    makes the starting thread, here the event loop, wait until the new thread runs, and it runs
    only when the simulations that are computing let go of the interpreter (measured: a third of
    the loop's busy time on a mock run of 16 simulations at once); so a thread whose work ended
    waits :data:`IDLE_SECONDS` for more (every wave of a run after its first reuses the first
    wave's threads) and then ends."""

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


async def in_thread(fn: Callable[[], T]) -> T:
    """``fn()`` in a thread of its own (:class:`_Threads`: one reused, or a new one); awaiting
    it can be cancelled: ``fn`` then runs to its end (nothing it does outlives it), and its
    thread is free again."""
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
        # what the thread's fn raises is read, so it is never reported as unretrieved
        done.add_done_callback(lambda f: f.cancelled() or f.exception())
        raise


class Placement:
    """Where a simulation's parts outside the conversation run: on the loop or in a thread.

    Building the domain's environment and tau2's evaluator take from under a millisecond (the
    mock domain) to half a second (airline's database) of the interpreter; a hand-over to a
    thread and back costs about a millisecond each way when many simulations run at once. So
    each part is timed (the CPU time of the thread that ran it): one whose last
    :data:`CHEAP_RUNS` runs each took under :data:`INLINE_SECONDS` runs on the loop (a first
    run's one-off costs, a process's caches filling, do not keep it off); any other, and any
    part not yet timed, in a thread (:func:`in_thread`).
    """

    INLINE_SECONDS = 0.005
    CHEAP_RUNS = 3

    def __init__(self) -> None:
        self._cheap: dict[str, int] = {}  # part -> how many of its last runs were cheap

    async def run(self, part: str, fn: Callable[[], T]) -> T:
        """``fn()``, where ``part`` belongs."""
        if self._cheap.get(part, 0) >= self.CHEAP_RUNS:
            value, cost = _timed(fn)
        else:
            value, cost = await in_thread(lambda: _timed(fn))
        self._cheap[part] = self._cheap.get(part, 0) + 1 if cost < self.INLINE_SECONDS else 0
        return value


def _timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.thread_time()
    value = fn()
    return value, time.thread_time() - start


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
