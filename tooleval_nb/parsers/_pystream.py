"""The call stream of the Python-syntax formats (``[f(a=1, b='x')]``; see :mod:`._callstream`).

A call is sent at the ``(`` after its (dotted) name. Its arguments are written as JSON as they
become certain:

* a string literal (no prefix, or ``u``) streams inside its quotes: escapes are decoded as
  Python decodes them (an escape split across pieces is held), implicitly concatenated literals
  (``'a' 'b'``) continue the same JSON string, and the closing quote is sent when the value ends
  (at the ``,`` or ``)`` after it);
* any other value (numbers, ``True`` / ``None``, lists, dicts, raw or byte strings) is sent when
  it ends, as ``ast.literal_eval`` reads it (never ``eval``);
* positional arguments take the parameter names of the tool's schema, in order.
"""

from __future__ import annotations

import ast
import json
import keyword
import re
import warnings
from collections.abc import Callable
from typing import Any

from ._callstream import CallStream, HeldStream, StreamCall
from ._jsonwriter import encode_text
from ._pycalls import _literal
from .protocol import ToolSchemas

__all__ = ["PyCallStream", "python_stream"]

_WS = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)")
_MAYBE_KEYWORD = re.compile(r"[A-Za-z_]\w*\s*=?\Z")
_STRING_START = re.compile(r"([rRbBuUfF]{0,2})('''|\"\"\"|'|\")")
_HELD_STOP = re.compile(r"[\[\](){}'\",]")
_SIMPLE_ESCAPES = frozenset("\n\\'\"abfnrtv")
_MAX_NAME = 512
_MAX_HELD_PIECE = 1 << 20


class PyCallStream(HeldStream):
    """Stream a Python list of calls, or (``lines``) calls one per line (Olmo 3)."""

    def __init__(
        self, schemas: ToolSchemas | None, *, lines: bool = False, json_literals: bool = False
    ) -> None:
        super().__init__()
        self.schemas = schemas
        self.lines = lines
        self.json_literals = json_literals
        self._state = "top"  # top | item | name | arg | value | str | str_after | arg_sep
        #                      | after_call | after_list
        self._in_list = False
        self._call: StreamCall | None = None
        self._nargs = 0
        self._npos = 0
        self._keys: set[str] = set()
        self._keyword_seen = False
        self._quote = ""
        self._held_value: list[str] = []
        self._held_len = 0
        self._depth = 0
        self._hquote = ""

    # ---------------------------------------------------------------- plumbing
    def _end_body(self, closed: bool) -> None:
        if self._state in ("top", "after_call") and self.lines and self.calls:
            return
        if self._state == "after_list" or (self._state == "top" and self.calls):
            return
        self._fail("the call list is not complete" if self.calls else "it holds no call")

    def _repair(self, call: StreamCall) -> None:
        if call is self._call:
            if self._state == "str_after" or self._state == "str":
                call.parts.append('"}')
            else:
                call.parts.append("}" if self._nargs else "{}")
        elif not call.parts:
            call.parts.append("{}")

    # ---------------------------------------------------------------- the machine
    def _run(self, data: str, final: bool) -> int:  # noqa: C901 - one state machine
        i, n = 0, len(data)
        while i < n and self.error is None:
            state = self._state
            if state in ("str", "value"):
                i = (
                    self._string(data, i, final)
                    if state == "str"
                    else self._held_scan(data, i, final)
                )
                if i < 0:
                    return -i - 1  # hold from there
                continue
            i = _WS.match(data, i).end()  # type: ignore[union-attr]
            if i >= n:
                return i
            char = data[i]
            if state in ("top", "after_call") and not self._in_list:
                if char == "[" and (self.lines or state == "top"):
                    self._in_list, self._state = True, "item"
                    i += 1
                elif self.lines and (state == "top" or state == "after_call"):
                    self._state = "name"
                elif state == "after_call":
                    self._fail(f"text follows the calls ({data[i : i + 20]!r})")
                else:
                    self._fail(f"{char!r} does not start a list of calls")
            elif state == "item":
                if char == "]" and (self.calls or self._state == "item"):
                    if not self.calls:
                        self._fail("the list holds no call")
                        return i
                    self._in_list = False
                    self._state = "after_list" if not self.lines else "top"
                    self.done_at = self._base + i + 1
                    i += 1
                else:
                    self._state = "name"
            elif state == "after_list":
                self._fail(f"text follows the list ({data[i : i + 20]!r})")
            elif state == "name":
                m = _NAME.match(data, i)
                if m is None:
                    self._fail(f"{char!r} does not start a call")
                    return i
                j = _WS.match(data, m.end()).end()  # type: ignore[union-attr]
                if not final and (j >= n or (data[j] == "." and j + 1 >= n)):
                    if n - i > _MAX_NAME:
                        self._fail("the function name is too long")
                    return i  # the name may go on
                if j >= n or data[j] != "(":
                    self._fail(f"{m.group()[:40]!r} is not followed by '('")
                    return i
                name = m.group()
                if any(keyword.iskeyword(part) for part in name.split(".")):
                    self._fail(f"{name!r} is not a function name")
                    return i
                self._call = StreamCall(name)
                self.calls.append(self._call)
                self._nargs, self._npos, self._keys, self._keyword_seen = 0, 0, set(), False
                self._state = "arg"
                i = j + 1
            elif state == "arg":
                if char == ")":
                    self._close_call()
                    i += 1
                    continue
                m = _KEYWORD.match(data, i)
                if m is None and not final and _MAYBE_KEYWORD.match(data, i):
                    return i  # "ci" or "city=" at the end: a keyword or a value, wait
                if m is not None:
                    key = m.group(1)
                    self._keyword_seen = True
                    i = m.end()
                else:
                    if self._keyword_seen:
                        self._fail("a positional argument follows a keyword argument")
                        return i
                    key_or_none = self._positional()
                    if key_or_none is None:
                        return i
                    key = key_or_none
                if key in self._keys:
                    self._fail(f"the argument {key!r} is given twice")
                    return i
                self._keys.add(key)
                self._key = key
                self._state = "value_start"
            elif state == "value_start":
                m = _STRING_START.match(data, i)
                if m is not None and not final and m.end() == n and m.group(2) in "'\"":
                    return i  # ' or '' at the end: maybe a triple quote
                if m is not None and m.group(1) in ("", "u", "U"):
                    self._put_key()
                    self._emit('"')
                    self._quote = m.group(2)
                    self._state = "str"
                    i = m.end()
                elif (
                    m is None
                    and not final
                    and data[i:] in ("r", "b", "u", "f", "R", "B", "U", "F")
                    and i + 1 >= n
                ):
                    return i
                else:
                    self._held_value, self._depth, self._hquote = [], 0, ""
                    self._held_len = 0
                    self._state = "value"
            elif state == "str_after":
                m = _STRING_START.match(data, i)
                if m is not None and not final and m.end() == n and m.group(2) in "'\"":
                    return i
                if m is not None and m.group(1) in ("", "u", "U"):
                    self._quote = m.group(2)
                    self._state = "str"
                    i = m.end()
                elif char in ",)":
                    self._emit('"')
                    self._state = "arg_sep"
                else:
                    self._fail(f"{char!r} follows a string argument")
            elif state == "arg_sep":
                if char == ",":
                    self._state = "arg"
                    i += 1
                elif char == ")":
                    self._close_call()
                    i += 1
                else:
                    self._fail(f"{char!r} where ',' or ')' was expected")
            else:  # after_call inside a list
                if char == ",":
                    self._state = "item"
                    i += 1
                elif char == "]":
                    self._in_list = False
                    self._state = "after_list" if not self.lines else "top"
                    self.done_at = self._base + i + 1
                    i += 1
                else:
                    self._fail(f"{char!r} where ',' or ']' was expected")
        return i

    # ---------------------------------------------------------------- arguments
    def _positional(self) -> str | None:
        call = self._call
        assert call is not None
        params = (
            list(self.schemas[call.name or ""])
            if self.schemas is not None and call.name in self.schemas
            else None
        )
        if params is None or self._npos >= len(params):
            self._fail(
                f"({call.name}) has positional arguments and no tool schema gives their names"
            )
            return None
        self._npos += 1
        return params[self._npos - 1]

    _key = ""

    def _emit(self, text: str) -> None:
        assert self._call is not None
        self._call.parts.append(text)

    def _put_key(self) -> None:
        lead = "{" if self._nargs == 0 else ", "
        self._emit(lead + json.dumps(self._key, ensure_ascii=False) + ": ")
        self._nargs += 1

    def _close_call(self) -> None:
        assert self._call is not None
        self._emit("}" if self._nargs else "{}")
        self._call.closed = True
        self._call = None
        self._state = "after_call"

    def _string(self, data: str, i: int, final: bool) -> int:
        """Inside a streamed string literal; returns the next index, or ``-(hold) - 1``."""
        quote = self._quote
        q = quote[0]
        n = len(data)
        out: list[str] = []
        try:
            while i < n:
                stops = "\\" + q if len(quote) == 3 else "\\" + q + "\n"
                j = i
                while j < n and data[j] not in stops:
                    j += 1
                out.append(data[i:j])
                i = j
                if i >= n:
                    break
                char = data[i]
                if char == "\n":
                    self._fail("a one-line string is not closed on its line")
                    return i
                if char == q:
                    if len(quote) == 3:
                        if data.startswith(quote, i):
                            i += 3
                            self._state = "str_after"
                            return i
                        if not final and i + 3 > n and data[i:] == q * (n - i):
                            return -i - 1
                        out.append(char)
                        i += 1
                        continue
                    i += 1
                    self._state = "str_after"
                    return i
                # an escape
                length = _escape_length(data, i, final)
                if length is None:
                    return -i - 1
                out.append(_decode_escape(data[i : i + length], q))
                i += length
            return i
        except ValueError as exc:
            self._fail(f"invalid escape in a string ({exc})")
            return i
        finally:
            text = "".join(out)
            if text and self._call is not None:
                self._emit(encode_text(text))

    def _held_scan(self, data: str, i: int, final: bool) -> int:
        """A value sent when it ends: collect it up to the ``,`` or ``)`` after it."""
        n = len(data)
        start = i
        while i < n:
            if self._hquote:
                q = self._hquote
                j = i
                while j < n and data[j] not in ("\\", q[0]):
                    j += 1
                if j >= n:
                    i = n
                    break
                if data[j] == "\\":
                    if j + 1 >= n and not final:
                        self._hold_piece(data[start:j])
                        return -j - 1
                    i = j + 2
                    continue
                if len(q) == 3:
                    if data.startswith(q, j):
                        self._hquote, i = "", j + 3
                    elif not final and j + 3 > n:
                        self._hold_piece(data[start:j])
                        return -j - 1
                    else:
                        i = j + 1
                else:
                    self._hquote, i = "", j + 1
                continue
            m = _HELD_STOP.search(data, i)
            if m is None:
                i = n
                break
            j = m.start()
            char = data[j]
            if char in "'\"":
                if data.startswith(char * 3, j):
                    self._hquote, i = char * 3, j + 3
                elif not final and j + 3 > n and data[j:] == char * (n - j):
                    self._hold_piece(data[start:j])
                    return -j - 1
                else:
                    self._hquote, i = char, j + 1
            elif char in "([{":
                self._depth += 1
                i = j + 1
            elif self._depth and char in ")]},":
                self._depth -= char != ","
                i = j + 1
            elif char in ",)":
                self._hold_piece(data[start:j])
                self._end_held()
                return j
            else:
                self._fail(f"{char!r} does not close a bracket")
                return j
        self._hold_piece(data[start:i])
        if self._held_len > _MAX_HELD_PIECE * 8:
            self._fail("an argument value is too long")
        return i

    def _hold_piece(self, piece: str) -> None:
        """Collect a piece of a value sent when it ends (its length counted as it grows: summing
        the pieces at every delta made a long value quadratic)."""
        self._held_value.append(piece)
        self._held_len += len(piece)

    def _end_held(self) -> None:
        text = "".join(self._held_value).strip()
        self._held_value, self._held_len = [], 0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            self._fail(f"argument {self._key!r} is not a literal ({type(exc).__name__})")
            return
        value, problem = _literal(node, self.json_literals)
        if problem:
            self._fail(f"argument {self._key!r} {problem}")
            return
        self._put_key()
        self._emit(json.dumps(value, ensure_ascii=False, allow_nan=False))
        self._state = "arg_sep"


def _escape_length(data: str, i: int, final: bool) -> int | None:
    """The length of the escape at ``data[i]`` (a backslash); None: wait for more text."""
    n = len(data)
    if i + 1 >= n:
        return 2 if final else None
    char = data[i + 1]
    if char in "01234567":
        j = i + 1
        while j < n and j < i + 4 and data[j] in "01234567":
            j += 1
        if j < i + 4 and j >= n and not final:
            return None
        return j - i
    need = {"x": 4, "u": 6, "U": 10}.get(char)
    if need is not None:
        if i + need > n and not final:
            return None
        return need
    if char == "N":
        end = data.find("}", i)
        if end < 0:
            return None if not final and n - i < 128 else n - i
        return end + 1 - i
    return 2


def _decode_escape(escape: str, quote: str) -> str:
    """What a Python string escape stands for (unknown escapes keep their backslash)."""
    char = escape[1:2]
    if len(escape) == 2 and char not in _SIMPLE_ESCAPES and char not in "01234567":
        return escape  # '\d' stays '\d', as Python reads it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value: Any = ast.literal_eval(quote + escape + quote)
    if not isinstance(value, str):
        raise ValueError(escape)
    return value


def python_stream(
    *, lines: bool = False, json_literals: bool = False
) -> Callable[[ToolSchemas | None], CallStream]:
    """A stream factory for :class:`PyCallStream` bodies."""
    return lambda schemas: PyCallStream(schemas, lines=lines, json_literals=json_literals)
