"""The one place that runs async code from sync code (every sync twin of the package uses it).

* :func:`run_sync` runs a coroutine to completion: with ``asyncio.run`` when no loop runs in this
  thread; inside a running loop (a notebook cell calling a sync twin) on a fresh loop in a
  short-lived worker thread, because nesting ``asyncio.run`` is impossible and ``nest_asyncio`` is
  not used. Before a loop it created ends, it awaits the hooks registered with
  :func:`at_loop_end` (the models layer closes the HTTP session it opened on that loop there, so
  no "Unclosed client session" is reported when the loop closes).
* :func:`spawn` schedules a coroutine as a task on the loop running in this thread (a Jupyter
  kernel's loop): the caller returns at once and the work goes on in the background.

Nothing else in the package calls ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["running_loop", "spawn", "run_sync", "in_notebook", "at_loop_end"]

T = TypeVar("T")

log = logging.getLogger("tooleval_nb")

_TASKS: set[asyncio.Task[Any]] = set()
_LOOP_END: list[Callable[[], Awaitable[Any]]] = []


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def spawn(coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
    """Schedule ``coro`` on the running loop and return its task (a strong reference is kept
    until it finishes, so the task cannot be garbage-collected mid-run)."""
    loop = running_loop()
    if loop is None:
        coro.close()
        raise RuntimeError("spawn() needs a running event loop; use run_sync() from plain code")
    task = loop.create_task(coro, name=name)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
    return task


def at_loop_end(hook: Callable[[], Awaitable[Any]]) -> None:
    """Await ``hook()`` before every loop :func:`run_sync` created ends (once per hook; a hook
    that fails is logged and never hides the result)."""
    if hook not in _LOOP_END:
        _LOOP_END.append(hook)


async def _then_hooks(work: Coroutine[Any, Any, T] | Callable[[], Coroutine[Any, Any, T]]) -> T:
    try:
        return await (work if isinstance(work, Coroutine) else work())
    finally:
        for hook in tuple(_LOOP_END):
            try:
                await hook()
            except Exception:  # cleanup must never replace the result or the real error
                log.exception("closing hook %r failed", hook)


def run_sync(
    work: Coroutine[Any, Any, T] | Callable[[], Coroutine[Any, Any, T]],
    *,
    thread_name: str = "tooleval-run-sync",
) -> T:
    """Run a coroutine (or the one ``work()`` builds, inside the loop's thread) to completion and
    return its result; its exception propagates (see the module docstring)."""
    if running_loop() is None:
        return asyncio.run(_then_hooks(work))
    box: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            box["value"] = context.run(asyncio.run, _then_hooks(work))
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name=thread_name, daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def in_notebook() -> bool:
    """Whether we run inside an IPython kernel (Jupyter), where widgets can display."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
