"""Call streams for the XML-ish formats (see :mod:`._callstream`).

* :class:`ElementStream`: ``<function=NAME><parameter=KEY>VALUE</parameter></function>``
  (Qwen3-Coder, Seed-OSS, Step-3.5) and ``<invoke name="NAME"><parameter name="KEY">VALUE
  </parameter></invoke>`` (MiniMax-M2, Step-3's ``steptml:``). The name is certain at the ``>``
  that ends its tag.
* :class:`PairStream`: GLM's ``NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>``; the name
  is certain at the first whitespace or ``<`` after it.
* :class:`~._seqstream.SequenceStream` reads the special-token sections.

Raw-text values are typed as :func:`~._xmlargs.typed_value` types them. A value whose schema type
is ``string`` streams inside its quotes as it arrives (one newline after the opening tag and one
before the closing tag are layout: the first is dropped, a last newline is held until the value
goes on); any other value is sent whole when its closing tag arrives, once its type is certain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ._calls import name_problem
from ._callstream import CallStream, HeldStream, StreamCall
from ._jsonwriter import encode_text
from ._xmlargs import _layout, _types, typed_value
from .protocol import ToolSchemas

__all__ = ["ElementStream", "PairStream", "element_stream", "pair_stream", "partial_end"]

_MAX_NAME = 512
_WS = re.compile(r"\s*")


def partial_end(data: str, marker: str) -> int:
    """Where a possible partial ``marker`` starts at the end of ``data`` (``len(data)`` if none)."""
    for k in range(min(len(marker) - 1, len(data)), 0, -1):
        if data.endswith(marker[:k]):
            return len(data) - k
    return len(data)


class _MarkupStream(HeldStream):
    """Shared machinery: held text between pieces, typed values, the arguments being written."""

    def __init__(self, schemas: ToolSchemas | None) -> None:
        super().__init__()
        self.schemas = schemas
        self._call: StreamCall | None = None
        self._nargs = 0
        self._keys: set[str] = set()
        self._key = ""
        self._streaming = False  # the current value streams inside quotes
        self._raw: list[str] = []
        self._value_chars = 0
        self._nl = False  # a newline held at the end of a streamed value

    # ---------------------------------------------------------------- calls and values
    def _open_call(self, raw_name: str) -> bool:
        name = raw_name.strip().strip('"')
        bad = name_problem(name)
        if bad:
            self._fail(bad)
            return False
        self._call = StreamCall(name)
        self.calls.append(self._call)
        self._nargs, self._keys = 0, set()
        return True

    def _close_call(self, at: int) -> None:
        call = self._call
        assert call is not None
        call.parts.append("}" if self._nargs else "{}")
        call.closed = True
        self._call = None
        self.done_at = at

    def _schema(self, key: str) -> Any:
        call = self._call
        if self.schemas is None or call is None or call.name not in self.schemas:
            return None
        return self.schemas[call.name or ""].get(key)

    def _open_value(self, raw_key: str) -> bool:
        key = raw_key.strip().strip('"')
        if not key:
            self._fail("a parameter has an empty name")
            return False
        if key in self._keys:
            self._fail(f"the parameter {key!r} is written twice")
            return False
        self._keys.add(key)
        self._key = key
        self._raw, self._value_chars, self._nl = [], 0, False
        self._streaming = _types(self._schema(key)) == ["string"]
        if self._streaming:
            self._put_key()
            assert self._call is not None
            self._call.parts.append('"')
        return True

    def _put_key(self) -> None:
        assert self._call is not None
        lead = "{" if self._nargs == 0 else ", "
        self._call.parts.append(lead + json.dumps(self._key, ensure_ascii=False) + ": ")
        self._nargs += 1

    def _value_text(self, text: str) -> None:
        if not text:
            return
        first = self._value_chars == 0
        self._value_chars += len(text)
        if not self._streaming:
            self._raw.append(text)
            return
        assert self._call is not None
        if first and text.startswith("\n"):
            text = text[1:]  # layout after the opening tag
        if not text:
            return
        if self._nl:
            text = "\n" + text
            self._nl = False
        if text.endswith("\n"):  # maybe the layout before the closing tag: hold it
            text, self._nl = text[:-1], True
        if text:
            self._call.parts.append(encode_text(text))

    def _close_value(self) -> None:
        assert self._call is not None
        if self._streaming:
            self._call.parts.append('"')
        else:
            value = typed_value(_layout("".join(self._raw)), self._schema(self._key))
            self._put_key()
            self._call.parts.append(json.dumps(value, ensure_ascii=False, allow_nan=False))
        self._raw, self._streaming = [], False

    def _repair(self, call: StreamCall) -> None:
        if call is self._call and self._nargs:
            call.parts.append('"}' if self._streaming else "}")
        elif not call.parts or (call is self._call and not self._nargs):
            call.parts.append("{}")

    # ---------------------------------------------------------------- text helpers
    def _until(self, data: str, i: int, marker: str, final: bool) -> tuple[int, int]:
        """``(index of marker or -1, end of the text that cannot be part of it)``."""
        idx = data.find(marker, i)
        if idx >= 0:
            return idx, idx
        return -1, len(data) if final else max(i, partial_end(data, marker))

    def _expect(
        self,
        data: str,
        i: int,
        options: tuple[str, ...],
        final: bool,
        why: Callable[[str], str],
    ) -> tuple[str | None, int]:
        """After whitespace, which of ``options`` starts at the position: ``(option, index)``;
        ``(None, index)`` to stop: wait (a partial option at the end), or none of them is there
        (the stream fails with ``why(the text there)``)."""
        i = _WS.match(data, i).end()  # type: ignore[union-attr]
        if i >= len(data):
            return None, i
        rest = data[i:]
        for option in options:
            if rest.startswith(option):
                return option, i
        if final or not any(option.startswith(rest) for option in options):
            self._fail(why(data[i : i + 30]))
        return None, i

    def _in_call(self, text: str) -> str:
        return f"unexpected text {text!r} in the call of {self._call.name if self._call else ''!r}"


class ElementStream(_MarkupStream):
    """``OPEN NAME NAME_END (P_OPEN KEY P_NAME_END VALUE P_CLOSE)* CLOSE`` repeated."""

    def __init__(
        self,
        schemas: ToolSchemas | None,
        open_tag: str,
        name_end: str,
        close_tag: str,
        param: tuple[str, str, str],
        *,
        confirm: bool = False,
    ) -> None:
        """``confirm``: the name is certain only once a parameter or the closing tag follows it
        (a bare ``<function=NAME>`` may be prose)."""
        super().__init__(schemas)
        self.confirm = confirm
        self.open_tag, self.name_end, self.close_tag = open_tag, name_end, close_tag
        self.p_open, self.p_name_end, self.p_close = param
        self._state = "between"  # between | name | params | key | value

    def _run(self, data: str, final: bool) -> int:
        i, n = 0, len(data)
        while i < n and self.error is None:
            state = self._state
            if state == "between":
                option, i = self._expect(data, i, (self.open_tag,), final, self._not_open)
                if option is None:
                    return i
                i += len(option)
                self._state = "name"
            elif state in ("name", "key"):
                stop = data.find(self.name_end if state == "name" else self.p_name_end, i)
                if stop < 0:
                    if n - i > _MAX_NAME:
                        self._fail("a tag name is too long")
                    return i
                if state == "name":
                    if not self._open_call(data[i:stop]):
                        return i
                    if self.confirm and self._call is not None:
                        self._unconfirmed, self._call.name = self._call.name, None
                    self._state = "params"
                    i = stop + len(self.name_end)
                else:
                    if not self._open_value(data[i:stop]):
                        return i
                    self._state = "value"
                    i = stop + len(self.p_name_end)
            elif state == "params":
                option, i = self._expect(
                    data, i, (self.p_open, self.close_tag), final, self._in_call
                )
                if option is None:
                    return i
                i += len(option)
                if self._call is not None and self._call.name is None:
                    self._call.name = self._unconfirmed
                if option == self.close_tag:
                    self._close_call(self._base + i)
                    self._state = "between"
                else:
                    self._state = "key"
            else:  # value
                idx, safe = self._until(data, i, self.p_close, final)
                self._value_text(data[i:safe])
                if idx < 0:
                    return safe
                self._close_value()
                i = idx + len(self.p_close)
                self._state = "params"
        return i

    _unconfirmed: str | None = None

    def _not_open(self, text: str) -> str:
        return f"unexpected text {text!r} where {self.open_tag} was expected"

    def _end_body(self, closed: bool) -> None:
        if self._call is not None and self._call.name is None:
            self._call.name = self._unconfirmed
        if self._state == "params" and self._call is not None:
            self._close_call(self.fed)  # generation stopped after its last value
        elif self._state != "between":
            self._fail("the call is not complete")
        elif not self.calls:
            self._fail("it is empty")


class PairStream(_MarkupStream):
    """GLM: ``NAME`` then ``<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>`` pairs."""

    def _no_value(self, text: str) -> str:
        return f"the argument {self._key!r} has no <arg_value>"

    def __init__(self, schemas: ToolSchemas | None) -> None:
        super().__init__(schemas)
        self._state = "lead"  # lead | name | gap | pairs | key | value_open | value
        self._name: list[str] = []

    def _run(self, data: str, final: bool) -> int:
        i, n = 0, len(data)
        while i < n and self.error is None:
            state = self._state
            if state == "lead":
                i = _WS.match(data, i).end()  # type: ignore[union-attr]
                if i < n:
                    self._state = "name"
            elif state == "name":
                m = re.compile(r"[^\s<]*").match(data, i)
                assert m is not None
                self._name.append(m.group())
                i = m.end()
                if sum(map(len, self._name)) > _MAX_NAME:
                    self._fail("the function name is too long")
                    return i
                if i < n:
                    if not self._open_call("".join(self._name)):
                        return i
                    self._state = "pairs"
            elif state == "pairs":
                option, i = self._expect(data, i, ("<arg_key>",), final, self._in_call)
                if option is None:
                    return i
                i += len(option)
                self._state = "key"
            elif state == "key":
                stop = data.find("</arg_key>", i)
                if stop < 0:
                    if n - i > _MAX_NAME:
                        self._fail("an <arg_key> is too long")
                    return i
                if not self._open_value(data[i:stop]):
                    return i
                i = stop + len("</arg_key>")
                self._state = "value_open"
            elif state == "value_open":
                option, i = self._expect(data, i, ("<arg_value>",), final, self._no_value)
                if option is None:
                    return i
                i += len(option)
                self._state = "value"
            else:  # value
                idx, safe = self._until(data, i, "</arg_value>", final)
                self._value_text(data[i:safe])
                if idx < 0:
                    return safe
                self._close_value()
                i = idx + len("</arg_value>")
                self._state = "pairs"
        return i

    def _end_body(self, closed: bool) -> None:
        if self._state == "name" and self._call is None:
            self._open_call("".join(self._name))
        if self.error is None and self._call is not None and self._state in ("name", "pairs"):
            self._close_call(self.fed)
        elif self.error is None:
            self._fail("the call is not complete" if self._state != "lead" else "it is empty")


def element_stream(
    open_tag: str,
    name_end: str,
    close_tag: str,
    param: tuple[str, str, str],
    *,
    confirm: bool = False,
) -> Callable[[ToolSchemas | None], CallStream]:
    """A stream factory for :class:`ElementStream` bodies."""
    return lambda schemas: ElementStream(
        schemas, open_tag, name_end, close_tag, param, confirm=confirm
    )


def pair_stream() -> Callable[[ToolSchemas | None], CallStream]:
    """A stream factory for GLM's :class:`PairStream` bodies."""
    return PairStream
