"""The call stream of the special-token sections (DeepSeek V3 / V3.1, Kimi-K2, Step-3).

:class:`SequenceStream` reads ``BEGIN head SEP tail END`` calls separated by whitespace (see
:mod:`.tokencalls`). The name is certain at ``SEP`` (V3.1, Kimi), at the newline after it (V3),
or at the end of the ``<steptml:invoke name=...>`` tag (Step-3); JSON arguments stream as they
are written (:class:`~._jsonstream.ArgsStream`), Step-3's XML values as
:class:`~._xmlstream.ElementStream` sends them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._calls import name_problem
from ._callstream import CallStream, HeldStream, StreamCall
from ._jsonstream import ArgsStream
from ._xmlstream import ElementStream, partial_end
from .protocol import ToolSchemas

__all__ = ["SequenceStream", "sequence_stream"]

_MAX_NAME = 512
_WS = re.compile(r"\s*")
#: DeepSeek V3's opening fence and its language tag
_FENCE_OPEN = re.compile(r"\s*```[A-Za-z]*\s*")


class SequenceStream(HeldStream):
    """``BEGIN head SEP tail END`` calls separated by whitespace (see the module docstring).

    Args:
        kind: ``v31`` (the head is the name, the tail JSON arguments), ``kimi`` (the head is
            ``functions.NAME:INDEX``), ``v3`` (the head is ``function``, the tail the name, a
            newline and fenced JSON arguments), ``step3`` (the head is ``function``, the tail one
            ``<steptml:invoke>`` element).
    """

    def __init__(
        self, schemas: ToolSchemas | None, begin: str, sep: str, end: str, kind: str
    ) -> None:
        super().__init__()
        self.schemas = schemas
        self.begin, self.sep, self.end, self.kind = begin, sep, end, kind
        self._state = "between"  # between | head | tail
        self._head: list[str] = []
        self._inner: CallStream | None = None
        self._prelude: list[str] = []  # v3: the name line and the opening fence

    def _end_body(self, closed: bool) -> None:
        if self._state == "tail":
            self._end_call(closed=False)
        elif self._state == "head":
            self._fail(f"call {len(self.calls)} has no {self.sep}")
        elif not self.calls:
            self._fail("the section is empty")

    def _run(self, data: str, final: bool) -> int:
        i, n = 0, len(data)
        while i < n and self.error is None:
            if self._state == "between":
                i = _WS.match(data, i).end()  # type: ignore[union-attr]
                if i >= n:
                    return i
                if data.startswith(self.begin, i):
                    i += len(self.begin)
                    self._state, self._head = "head", []
                elif not final and self.begin.startswith(data[i:]):
                    return i
                else:
                    self._fail(
                        f"unexpected text {data[i : i + 30]!r} where {self.begin} was expected"
                    )
            elif self._state == "head":
                idx = data.find(self.sep, i)
                stop = idx if idx >= 0 else (n if final else partial_end(data, self.sep))
                self._head.append(data[i:stop])
                if sum(map(len, self._head)) > _MAX_NAME:
                    self._fail(f"call {len(self.calls)} has no {self.sep}")
                    return stop
                if idx < 0:
                    return stop
                i = idx + len(self.sep)
                self._start_tail("".join(self._head))
            else:  # tail: up to END
                idx = data.find(self.end, i)
                stop = idx if idx >= 0 else (n if final else partial_end(data, self.end))
                self._tail(data[i:stop])
                if idx < 0:
                    return stop
                i = idx + len(self.end)
                self._end_call(closed=True)
                self._state = "between"
                if self.error is None:
                    self.done_at = self._base + i
        return i

    def _start_tail(self, head: str) -> None:
        self._state = "tail"
        self._prelude, self._inner = [], None
        if self.kind == "v31":
            self._inner_args(head.strip())
        elif self.kind == "kimi":
            name = head.strip()
            name = name[len("functions.") :] if name.startswith("functions.") else name
            name, colon, index = name.rpartition(":")
            if not colon or not index.strip().isdigit():
                self._fail(f"{head.strip()[:40]!r} is not functions.NAME:INDEX")
                return
            self._inner_args(name)
        elif head.strip() != "function":
            self._fail(f"its type is {head.strip()[:20]!r}, not function")
        elif self.kind == "step3":
            self._inner = ElementStream(
                self.schemas,
                "<steptml:invoke name=",
                ">",
                "</steptml:invoke>",
                ("<steptml:parameter name=", ">", "</steptml:parameter>"),
            )

    def _inner_args(self, name: str) -> None:
        bad = name_problem(name)
        if bad:
            self._fail(bad)
            return
        self._inner = ArgsStream(name)
        self.calls.append(self._inner.calls[0])

    def _adopt(self) -> None:
        """Show the inner stream's call (named now) as this section's latest call."""
        inner = self._inner
        if inner is None:
            return
        if len(inner.calls) > 1:
            self._fail("it holds several invokes")
        elif inner.calls and (not self.calls or self.calls[-1] is not inner.calls[0]):
            self.calls.append(inner.calls[0])  # the inner call, once adopted, is the last
        if inner.error is not None:
            self._fail(inner.error)

    def _tail(self, text: str) -> None:
        if not text or self.error is not None:
            return
        if self.kind == "v3" and self._inner is None:
            text = self._v3_prelude(text)
            if self._inner is None or not text:
                return
        if self._inner is not None:
            self._inner.feed(text)
            self._adopt()

    def _v3_prelude(self, text: str) -> str:
        """The name line and the opening fence; returns the text after them (the JSON)."""
        self._prelude.append(text)
        prelude = "".join(self._prelude)
        newline = prelude.find("\n")
        if newline < 0:
            if len(prelude) > _MAX_NAME:
                self._fail("the function name is too long")
            return ""
        if not self.calls or self.calls[-1].closed:  # the name line is complete: send it
            name = prelude[:newline].strip()
            bad = name_problem(name)
            if bad:
                self._fail(bad)
                return ""
            self.calls.append(StreamCall(name))
        # the opening fence and its language tag; the arguments start at the first character
        # after them: ``{``, a JSON string holding the object, ``null``, or the closing fence
        rest = prelude[newline + 1 :]
        fence = _FENCE_OPEN.match(rest)
        if fence is None or fence.end() >= len(rest):  # not yet a fence, or the tag may go on
            if (fence is None and not "```".startswith(rest.lstrip())) or len(rest) > 64:
                self._fail("its arguments are not in a ```json fence after the name")
            return ""
        self._inner = ArgsStream(self.calls[-1].name or "", trailer="```", call=self.calls[-1])
        self._prelude = []
        return rest[fence.end() :]

    def _end_call(self, *, closed: bool) -> None:
        inner = self._inner
        self._inner = None
        if inner is None:
            if self.error is None:
                self._fail(
                    f"call {len(self.calls)} is incomplete"
                    if self.kind != "v3"
                    else "its arguments are not in a ```json fence after the name"
                )
            return
        inner.finish(closed)
        if self.kind == "step3":
            if not inner.calls:
                self._fail("it holds no <steptml:invoke>")
            self._inner = inner
            self._adopt()
            self._inner = None
        elif inner.error is not None:
            self._fail(inner.error)

    def _repair(self, call: StreamCall) -> None:
        inner = self._inner
        if inner is not None and call in inner.calls:
            inner.finish(False)
        if not call.parts:
            call.parts.append("{}")


def sequence_stream(
    begin: str, sep: str, end: str, kind: str
) -> Callable[[ToolSchemas | None], CallStream]:
    """A stream factory for :class:`SequenceStream` sections."""
    return lambda schemas: SequenceStream(schemas, begin, sep, end, kind)
