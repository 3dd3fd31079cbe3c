"""One memo for values computed from a list of objects that a run does not change once handed
over (the tools of a suite): keyed by the identity of the list's items, not by their content,
so a hit costs a tuple of ids instead of a hash or a dump of the items (pure; imports nothing
of ours)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

__all__ = ["IdentityMemo"]

T = TypeVar("T")


class IdentityMemo(Generic[T]):
    """``memo(items)`` is ``make(items)``, computed once per identity of the items.

    The items are kept with the value, so their ids cannot be reused by other objects while the
    entry lives, and a hit checks each item is the one stored. The memo is cleared when it holds
    more than ``limit`` entries.
    """

    def __init__(self, make: Callable[[Sequence[Any]], T], limit: int = 1024) -> None:
        self._make = make
        self._limit = limit
        self._entries: dict[tuple[int, ...], tuple[list[Any], T]] = {}

    def __call__(self, items: Sequence[Any]) -> T:
        key = tuple(map(id, items))
        hit = self._entries.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], items, strict=True)):
            return hit[1]
        if len(self._entries) > self._limit:
            self._entries.clear()
        value = self._make(items)
        self._entries[key] = (list(items), value)
        return value
