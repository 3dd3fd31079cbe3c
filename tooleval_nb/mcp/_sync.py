"""The MCP package's sync bridge: :func:`tooleval_nb.aio.run_sync`, given a function that builds
the coroutine (it is built on the loop that runs it). Outside an event loop that is
``asyncio.run``; inside one (a notebook cell) a fresh loop in a worker thread, never nested, never
``nest_asyncio``; every MCP operation is bounded by its timeouts."""

from __future__ import annotations

from ..aio import run_sync

__all__ = ["run_sync"]
