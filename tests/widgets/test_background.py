"""widgets/background.py: the one way a widget starts work. ``done`` is called once, with the
result, the error or the cancellation, before the task ends; the task never raises the work's
error into whoever awaits it; with no running loop the work runs to the end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tooleval_nb.widgets.background import start


class Calls:
    def __init__(self) -> None:
        self.seen: list[tuple[Any, BaseException | None]] = []

    def __call__(self, result: Any, error: BaseException | None) -> None:
        self.seen.append((result, error))


async def _answer(value: Any) -> Any:
    await asyncio.sleep(0)
    return value


async def _fail() -> None:
    await asyncio.sleep(0)
    raise ValueError("no such server")


async def test_a_task_on_the_running_loop_reports_its_result_then_ends() -> None:
    for value in (1, 2):  # twice in one process: nothing is left over from the first
        calls = Calls()
        task = start(_answer(value), calls, name="tooleval-test")
        assert task is not None and task.get_name() == "tooleval-test" and calls.seen == []
        assert await task == value
        assert calls.seen == [(value, None)]


async def test_an_error_goes_to_done_never_to_the_awaiter() -> None:
    calls = Calls()
    task = start(_fail(), calls)
    assert task is not None
    assert await task is None
    ((result, error),) = calls.seen
    assert result is None and isinstance(error, ValueError) and "no such server" in str(error)


@pytest.mark.parametrize("started", [True, False], ids=["running", "not-yet-started"])
async def test_a_cancelled_task_reports_the_cancellation_then_a_new_one_runs(started) -> None:
    calls = Calls()
    task = start(asyncio.sleep(3600), calls)
    assert task is not None
    if started:
        await asyncio.sleep(0)  # the work is waiting inside
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    ((result, error),) = calls.seen
    assert result is None and isinstance(error, asyncio.CancelledError)
    again = Calls()
    task = start(_answer("next"), again)
    assert task is not None and await task == "next" and again.seen == [("next", None)]


def test_without_a_loop_the_work_runs_to_the_end() -> None:
    calls = Calls()
    assert start(_answer(3), calls) is None
    assert calls.seen == [(3, None)]
    failed = Calls()
    assert start(_fail(), failed) is None
    assert isinstance(failed.seen[0][1], ValueError)
