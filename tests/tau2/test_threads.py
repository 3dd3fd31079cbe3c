"""The threads a simulation's long parts run in (tau2/conversation.py: ``in_thread``): reused
while idle, new ones when none is, ended after their idle time."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tooleval_nb.tau2 import conversation
from tooleval_nb.tau2.conversation import in_thread


def _simulation_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "tau2-simulation"}


def test_a_finished_simulations_thread_runs_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversation, "_THREADS", conversation._Threads())
    ran: list[int] = []

    async def main() -> None:
        for _ in range(2):  # one after the other: one thread
            ran.append(await in_thread(threading.get_ident))
        release, inside = threading.Event(), threading.Semaphore(0)

        def held() -> int:
            inside.release()
            release.wait(30)
            return threading.get_ident()

        async def both() -> list[int]:
            tasks = [asyncio.ensure_future(in_thread(held)) for _ in range(2)]
            for _ in range(2):  # both running at once: in two threads
                assert await asyncio.to_thread(inside.acquire, True, 30)
            release.set()
            return list(await asyncio.gather(*tasks))

        ran.extend(await both())  # two at once: the idle one and a new one

    asyncio.run(main())
    assert ran[0] == ran[1]
    assert ran[2] != ran[3] and ran[0] in ran[2:]


def test_an_error_reaches_the_awaiting_task_and_the_thread_serves_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conversation, "_THREADS", conversation._Threads())

    def fails() -> None:
        raise ValueError("tau2 said no")

    async def main() -> tuple[int, int]:
        first = await in_thread(threading.get_ident)
        with pytest.raises(ValueError, match="tau2 said no"):
            await in_thread(fails)
        return first, await in_thread(threading.get_ident)

    first, again = asyncio.run(main())
    assert first == again


def test_idle_threads_end(monkeypatch: pytest.MonkeyPatch) -> None:
    threads = conversation._Threads()
    threads.IDLE_SECONDS = 0.1
    monkeypatch.setattr(conversation, "_THREADS", threads)
    before = _simulation_threads()

    async def main() -> None:
        release, inside = threading.Event(), threading.Semaphore(0)

        def held() -> None:
            inside.release()
            release.wait(30)

        tasks = [asyncio.ensure_future(in_thread(held)) for _ in range(3)]
        for _ in range(3):  # all three running at once
            assert await asyncio.to_thread(inside.acquire, True, 30)
        assert len(_simulation_threads() - before) == 3
        release.set()
        await asyncio.gather(*tasks)

    asyncio.run(main())
    deadline = time.monotonic() + 5
    while _simulation_threads() - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _simulation_threads() - before
    assert threads._idle == 0
