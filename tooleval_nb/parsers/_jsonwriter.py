"""Re-writing one JSON value incrementally, in the form ``json.dumps`` writes it.

:class:`JsonWriter` reads a JSON value a piece at a time and writes it again in the canonical
form of a whole-text parse (``json.dumps(value, ensure_ascii=False)``): strings stream (escapes
decoded and re-encoded, an escape or a surrogate pair split between pieces held, never split),
numbers and literals are written when they end, separators and keys only once the value after
them starts. So every prefix it wrote is the start of the final text, and
:meth:`JsonWriter.close` ends a value cut short with the closers it needs (``"`` and brackets).
The call streams (:mod:`._jsonstream`) write arguments with it; the streaming reconstructor
checks with it that fragments only append.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable

__all__ = ["JsonWriter", "encode_text"]

_DECODER = json.JSONDecoder(strict=False)
_WS = re.compile(r"[ \t\n\r]*")
#: complete pieces of a JSON string body: plain runs and whole escapes; a high surrogate escape
#: is taken with the low one after it, or alone once what follows cannot be one
_STR_BODY = re.compile(
    r'(?:[^"\\]+|\\u(?![dD][89abAB])[0-9a-fA-F]{4}'
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[0-9a-fA-F]{4}"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}(?=[^\\]|\\[^u])"
    r"|\\[^u])*"
)
#: what may still become a complete escape when more text arrives
_ESC_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,4}(?:\\(?:u[0-9a-fA-F]{0,4})?)?)?\Z")
_SCALAR = re.compile(r"[A-Za-z0-9.+\-]*")
_MAX_SCALAR = 512
_MAX_KEY = 4096


def encode_text(text: str) -> str:
    """``text`` as it appears inside a JSON string written by ``json.dumps(...,
    ensure_ascii=False)`` (without the quotes)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


class JsonWriter:
    """Re-write one JSON value incrementally in ``json.dumps`` form (see the module docstring).

    ``out`` receives the canonical fragments (None: only check the value). :meth:`feed` returns
    how many characters of its text belong to the value; fewer than all once the value ended
    (:attr:`done`) or turned out invalid (:attr:`error`).
    """

    __slots__ = (
        "out",
        "_stack",
        "_expect",
        "_pending",
        "_string",
        "_key",
        "_keys",
        "_held",
        "done",
        "error",
        "duplicate",
        "on_text",
    )

    def __init__(self, out: list[str] | None, on_text: Callable[[str], None] | None = None) -> None:
        self.out = out
        #: when set, receives the decoded text of string values instead of ``out`` (a JSON
        #: string whose text is itself JSON: OpenAI's string arguments)
        self.on_text = on_text
        self._stack: list[str] = []
        self._expect = "value"  # value | first_value | key | first_key | colon | next
        self._pending = ""
        self._string: str | None = None  # "key" | "value" while inside a string
        self._key: list[str] = []
        self._keys: set[str] | None = None
        self._held = ""
        self.done = False
        self.error: str | None = None
        #: a key written twice in the outermost object (json.loads keeps the last value)
        self.duplicate: str | None = None

    @property
    def started(self) -> bool:
        return bool(self._stack) or self._string is not None or self.done

    def feed(self, text: str, final: bool = False) -> int:
        if self.done or self.error is not None:
            return 0
        held = len(self._held)
        data = self._held + text if held else text
        self._held = ""
        i = self._run(data, 0, final)
        if self.done or self.error is not None:
            return max(0, i - held)
        self._held = data[i:]
        return len(text)

    def finish(self) -> None:
        """The text ended: a number or literal held at the end is complete now."""
        if not self.done and self.error is None and self._held:
            data, self._held = self._held, ""
            self._run(data, 0, True)

    def close(self) -> None:
        """End a value cut short: the closing quote and brackets it needs (if it started)."""
        if self.out is None or self.done:
            return
        tail = '"' if self._string == "value" else ""
        closers = "".join(reversed(self._stack))
        if tail or closers:
            self.out.append(tail + closers)
        self._stack, self._string = [], None

    # ---------------------------------------------------------------- internals
    def _put(self, text: str) -> None:
        if self.out is not None:
            if self._pending:
                self.out.append(self._pending)
                self._pending = ""
            self.out.append(text)

    def _fail(self, reason: str, i: int) -> int:
        self.error = reason
        return i

    def _after_value(self) -> None:
        if self._stack:
            self._expect = "next"
        else:
            self.done = True

    def _pop(self) -> None:
        """Close the innermost object or list."""
        self._put(self._stack.pop())
        self._after_value()

    def _run(self, data: str, i: int, final: bool) -> int:
        n = len(data)
        while i < n and not self.done:
            if self._string is not None:
                j = _STR_BODY.match(data, i).end()  # type: ignore[union-attr]
                if j > i:
                    try:
                        piece = _DECODER.decode('"' + data[i:j] + '"')
                    except ValueError as exc:
                        return self._fail(f"invalid string ({exc})", i)
                    if self._string == "key":
                        self._key.append(piece)
                        if sum(map(len, self._key)) > _MAX_KEY:
                            return self._fail("an object key is too long", i)
                    elif piece:
                        if self.on_text is not None:
                            self.on_text(piece)
                        else:
                            self._put(encode_text(piece))
                i = j
                if i >= n:
                    break
                if data[i] == '"':
                    i += 1
                    if self._string == "key":
                        key = "".join(self._key)
                        if self._keys is not None and len(self._stack) == 1:
                            if key in self._keys and self.duplicate is None:
                                self.duplicate = key
                            self._keys.add(key)
                        self._pending += json.dumps(key, ensure_ascii=False) + ": "
                        self._expect = "colon"
                    else:
                        self._put('"')
                        self._after_value()
                    self._string = None
                    continue
                if not final and _ESC_PREFIX.match(data, i):
                    return i  # an escape split across pieces: hold it
                return self._fail(f"invalid escape {data[i : i + 6]!r}", i)
            i = _WS.match(data, i).end()  # type: ignore[union-attr]
            if i >= n:
                break
            char = data[i]
            expect = self._expect
            if expect == "colon":
                if char != ":":
                    return self._fail(f"{char!r} where ':' was expected", i)
                self._expect = "value"
                i += 1
            elif expect == "next":
                if char == ",":
                    self._pending = ", "
                    self._expect = "key" if self._stack[-1] == "}" else "value"
                    i += 1
                elif char == self._stack[-1]:
                    self._pending = ""
                    self._pop()
                    i += 1
                else:
                    return self._fail(f"{char!r} where ',' or {self._stack[-1]!r} was expected", i)
            elif expect in ("key", "first_key"):
                if char == '"':
                    self._string, self._key = "key", []
                    i += 1
                elif char == "}" and expect == "first_key":
                    self._pop()
                    i += 1
                else:
                    return self._fail(f"{char!r} where an object key was expected", i)
            else:  # a value
                if char == "]" and expect == "first_value":
                    self._pop()
                    i += 1
                elif char == "{":
                    self._put("{")
                    self._stack.append("}")
                    if len(self._stack) == 1:
                        self._keys = set()
                    self._expect = "first_key"
                    i += 1
                elif char == "[":
                    self._put("[")
                    self._stack.append("]")
                    self._expect = "first_value"
                    i += 1
                elif char == '"':
                    self._put('"')
                    self._string = "value"
                    i += 1
                else:
                    j = _SCALAR.match(data, i).end()  # type: ignore[union-attr]
                    if j == i:
                        return self._fail(f"unexpected {char!r}", i)
                    if j - i > _MAX_SCALAR:
                        return self._fail("a number or literal is too long", i)
                    if j >= n and not final:
                        return i  # the number may go on: hold it
                    try:
                        value = _DECODER.decode(data[i:j])
                    except ValueError:
                        return self._fail(f"{data[i:j][:30]!r} is not a JSON value", i)
                    if isinstance(value, float) and not math.isfinite(value):
                        return self._fail(f"{data[i:j][:30]!r} is not a JSON number", i)
                    self._put(json.dumps(value))
                    i = j
                    self._after_value()
        return i
