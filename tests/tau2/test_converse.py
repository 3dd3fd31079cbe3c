"""A simulation's conversation on the event loop (tau2/conversation.py: ``converse``): tau2's
synchronous orchestrator runs in a greenlet of the loop's thread, each request it makes through
the ``Bridge`` awaited by the task that drives it; the parts around it run on the loop or in a
thread, by what they cost (``Placement``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any

import pytest

from tooleval_nb.tau2.conversation import Bridge, Placement, converse

pytest.importorskip("greenlet")


def test_requests_are_awaited_in_order_on_the_loops_thread() -> None:
    seen: list[Any] = []

    async def reply(n: int) -> int:
        seen.append(("awaited", n, threading.get_ident()))
        await asyncio.sleep(0)
        return n * 10

    async def main() -> tuple[list[int], int]:
        bridge = Bridge()

        def talk() -> list[int]:  # synchronous, as tau2's orchestrator is
            out = []
            for n in range(3):
                out.append(bridge.call(lambda n=n: reply(n)))
                seen.append(("got", out[-1], threading.get_ident()))
            return out

        return await converse(talk, bridge), threading.get_ident()

    got, loop_thread = asyncio.run(main())
    assert got == [0, 10, 20]
    assert [s[:2] for s in seen] == [
        ("awaited", 0),
        ("got", 0),
        ("awaited", 1),
        ("got", 10),
        ("awaited", 2),
        ("got", 20),
    ]
    assert {s[2] for s in seen} == {loop_thread}


def test_two_conversations_take_turns_on_one_loop() -> None:
    """Each waits for what only the other can do: they run at once, without threads."""

    async def main() -> list[str]:
        first_spoke, second_spoke = asyncio.Event(), asyncio.Event()
        said: list[str] = []

        def side(name: str, mine: asyncio.Event, theirs: asyncio.Event) -> Any:
            bridge = Bridge()

            def talk() -> str:
                said.append(f"{name} speaks")
                mine.set()
                bridge.call(theirs.wait)
                said.append(f"{name} heard")
                return name

            return converse(talk, bridge)

        done = await asyncio.wait_for(
            asyncio.gather(
                side("a", first_spoke, second_spoke), side("b", second_spoke, first_spoke)
            ),
            10,
        )
        assert done == ["a", "b"]
        return said

    said = asyncio.run(main())
    assert said[:2] == ["a speaks", "b speaks"] and set(said[2:]) == {"a heard", "b heard"}


def test_a_requests_error_is_raised_where_the_request_was_made() -> None:
    async def fails() -> None:
        raise ValueError("the server said no")

    async def main() -> str:
        bridge = Bridge()

        def talk() -> str:
            try:
                bridge.call(fails)
            except ValueError as exc:  # the orchestrator sees it and may go on
                return f"caught: {exc}; then {bridge.call(lambda: asyncio.sleep(0, 'more'))}"
            return "not raised"

        return await converse(talk, bridge)

    assert asyncio.run(main()) == "caught: the server said no; then more"


def test_what_the_conversation_raises_reaches_the_awaiting_task() -> None:
    async def main() -> None:
        bridge = Bridge()

        def talk() -> None:
            bridge.call(lambda: asyncio.sleep(0))
            raise KeyError("tau2's protocol error")

        await converse(talk, bridge)

    with pytest.raises(KeyError, match="protocol error"):
        asyncio.run(main())


def test_cancelling_stops_the_request_in_flight_and_ends_the_conversation() -> None:
    """The request in flight is cancelled, the orchestrator sees its request raise (tau2's code
    runs no further), the task ends cancelled; a request after that raises at once."""
    events: list[str] = []

    async def main() -> None:
        bridge = Bridge()
        started = asyncio.Event()

        async def hangs() -> None:
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                events.append("request cancelled")
                raise

        def talk() -> None:
            try:
                bridge.call(hangs)
            except concurrent.futures.CancelledError:
                events.append("orchestrator stopped")
                raise
            events.append("went on")  # never

        task = asyncio.ensure_future(converse(talk, bridge))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(concurrent.futures.CancelledError):
            bridge.call(lambda: asyncio.sleep(0))

    asyncio.run(main())
    assert events == ["request cancelled", "orchestrator stopped"]


def test_an_orchestrator_that_swallows_the_cancellation_is_still_ended() -> None:
    attempts: list[str] = []

    async def main() -> None:
        bridge = Bridge()
        started = asyncio.Event()

        async def hangs() -> None:
            started.set()
            await asyncio.sleep(60)

        def talk() -> None:
            for _ in range(5):  # retries whatever is raised
                try:
                    bridge.call(hangs)
                except concurrent.futures.CancelledError:
                    attempts.append("raised")

        task = asyncio.ensure_future(converse(talk, bridge))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert attempts == ["raised"] * 5  # each later request raised at once, none was sent


def test_a_request_outside_a_conversation_is_refused() -> None:
    with pytest.raises(RuntimeError, match="converse"):
        Bridge().call(lambda: asyncio.sleep(0))


def _spin(seconds: float) -> None:
    """Take the interpreter for ``seconds`` of this thread's CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_part_runs_on_the_loop_once_its_last_runs_were_cheap() -> None:
    placement = Placement()
    cheap_runs = Placement.CHEAP_RUNS

    async def main() -> tuple[int, list[bool]]:
        on_loop: list[bool] = []

        async def where(part: str, cost: float) -> None:
            def work() -> int:
                _spin(cost)
                return threading.get_ident()

            on_loop.append(await placement.run(part, work) == loop_thread)

        loop_thread = threading.get_ident()
        for _ in range(cheap_runs + 2):  # cheap: in a thread until it has been timed so
            await where("cheap", 0)
        for _ in range(2):  # takes long: always in a thread
            await where("costly", Placement.INLINE_SECONDS * 2)
        for _ in range(cheap_runs):  # cheap ...
            await where("varies", 0)
        await where("varies", Placement.INLINE_SECONDS * 2)  # ... then once long, on the loop
        await where("varies", 0)  # ... so in a thread again
        return cheap_runs, on_loop

    n, on_loop = asyncio.run(main())
    assert on_loop == [False] * n + [True] * 2 + [False] * 2 + [False] * n + [True, False]
