"""The sync/async bridge: asyncio.run without a loop, a worker thread inside one, never nested."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tooleval_nb.aio import in_notebook, run_sync, running_loop, spawn


async def where() -> int:
    await asyncio.sleep(0)
    return threading.get_ident()


def test_run_sync_without_loop_runs_here():
    assert running_loop() is None
    assert run_sync(where()) == threading.get_ident()


async def test_run_sync_inside_a_loop_uses_a_thread():
    assert running_loop() is not None
    assert run_sync(where()) != threading.get_ident()


async def test_run_sync_reraises():
    async def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        run_sync(boom())


async def test_spawn_returns_a_task():
    task = spawn(where())
    assert isinstance(task, asyncio.Task)
    assert await task == threading.get_ident()


def test_spawn_needs_a_loop():
    coro = where()
    with pytest.raises(RuntimeError, match="running event loop"):
        spawn(coro)


def test_not_a_notebook():
    assert in_notebook() is False


def test_one_bridge_for_the_package():
    """Every sync twin in the package reaches the bridge in tooleval_nb.aio directly: no alias
    module is left (the runner, the models layer and MCP each had one)."""
    import importlib
    import importlib.util

    for alias in ("tooleval_nb.runner.bridge", "tooleval_nb.models._sync", "tooleval_nb.mcp._sync"):
        assert importlib.util.find_spec(alias) is None, alias
    from tooleval_nb import aio, runner

    call = importlib.import_module("tooleval_nb.models.call")
    embed = importlib.import_module("tooleval_nb.models.embed")
    assert runner.run_sync is call.run_sync is embed.run_sync is aio.run_sync


@pytest.mark.parametrize("in_loop", [False, True], ids=["plain", "in-a-loop"])
def test_run_sync_takes_a_factory_and_runs_loop_end_hooks(in_loop, monkeypatch):
    from tooleval_nb import aio

    loops: list[tuple[str, int]] = []

    async def hook() -> None:
        loops.append(("hook", id(asyncio.get_running_loop())))

    async def broken_hook() -> None:
        raise RuntimeError("cleanup bug")

    async def work() -> int:
        loops.append(("work", id(asyncio.get_running_loop())))
        return 7

    monkeypatch.setattr(aio, "_LOOP_END", [])
    aio.at_loop_end(hook)
    aio.at_loop_end(broken_hook)  # logged, never hides the result
    aio.at_loop_end(hook)  # registered once

    async def inside() -> int:
        return run_sync(work)

    assert (asyncio.run(inside()) if in_loop else run_sync(work)) == 7
    assert [kind for kind, _ in loops] == ["work", "hook"]
    assert loops[0][1] == loops[1][1]  # the hook ran on the loop the work ran on


async def test_sync_twin_in_a_loop_closes_its_http_session(fake):
    import gc

    from tooleval_nb.models import call_model

    reply = call_model(
        {"model": "openai/fake", "api_base": fake.url, "api_key": "sk-x"},
        "get_weather city Paris",
        [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": {"type": "object"}},
            }
        ],
    )
    assert reply.error is None and reply.tool_calls[0].name == "get_weather"
    gc.collect()  # an unclosed aiohttp session would warn here (warnings are errors)
