"""The bare loop the run benchmarks compare against (bench_bfcl_multiturn.py, bench_tau2.py).

Recorded request bodies, in groups (a BFCL entry's steps, a τ² simulation's turns: each needs
the one before it), sent by a bare aiohttp loop to the fake OpenAI-compatible server in its own
process: one session, ``concurrency`` groups at a time, each group's requests one after
another, the reply's JSON decoded and nothing else: the bound any client gets on that server.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["bare_loop"]


def bare_loop(
    groups: list[list[dict[str, Any]]],
    *,
    handler: str,
    latency: float,
    concurrency: int,
    warm: bool = False,
) -> tuple[float, int]:
    """The wall time of the loop over ``groups`` and the requests the server received in it.

    Args:
        handler: the fake server's answer function (``module:function``, imported by its
            process).
        latency: seconds the server waits before each answer.
        concurrency: groups at a time.
        warm: send everything once first, untimed (connections, the handler's state).
    """
    import aiohttp

    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    async def go(url: str) -> float:
        work = iter(groups)
        async with aiohttp.ClientSession() as session:

            async def worker() -> None:
                for bodies in work:
                    for body in bodies:
                        async with session.post(f"{url}/chat/completions", json=body) as resp:
                            await resp.json()

            t0 = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return time.perf_counter() - t0

    with FakeOpenAIServer(latency=latency, process=True, handler=handler) as server:
        if warm:
            asyncio.run(go(server.url))
        before = server.requests if warm else 0
        wall = asyncio.run(go(server.url))
        return wall, server.requests - before
