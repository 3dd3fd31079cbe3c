"""Work a widget starts: a task on the kernel's loop, or (no running loop: scripts, tests) run to
completion through :mod:`tooleval_nb.aio`; either way ``done(result, error)`` is called once.

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

#: called with ``(result, None)``, ``(None, error)``, or ``(None, None)`` when cancelled
Done = Callable[[Any, BaseException | None], None]


def start(coro: Coroutine[Any, Any, Any], done: Done) -> asyncio.Task[Any] | None:
    """Run ``coro`` as a task on the running loop (returned, so it can be cancelled), else to
    completion; call ``done`` when it ends. An error goes to ``done``, never into the caller
    (a button's event handler)."""
    if running_loop() is not None:
        task = spawn(coro)

        def finished(t: asyncio.Task[Any]) -> None:
            if t.cancelled():
                done(None, None)
            else:
                done(t.result() if t.exception() is None else None, t.exception())

        task.add_done_callback(finished)
        return task
    try:
        result = run_sync(coro)
    except BaseException as exc:  # shown in the widget, not raised into the event handler
        done(None, exc)
        return None
    done(result, None)
    return None


def show(out: widgets.Output, *items: Any) -> None:
    """Replace what ``out`` displays with ``items``."""
    out.clear_output(wait=True)
    with out:
        for item in items:
            display(item)
