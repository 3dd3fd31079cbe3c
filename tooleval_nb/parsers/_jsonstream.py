"""The JSON call streams: calls whose body or arguments are JSON, read as they are written.

Both follow the call-stream protocol of :mod:`._callstream` and write arguments with
:class:`~._jsonwriter.JsonWriter`, which re-writes one JSON value incrementally in the canonical
form of a whole-text parse:

* :class:`JsonCallStream` reads ``{"name": ..., "arguments": {...}}`` objects, a list of them,
  or several in a row, streaming the arguments object through a :class:`JsonWriter`; optionally
  after a code fence's language tag, or nested as OpenAI writes calls
  (``{"type": "function", "function": {"name": ..., "arguments": "{...}"}}``), or in the list
  of OpenAI's message ``{"tool_calls": [...]}``. Arguments written as a JSON string holding an
  object stream too, as the string is decoded (:class:`_StringArgs`).
* :class:`ArgsStream` reads the JSON arguments of a call whose name is already known (harmony,
  Mistral v11, the token formats), an object or (lenient) a JSON string holding one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ._calls import _arguments
from ._callstream import CallStream, StreamCall
from ._jsonwriter import JsonWriter

__all__ = ["JsonCallStream", "ArgsStream"]

_WS = re.compile(r"[ \t\n\r]*")
_LANG = re.compile(r"[A-Za-z0-9_+\-]*")
_NOT_OBJECT = "its arguments are a string that is not a JSON object"


def _args_from_value(value: Any) -> tuple[str | None, str | None]:
    """The arguments string of a non-object arguments value (null, a JSON string), as
    :func:`~._calls.call_from_object` reads it."""
    return _arguments(value, True)


class _ValueSlot:
    """A JSON value read into a private buffer (a name, a key, string arguments)."""

    __slots__ = ("writer", "buffer")

    def __init__(self) -> None:
        self.buffer: list[str] = []
        self.writer = JsonWriter(self.buffer)

    def value(self) -> Any:
        return json.loads("".join(self.buffer))


def _no_start() -> None:
    """The call of an :class:`ArgsStream` is named already: nothing waits for its ``{``."""


class _StringArgs:
    """Arguments written as a JSON string whose text is a JSON object (OpenAI's
    ``"arguments": "{\\"city\\": \\"Paris\\"}"``): the string's decoded text is re-written
    through a second :class:`JsonWriter`, so the object streams while the string is written.

    As :func:`~._calls.call_from_object` reads it: a blank string is ``{}``; otherwise the text
    must be one JSON object, with only JSON whitespace around it. ``on_start`` is called once the
    object's ``{`` is read (the call may be sent then).
    """

    __slots__ = ("parts", "writer", "inner", "error", "_lead", "_on_start")

    def __init__(self, parts: list[str], on_start: Callable[[], None]) -> None:
        self.parts = parts
        self.inner: JsonWriter | None = None
        self.writer = JsonWriter(None, on_text=self._text)
        self.error: str | None = None
        self._lead: list[str] = []
        self._on_start = on_start

    def _text(self, piece: str) -> None:
        if self.error is not None:
            return
        if self.inner is None:
            self._lead.append(piece)
            lead = "".join(self._lead)
            if not lead.strip():
                return  # only whitespace so far (a blank string is no arguments)
            self._lead = []
            start = _WS.match(lead).end()  # type: ignore[union-attr]
            if lead[start] != "{":
                self.error = _NOT_OBJECT
                return
            self.inner = JsonWriter(self.parts)
            self._on_start()
            piece = lead
        rest = piece
        if not self.inner.done:
            used = self.inner.feed(piece)
            if self.inner.error is not None:
                self.error = f"its arguments string is not valid JSON ({self.inner.error})"
                return
            rest = piece[used:] if self.inner.done else ""
        if rest and _WS.fullmatch(rest) is None:
            self.error = "its arguments string holds text after the JSON object"

    def end(self) -> str | None:
        """The string closed: the arguments are complete; returns what is wrong, if anything."""
        if self.error is not None:
            return self.error
        if self.inner is None:
            self.parts.append("{}")
            return None
        self.inner.finish()
        if self.inner.error is not None:
            return f"its arguments string is not valid JSON ({self.inner.error})"
        if not self.inner.done:
            return _NOT_OBJECT
        if self.inner.duplicate is not None:
            return f"its arguments hold the key {self.inner.duplicate!r} twice"
        return None

    def close(self) -> None:
        """End arguments cut short (see :meth:`JsonWriter.close`)."""
        if self.inner is not None:
            self.inner.close()


class JsonCallStream(CallStream):
    """Stream ``{"name": ..., "arguments": {...}}`` calls (see the module docstring).

    Args:
        name_keys / arg_keys: the keys read as the name and the arguments.
        require_args: an object is a call only with an arguments key, or with a name among
            ``known`` (plain JSON such as ``{"name": "Bob"}`` is not a call).
        known: the offered tools' names.
        many: several values may follow one another (separated by whitespace, ``;`` or ``,``).
        lists: a value may be a list of calls.
        fence: the body is a code fence's: a language tag (``json``) may come first.
        nest_key: an object under this key is the call itself (OpenAI's ``"function"``); the
            other keys of the outer object are skipped, as the whole-text reader skips them.
        wrap_key: a top-level object whose list under this key holds the calls (OpenAI's
            message ``{"tool_calls": [...]}``), its other keys all among ``wrap_extra``: each
            call of the list streams as a call of a list does.
    """

    def __init__(
        self,
        *,
        name_keys: Sequence[str] = ("name",),
        arg_keys: Sequence[str] = ("arguments", "parameters"),
        require_args: bool = False,
        known: Any = None,
        many: bool = False,
        lists: bool = True,
        fence: bool = False,
        nest_key: str | None = None,
        wrap_key: str | None = None,
        wrap_extra: Sequence[str] = ("content", "role"),
    ) -> None:
        super().__init__()
        self.name_keys = tuple(name_keys)
        self.arg_keys = tuple(arg_keys)
        self.require_args = require_args
        self.known = known
        self.many = many
        self.lists = lists
        self.nest_key = nest_key
        self.wrap_key = wrap_key
        self.wrap_extra = frozenset(wrap_extra)
        self._wrap = 0  # 1 inside the wrapper's list of calls, 2 after it (its other keys)
        self._outer_keys: set[str] = set()  # the keys of the top-level object so far
        self._state = "lang" if fence else "top"
        #  lang | top | list | list_next | list_item | key | colon | value | next | after
        self._lang = False  # a language tag was started
        self._nested = 0  # 1 inside the nested call object of an outer one
        self._nested_done = False  # the outer object's nested call closed
        self._strargs: _StringArgs | None = None
        self._in_list = False
        self._values = 0
        self._call: StreamCall | None = None
        self._slot: _ValueSlot | None = None
        self._writer: JsonWriter | None = None
        self._role = ""  # what the value being read is: name | args | args_value | skip
        self._has_args = False
        self._args_parts: list[str] = []

    # ---------------------------------------------------------------- reading
    def _feed(self, text: str) -> None:
        self._run(text, False)

    def _finish(self, closed: bool) -> None:
        if self._writer is not None:
            self._writer.finish()
            self._value_read(self._writer)
        if self.error is None and self._state not in ("top", "after"):
            self._fail(
                "the call is not complete"
                if self._call is not None
                else "its brackets are not closed"
            )
        if self.error is None and self._values == 0:
            self._fail("it is empty")
        if self.error is None and self._late_nested:
            self._fail(f"{self._late_nested} (as JSON, only the last nested call counts)")
        if self.error is None and self._second_wrap:
            self._fail(
                f"the object holding the calls has a second {self.wrap_key!r} (as JSON, only the "
                "calls of the last count)"
            )

    def _run(self, data: str, final: bool) -> None:
        i, n = 0, len(data)
        while i < n and self.error is None:
            if self._state == "lang":
                i = self._read_lang(data, i)
                continue
            if self._writer is not None:
                used = self._writer.feed(data[i:], final)
                i += used
                if not self._value_read(self._writer):
                    return
                continue
            i = _WS.match(data, i).end()  # type: ignore[union-attr]
            if i >= n:
                return
            char = data[i]
            state = self._state
            if state in ("top", "after"):
                if state == "after":
                    if char in ";,":
                        if not self.many:
                            return self._fail(f"{char!r} follows the call")
                        i += 1
                        continue
                    if not self.many:
                        return self._fail(f"text follows the call ({data[i : i + 20]!r})")
                if char == "[" and self.lists:
                    self._in_list, self._state = True, "list"
                    i += 1
                elif char == "{":
                    self._open_object()
                    i += 1
                else:
                    return self._fail(f"{char!r} does not start a call")
            elif state in ("list", "list_next", "list_item"):
                if char == "]":
                    if state == "list":
                        return self._fail("the list is empty")
                    if state == "list_item":
                        return self._fail("a ',' comes before the list's ']'")
                    if self._wrap == 1:  # back in the wrapper object, whose other keys follow
                        self._in_list, self._state, self._wrap = False, "next", 2
                        i += 1
                        continue
                    self._in_list, self._state = False, "after"
                    self._values += 1
                    self.done_at = self.fed + i + 1
                    i += 1
                elif state == "list_next" and char == ",":
                    self._state = "list_item"
                    i += 1
                elif state in ("list", "list_item") and char == "{":
                    self._open_object()
                    i += 1
                else:
                    return self._fail(f"item {len(self.calls)} of the list is not a tool call")
            elif state == "key":
                if char == "}" and self._first_key:
                    self._close_object(i)
                    i += 1
                elif char == '"':
                    self._role = "key"
                    self._slot = _ValueSlot()
                    self._writer = self._slot.writer
                else:
                    return self._fail(f"{char!r} where a key was expected")
            elif state == "colon":
                if char != ":":
                    return self._fail(f"{char!r} where ':' was expected")
                self._state = "value"
                i += 1
            elif state == "value":
                if char == "{" and self._can_nest():
                    self._nest()
                    i += 1
                elif char == "{" and self._can_late_nest():
                    self._late_nest()
                    i += 1
                elif char == "[" and self._can_wrap():
                    self._enter_wrap()
                    i += 1
                else:
                    self._start_value(char)
            else:  # next
                if char == ",":
                    self._state, self._first_key = "key", False
                    i += 1
                elif char == "}":
                    self._close_object(i)
                    i += 1
                else:
                    return self._fail(f"{char!r} where ',' or '}}' was expected")

    def _open_object(self) -> None:
        assert self._call is None
        self._call = StreamCall()
        self.calls.append(self._call)
        self._state, self._first_key = "key", True
        self._has_args, self._args_parts = False, []
        self._outer_keys = set()
        self._openai = False

    def _read_lang(self, data: str, i: int) -> int:
        """A fence's language tag (``json``), as the whole-body reader skips it: after leading
        whitespace, a run of tag characters that starts with a letter."""
        n = len(data)
        if not self._lang:
            i = _WS.match(data, i).end()  # type: ignore[union-attr]
            if i >= n:
                return i
            if not data[i].isalpha():
                self._state = "top"
                return i
            self._lang = True
        end = _LANG.match(data, i).end()  # type: ignore[union-attr]
        if end < n:
            self._state = "top"
        return end

    def _can_nest(self) -> bool:
        call = self._call
        return (
            self._key == self.nest_key
            and self.nest_key is not None
            and not self._nested
            and not self._nested_done
            and call is not None
            and call.name is None
        )

    def _can_wrap(self) -> bool:
        """The list under :attr:`wrap_key` of a top-level object whose other keys so far are
        all among :attr:`wrap_extra` (nothing of it named a call)."""
        call = self._call
        if self._wrap == 2:  # a second list under the key (a whole-text parse keeps the last)
            return bool(self._key == self.wrap_key)
        return (
            self._key == self.wrap_key
            and self.wrap_key is not None
            and not self._wrap
            and not self._in_list
            and not self._nested
            and not self._nested_done
            and call is not None
            and call.name is None
            and self._outer_keys <= self.wrap_extra
        )

    def _enter_wrap(self) -> None:
        """The object is OpenAI's message ``{"tool_calls": [...]}``: it is no call itself (its
        placeholder, never named, goes); the calls of its list follow. A second list under the
        key streams too: the calls of the first were sent already (never retracted), so the
        stream ends with an error once the body is read (:meth:`_finish`)."""
        if self._wrap == 2:
            self._second_wrap = True
        else:
            self.calls.pop()
        self._call = None
        self._wrap = 1
        self._in_list, self._state = True, "list"

    def _can_late_nest(self) -> bool:
        """A nested call object comes after the outer object's own keys named a call, or after
        another nested call object."""
        call = self._call
        return (
            self._key == self.nest_key
            and self.nest_key is not None
            and not self._nested
            and call is not None
            and (call.name is not None or self._nested_done)
        )

    def _late_nest(self) -> None:
        """A nested call object after the outer keys named a call, or a second one: the call
        before it may have been sent already, so it ends where it stopped (never retracted) and
        the nested one streams as a call of its own; the stream ends with an error once the
        body is read, since a whole-text parse reads only the last nested call
        (:meth:`_finish`)."""
        outer = self._call
        assert outer is not None
        if self._nested_done:
            self._late_nested = f"an object has a second {self.nest_key!r} object"
            self._nested_done = False
        else:
            self._late_nested = (
                f"an object named a call with its own keys before its {self.nest_key!r} object"
            )
            if not self._has_args:
                outer.parts.append("{}")
            outer.closed = True
        self._call = StreamCall()
        self.calls.append(self._call)
        self._nest()

    def _nest(self) -> None:
        """The outer object's nested call object opens: it is the call (what the outer object
        said about a name or arguments so far is dropped, as the whole-text reader drops it)."""
        self._nested = 1
        self._state, self._first_key = "key", True
        self._has_args, self._args_parts = False, []
        self._pending_name, self._named = None, False

    def _start_value(self, char: str) -> None:
        key = self._key
        if self._wrap == 2:  # the wrapper's other keys, after its list of calls
            if key not in self.wrap_extra:
                self._fail(f"the object holding the calls has the key {key!r} too")
            else:
                self._role = "skip"
                self._writer = JsonWriter(None)
            return
        call = self._call
        assert call is not None
        if not self._nested:
            self._outer_keys.add(key)
        if self._nested_done:  # after the nested call: the outer object's other keys
            if key == self.nest_key:
                self._fail(f"the call object has a second {key!r}")
            else:
                self._role = "skip"
                self._writer = JsonWriter(None)
        elif key in self.name_keys and call.name is None and not self._named:
            self._role = "name"
            self._slot = _ValueSlot()
            self._writer = self._slot.writer
        elif key in self.arg_keys and not self._has_args:
            self._has_args = True
            if char == "{":
                self._role = "args"
                self._writer = JsonWriter(self._args_parts)
                self._maybe_ready()
            elif char == '"':
                self._role = "args_string"
                self._strargs = _StringArgs(self._args_parts, self._maybe_ready)
                self._writer = self._strargs.writer
            else:
                self._role = "args_value"
                self._slot = _ValueSlot()
                self._writer = self._slot.writer
        elif key in self.name_keys or key in self.arg_keys:
            self._fail(f"the call object has a second {key!r}")
        elif key == "type" and char == '"' and not self._nested and self.nest_key is not None:
            self._role = "type"  # "function": OpenAI's shape, whose call is the nested one
            self._slot = _ValueSlot()
            self._writer = self._slot.writer
        else:
            self._role = "skip"
            self._writer = JsonWriter(None)

    def _value_read(self, writer: JsonWriter) -> bool:
        """Handle the end of the value being read; False when reading must stop."""
        if writer.error is not None:
            self._fail(writer.error)
            return False
        if not writer.done:
            return True
        self._writer = None
        role = self._role
        call = self._call
        if role == "key":
            assert self._slot is not None
            self._key = self._slot.value()
            self._state = "colon"
            return True
        self._state = "next"
        if role == "skip":
            return True
        assert call is not None
        if role == "type":
            assert self._slot is not None
            self._openai = self._openai or self._slot.value() == "function"
        elif role == "name":
            assert self._slot is not None
            name = self._slot.value()
            self._named = True
            if not isinstance(name, str) or not name.strip():
                self._fail(f"its {self._key!r} is {name!r}, not a function name")
                return False
            self._pending_name = name.strip()
            self._maybe_ready()
        elif role == "args":
            if writer.duplicate is not None:
                self._fail(f"its arguments hold the key {writer.duplicate!r} twice")
                return False
            self._maybe_ready()
        elif role == "args_string":
            assert self._strargs is not None
            problem = self._strargs.end()
            if problem is not None:
                self._fail(problem)
                return False
            self._maybe_ready()
        elif role == "args_value":
            assert self._slot is not None
            arguments, problem = _args_from_value(self._slot.value())
            if problem or arguments is None:
                self._fail(problem or "its arguments are unusable")
                return False
            self._args_parts.append(arguments)
            self._maybe_ready()
        return True

    def _maybe_ready(self, closing: bool = False) -> None:
        """Name the call (it may be sent then) once its name is certain: its name read, and
        its arguments key too where :attr:`require_args` says so. In an object that said
        ``"type": "function"`` (OpenAI's shape) the call is the nested ``"function"`` object, so
        a name of the object's own keys is certain only when the object closes (``closing``)
        without one."""
        call = self._call
        assert call is not None
        name = getattr(self, "_pending_name", None)
        if call.name is not None or name is None:
            return
        if self._openai and not self._nested and not closing:
            return
        if (
            self.require_args
            and not self._has_args
            and not (self.known is not None and name in self.known)
        ):
            return
        call.name = name
        call.parts = self._args_parts

    def _close_object(self, i: int) -> None:
        if self._wrap == 2:  # the wrapper object closes after its list
            self._wrap = 0
            self._end_object(i)
            return
        call = self._call
        assert call is not None
        if self._nested_done:  # the outer object of a nested call closes
            self._end_object(i)
            return
        if getattr(self, "_pending_name", None) is None:
            self._fail(
                "the object has no name"
                if self._in_list or self.calls[:-1]
                else "it is not a tool call object"
            )
            return
        self._maybe_ready(closing=True)
        if call.name is None:
            self._fail("the object is not a tool call (it has no arguments)")
            return
        if not self._has_args:
            call.parts.append("{}")
        call.closed = True
        self._pending_name = None
        self._named = False
        if self._nested:  # back in the outer object, whose other keys are skipped
            self._nested, self._nested_done = 0, True
            self._state = "next"
            return
        self._end_object(i)

    def _end_object(self, i: int) -> None:
        self._call = None
        self._nested_done = False
        if self._in_list:
            self._state = "list_next"
        else:
            self._state = "after"
            self._values += 1
        self.done_at = self.fed + i + 1

    def _repair(self, call: StreamCall) -> None:
        if call is self._call and self._role == "args" and self._writer is not None:
            self._writer.close()
        elif call is self._call and self._role == "args_string" and self._writer is not None:
            assert self._strargs is not None
            self._strargs.close()
        if not call.parts:
            call.parts.append("{}")

    _key: Any = None
    _second_wrap = False
    _late_nested = ""  # why a nested call object came late (a second call was streamed)
    _openai = False  # the object said "type": "function": its own keys name no call
    _first_key = True
    _named = False
    _pending_name: str | None = None


class ArgsStream(CallStream):
    """Stream the JSON arguments of one call whose name is known already.

    Args:
        name: the call's name (certain: the call can be sent at once).
        lenient: ``null`` or nothing means ``{}``, a JSON string holding an object is decoded
            (as :func:`~._calls.call_from_object` reads arguments); otherwise only an object.
    """

    def __init__(
        self, name: str, *, lenient: bool = True, trailer: str = "", call: StreamCall | None = None
    ) -> None:
        super().__init__()
        self.lenient = lenient
        self.trailer = trailer
        self.call = call if call is not None else StreamCall(name)
        self.calls.append(self.call)
        self._writer: JsonWriter | None = None
        self._slot: _ValueSlot | None = None
        self._strargs: _StringArgs | None = None
        self._after: list[str] = []

    def _follow(self, text: str) -> None:
        """Text after the value: whitespace, and the trailer (a closing fence) if any."""
        self._after.append(text)
        after = "".join(self._after).strip()
        if after and not self.trailer.startswith(after):
            self._fail(f"text follows the arguments ({after[:20]!r})")

    def _feed(self, text: str) -> None:
        self._run(text, False)

    def _run(self, text: str, final: bool) -> None:
        i = 0
        if self._writer is None:
            if self.call.closed:
                self._follow(text)
                return
            i = _WS.match(text).end()  # type: ignore[union-attr]
            if i >= len(text):
                return
            if text[i] == "{":
                self._writer = JsonWriter(self.call.parts)
            elif self.lenient and text[i] == '"':  # a JSON string holding the object
                self._strargs = _StringArgs(self.call.parts, _no_start)
                self._writer = self._strargs.writer
            elif self.lenient and self.trailer and text[i] == self.trailer[0]:
                self.call.parts.append("{}")  # the trailer right away: no arguments
                self.call.closed = True
                self.done_at = self.fed + i
                self._follow(text[i:])
                return
            elif self.lenient:
                self._slot = _ValueSlot()
                self._writer = self._slot.writer
            else:
                self._fail(f"its arguments start with {text[i]!r}, not an object")
                return
        writer = self._writer
        used = writer.feed(text[i:], final)
        if writer.error is not None:
            return self._fail(writer.error)
        strargs = self._strargs
        if strargs is not None and strargs.error is not None:
            return self._fail(strargs.error)
        if writer.done:
            if writer.duplicate is not None:
                return self._fail(f"its arguments hold the key {writer.duplicate!r} twice")
            if strargs is not None:
                problem = strargs.end()
                if problem is not None:
                    return self._fail(problem)
            elif self._slot is not None:
                arguments, problem = _args_from_value(self._slot.value())
                if problem or arguments is None:
                    return self._fail(problem or "its arguments are unusable")
                self.call.parts.append(arguments)
            self.call.closed = True
            self._writer = None
            self.done_at = self.fed + i + used
            self._follow(text[i + used :])

    def _finish(self, closed: bool) -> None:
        if self._writer is not None:
            self._writer.finish()
            self._run("", True)
        if self.error is None and not self.call.closed:
            if self._writer is None and not self.trailer:  # only whitespace: no arguments
                self.call.parts.append("{}")
                self.call.closed = True
            else:
                self._fail("its arguments are not complete")
        elif self.error is None and "".join(self._after).strip() != self.trailer:
            self._fail(f"its arguments are not closed by {self.trailer}")

    def _repair(self, call: StreamCall) -> None:
        if self._strargs is not None:
            self._strargs.close()
        elif self._writer is not None and self._slot is None:
            self._writer.close()
        if not call.parts:
            call.parts.append("{}")
