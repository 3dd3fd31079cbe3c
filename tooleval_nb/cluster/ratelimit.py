"""One rpm / tpm budget shared by every replica: a Ray actor holding the run's limiter.

The runner builds one :class:`~tooleval_nb.runner.limits.RateLimiter` per provider group; on a
cluster that limiter is moved into a :class:`RateLimitHolder` actor (one per group and job), and
each replica calls it through a :class:`SharedLimiter`, which behaves as the limiter does
(``active``, ``acquire``, ``settle``). The actor serves its waiters in arrival order, so N
replicas together never send more than the budget in any 60-second window.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RateLimitHolder", "SharedLimiter"]


class RateLimitHolder:
    """The actor's body (``ray.remote`` is applied by :mod:`.backend`): wraps a limiter.

    Args:
        limiter: the run's limiter for one provider group (its clock and sleep travel with it).
    """

    def __init__(self, limiter: Any) -> None:
        self.limiter = limiter
        self._handles: dict[int, Any] = {}
        self._next = 0

    async def acquire(self, tokens: float) -> int | None:
        """Wait for a slot; returns the id to settle it with."""
        handle = await self.limiter.acquire(tokens)
        if handle is None:
            return None
        self._next += 1
        self._handles[self._next] = handle
        return self._next

    def settle(self, handle_id: int, tokens: float | None) -> None:
        """Replace a request's estimated tokens by what it used."""
        handle = self._handles.pop(handle_id, None)
        self.limiter.settle(handle, tokens)


class SharedLimiter:
    """What a replica gives the runner as its limiter: calls go to the shared actor."""

    active = True

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, tokens: float = 0.0) -> int | None:
        return await self.actor.acquire.remote(tokens)  # type: ignore[no-any-return]

    def settle(self, handle: int | None, tokens: float | None) -> None:
        if handle is not None:
            self.actor.settle.remote(handle, tokens)  # nothing waits for it
