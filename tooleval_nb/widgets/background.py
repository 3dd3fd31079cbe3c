"""Work a widget starts: a task on the kernel's loop, or (no running loop: scripts, tests) run to
completion through :mod:`tooleval_nb.aio`; either way ``done(result, error)`` is called once,
when the work ends and before its task does. Every widget that starts work starts it here.

Also :func:`show`, which replaces what an ``Output`` widget displays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import ipywidgets as widgets
from IPython.display import display

from ..aio import run_sync, running_loop, spawn

__all__ = ["Done", "start", "show"]

#: called with ``(result, None)`` when the work ends, ``(None, error)`` when it fails, and
#: ``(None, CancelledError)`` when its task is cancelled
Done = Callable[[Any, BaseException | None], None]


def start(
    work: Coroutine[Any, Any, Any], done: Done, *, name: str | None = None
) -> asyncio.Task[Any] | None:
    """Run ``work`` as a task on the running loop (returned, so it can be awaited or cancelled),
    else to completion; call ``done`` when it ends. The work's error goes to ``done``, never into
    the caller (a button's event handler) nor into whoever awaits the task, which gives the
    work's result (None when it failed)."""

    called = False

    def end(result: Any, error: BaseException | None) -> None:
        nonlocal called
        called = True
        done(result, error)

    async def run() -> Any:
        try:
            result = await work
        except asyncio.CancelledError as cancelled:
            end(None, cancelled)
            raise
        except Exception as exc:  # shown in the widget, not raised into the event handler
            end(None, exc)
            return None
        end(result, None)
        return result

    if running_loop() is None:
        run_sync(run())
        return None
    task = spawn(run(), name=name)

    def cancelled_before_it_ran(task: asyncio.Task[Any]) -> None:
        if not called and task.cancelled():
            work.close()  # never started: nothing to clean up, no "never awaited" warning
            end(None, asyncio.CancelledError())

    task.add_done_callback(cancelled_before_it_ran)
    return task


def show(out: widgets.Output, *items: Any) -> None:
    """Replace what ``out`` displays with ``items``."""
    out.clear_output(wait=True)
    with out:
        for item in items:
            display(item)
