"""The models layer's sync bridge: :func:`tooleval_nb.aio.run_sync`, which also closes the HTTP
session (and litellm's logging worker) opened on a loop it created, before that loop ends."""

from __future__ import annotations

from ..aio import at_loop_end, run_sync

__all__ = ["run_sync"]


async def _close_http() -> None:
    from .direct import aclose

    await aclose()


at_loop_end(_close_http)
