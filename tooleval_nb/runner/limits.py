"""Requests-per-minute and tokens-per-minute limits for one provider group (sliding 60 s window)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

__all__ = ["RateLimiter"]

WINDOW = 60.0


class RateLimiter:
    """Wait before a request so that no 60-second window holds more than ``rpm`` requests or
    ``tpm`` tokens. Waiters are served in arrival order.

    Args:
        rpm: requests per minute, or None for no limit.
        tpm: tokens per minute (prompt + completion, estimated before and corrected after each
            request with :meth:`settle`), or None for no limit.
        clock, sleep: injectable for tests (a fake clock needs no real waiting).
    """

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self._clock = clock
        self._sleep = sleep
        self._requests: deque[float] = deque()
        self._tokens: deque[list[float]] = deque()  # [time, tokens] (tokens settled later)
        self._lock: asyncio.Lock | None = None

    @property
    def active(self) -> bool:
        return self.rpm is not None or self.tpm is not None

    def _prune(self, now: float) -> None:
        while self._requests and now - self._requests[0] >= WINDOW:
            self._requests.popleft()
        while self._tokens and now - self._tokens[0][0] >= WINDOW:
            self._tokens.popleft()

    def delay(self, tokens: float = 0.0) -> float:
        """Seconds to wait before a request of ``tokens`` may start (0 when it may start now)."""
        now = self._clock()
        self._prune(now)
        wait = 0.0
        if self.rpm is not None and len(self._requests) >= self.rpm:
            index = len(self._requests) - int(self.rpm)
            wait = max(wait, self._requests[index] + WINDOW - now)
        if self.tpm is not None and self._tokens:
            used = sum(t for _, t in self._tokens)
            if used + tokens > self.tpm:
                # wait until enough old entries leave the window
                excess = used + tokens - self.tpm
                for ts, t in self._tokens:
                    excess -= t
                    if excess <= 0:
                        wait = max(wait, ts + WINDOW - now)
                        break
        return max(wait, 0.0)

    async def acquire(self, tokens: float = 0.0) -> list[float] | None:
        """Wait for a slot; returns a handle for :meth:`settle` (None when no limit is set)."""
        if not self.active:
            return None
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                wait = self.delay(tokens)
                if wait <= 0:
                    break
                await self._sleep(wait)
            now = self._clock()
            self._requests.append(now)
            entry = [now, float(tokens)]
            if self.tpm is not None:
                self._tokens.append(entry)
            return entry

    @staticmethod
    def settle(handle: list[float] | None, tokens: float | None) -> None:
        """Replace a request's estimated tokens by the tokens it really used."""
        if handle is not None and tokens is not None:
            handle[1] = float(tokens)
