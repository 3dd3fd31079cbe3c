"""Incremental scanning primitives shared by the streaming parsers.

Two scanners, both *incremental*: they are handed the data that arrived since the last call
(plus a short held tail) and keep their position and state between calls, so that feeding an
output of n characters costs O(n) in total.

* :class:`MarkerFinder` finds the earliest of a few literal markers (``<tool_call>``,
  ``[TOOL_CALLS]``) and says how many trailing characters must be held back because they might
  be the start of a marker split across two deltas.
* :class:`BracketScanner` follows one bracketed region (a JSON value, or a Python list of calls)
  through strings and escapes until its brackets balance, a closer does not match, or the region
  turns out not to start like a value at all.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["MarkerFinder", "BracketScanner", "ScanStatus"]

#: ``more``: everything up to the returned index is part of the region, feed more data;
#: ``closed``: the region ended just before the returned index;
#: ``mismatch``: a closer that does not match (or a newline inside a one-line Python string)
#: ended the region just before the returned index;
#: ``abort``: the region does not start like a value; the character at the returned index is
#: not part of it.
ScanStatus = Literal["more", "closed", "mismatch", "abort"]

_CLOSER = {"[": "]", "{": "}", "(": ")"}
_OUT_JSON = re.compile(r'[\[\]{}"]')
_OUT_PY = re.compile(r"[\[\](){}\"']")
_IN_STR = {
    '"': re.compile(r'["\\]'),
    "'": re.compile(r"['\\]"),
}
_IN_STR_PY = {
    '"': re.compile(r'["\\\n]'),
    "'": re.compile(r"['\\\n]"),
}
_WS = re.compile(r"\s*")
#: characters that may start a JSON value inside an array
_JSON_ARRAY_FIRST = frozenset('{["-0123456789tfn]')


class MarkerFinder:
    """Find the earliest of several literal markers, holding back a possible partial marker."""

    __slots__ = ("markers", "_regex", "_prefixes", "_firsts", "_longest")

    def __init__(self, *markers: str) -> None:
        self.markers = markers
        self._regex = re.compile("|".join(re.escape(m) for m in markers))
        # every proper prefix of every marker (a possible marker split across two deltas)
        self._prefixes = frozenset(m[:k] for m in markers for k in range(1, len(m)))
        self._firsts = frozenset(p[0] for p in self._prefixes)
        self._longest = max(len(m) for m in markers)

    def find(
        self, data: str, pos: int, final: bool, end: int | None = None
    ) -> tuple[int, str | None]:
        """Search ``data[pos:end]``.

        Returns ``(index, marker)`` for the earliest marker, or ``(safe_end, None)``: the text in
        ``data[pos:safe_end]`` cannot be part of a marker, ``data[safe_end:end]`` might be (held
        back unless ``final``).
        """
        if end is None:
            end = len(data)
        match = self._regex.search(data, pos, end)
        if match is not None:
            start = match.start()
            if not final and end - start < self._longest and data[start:end] in self._prefixes:
                return start, None  # "[" may be the start of "[TOOL_CALLS]": wait
            return start, match.group()
        if final:
            return end, None
        firsts, prefixes = self._firsts, self._prefixes
        for i in range(max(pos, end - self._longest + 1), end):
            if data[i] in firsts and data[i:end] in prefixes:
                return i, None
        return end, None


class BracketScanner:
    """Follow one bracketed region incrementally (JSON, or Python literal syntax).

    The first call must start at the opening bracket. ``scan`` may return an index below
    ``len(data)`` with status ``more``: the caller holds ``data[index:]`` (at most three
    characters: an escape or a possible triple quote) and passes it again with the next data.
    """

    __slots__ = ("_python", "_stack", "_quote", "_first", "_started")

    def __init__(self, *, python: bool = False, first: str = "value") -> None:
        """
        Args:
            python: Python syntax (single, double and triple quotes; parentheses; one-line
                strings end at a newline) instead of JSON.
            first: what must follow the opening bracket (after whitespace): ``"value"`` (a JSON
                object key or array element), ``"identifier"`` (a Python name, as in a list of
                calls) or ``"any"``.
        """
        self._python = python
        self._stack: list[str] = []
        self._quote: str | None = None
        self._first: str | None = first
        self._started = False

    @property
    def depth(self) -> int:
        return len(self._stack)

    def scan(self, data: str, pos: int, final: bool) -> tuple[int, ScanStatus]:
        """Advance over ``data[pos:]``; see :data:`ScanStatus` for the meaning of the result."""
        n = len(data)
        i = pos
        out_re = _OUT_PY if self._python else _OUT_JSON
        while i < n:
            if self._first is not None and self._started:
                i = _WS.match(data, i).end()  # type: ignore[union-attr]
                if i >= n:
                    return n, "more"
                if not self._first_ok(data[i]):
                    return i, "abort"
                self._first = None
            quote = self._quote
            if quote is None:
                match = out_re.search(data, i)
                if match is None:
                    return n, "more"
                j = match.start()
                char = data[j]
                if char in _CLOSER:
                    self._stack.append(_CLOSER[char])
                    if not self._started:
                        self._started = True
                        if self._first == "any":
                            self._first = None
                    i = j + 1
                elif char in "]})":
                    if not self._stack or self._stack.pop() != char:
                        return j + 1, "mismatch"
                    if not self._stack:
                        return j + 1, "closed"
                    i = j + 1
                else:  # a quote
                    if self._python:
                        if j + 3 <= n:
                            if data.startswith(char * 3, j):
                                self._quote = char * 3
                                i = j + 3
                                continue
                        elif not final and data[j:] == char * (n - j):
                            return j, "more"  # '' or ' at the end: maybe a triple quote
                    self._quote = char
                    i = j + 1
            else:
                q = quote[0]
                table = _IN_STR_PY if self._python and len(quote) == 1 else _IN_STR
                match = table[q].search(data, i)
                if match is None:
                    return n, "more"
                j = match.start()
                char = data[j]
                if char == "\\":
                    if j + 1 >= n:
                        if final:
                            return n, "more"
                        return j, "more"  # hold the backslash until its escaped char arrives
                    i = j + 2
                elif char == "\n":
                    return j, "mismatch"  # one-line Python string not closed on its line
                elif len(quote) == 3:
                    if j + 3 <= n:
                        if data.startswith(quote, j):
                            self._quote = None
                            i = j + 3
                        else:
                            i = j + 1
                    elif not final and data[j:] == q * (n - j):
                        return j, "more"
                    else:
                        i = j + 1
                else:
                    self._quote = None
                    i = j + 1
        return n, "more"

    def follow(
        self, region: list[str], data: str, pos: int, final: bool
    ) -> tuple[int, ScanStatus | None]:
        """:meth:`scan`, appending the scanned text to ``region``.

        The status is None when the caller must wait for more data (holding ``data[index:]``);
        ``more`` comes back only with ``final``: the region never closed.
        """
        end, status = self.scan(data, pos, final)
        region.append(data[pos:end])
        return end, (None if status == "more" and not final else status)

    def _first_ok(self, char: str) -> bool:
        if self._first == "identifier":
            return char.isidentifier()
        # "value": a JSON object must start with a key (or close), an array with a value
        if self._stack and self._stack[0] == "}":
            return char in '"}'
        return char in _JSON_ARRAY_FIRST
