"""The shared half of the formats that find tool calls as JSON values in text.

``json`` and ``llama3_json`` read text until an optional prefix marker (a Markdown fence,
``<|python_tag|>``) or an opening bracket, follow the bracketed JSON value with
:class:`~._scan.BracketScanner`, then decode it and read it as calls; a value that is not a call
goes back to the content, with a problem when it started like one (``{"name": ...``).

Each format keeps what is its own: its markers, how a decoded value becomes calls
(:meth:`JsonRegionParser._read`) and the state after a call (:meth:`JsonRegionParser._after`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, ClassVar

from ._calls import CallResult, load_json
from ._callstream import CallStream
from ._scan import BracketScanner, MarkerFinder
from .protocol import ToolParser

__all__ = ["JsonRegionParser"]

_WS_RUN = re.compile(r"\s*")


class JsonRegionParser(ToolParser):
    """Base of the parsers whose calls are JSON values found in text (states and decoding)."""

    #: how problems name the n-th value (``"JSON value 2"``) and its brackets
    noun: ClassVar[str] = "JSON value"
    brackets: ClassVar[str] = "brackets"
    #: a value that matches this at its start is a malformed call (a problem), not plain JSON
    call_like: ClassVar[re.Pattern[str]]

    def __init__(self, tools: Iterable[Any] | None = None) -> None:
        super().__init__(tools)
        self._state = "text"
        #: the prefix markers of the format and the opening brackets that start a JSON value
        self._find: MarkerFinder  # set by the format
        self._scanner: BracketScanner | None = None
        self._prefix = 0  # length of the prefix (marker + whitespace) before the JSON value
        self._n_values = 0

    # ---------------------------------------------------------------- the scan loop
    def _scan(self, data: str, final: bool) -> int:
        pos = 0
        while True:
            state = self._state
            if state == "json":
                pos, wait = self._json_step(data, pos, final)
            elif state != "text":
                pos, wait = self._step(data, pos, final)
            else:  # (inlined: this loop runs once per delta)
                idx, marker = self._find.find(data, pos, final)
                if idx > pos:
                    self._text(data[pos:idx])
                if marker is None:
                    return idx
                wait = False
                if marker in ("{", "["):
                    self._region, pos = [], idx
                    self._start_json()
                else:  # a prefix marker: the format's own states follow
                    self._region, pos = [marker], idx + len(marker)
                    self._state = self.after_marker
            if wait:
                return pos

    # ---------------------------------------------------------------- for the formats
    #: the state after a prefix marker of :attr:`_find` (brackets start a JSON value)
    after_marker: ClassVar[str] = "prefix"

    def _step(self, data: str, pos: int, final: bool) -> tuple[int, bool]:
        """Advance in one of the format's own states; returns ``(position, wait)`` as
        :meth:`_json_step`."""
        raise NotImplementedError

    def _read(self, value: Any) -> tuple[list[CallResult], str | None] | None:
        """The calls in a decoded value (see :func:`~._calls.read_calls`)."""
        raise NotImplementedError

    def _after(self) -> str:
        """The state after the calls of a value were emitted."""
        return "text"

    def _stream_value(self) -> CallStream | None:
        """The call stream that reads a JSON value as it arrives (None: read it whole)."""
        return None

    # ---------------------------------------------------------------- shared states
    def _start_json(self, prefix: int = 0) -> None:
        self._prefix = prefix
        self._scanner = BracketScanner(first="value")
        self._state = "json"
        self._live_begin(self._stream_value())

    def _as_text(self) -> None:
        self._text("".join(self._region))
        self._region, self._scanner, self._state = [], None, "text"

    def _after_prefix(self, data: str, pos: int, final: bool, openers: str) -> tuple[int, bool]:
        """Whitespace after a prefix, then a JSON value (one of ``openers``) or text."""
        end = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
        self._region.append(data[pos:end])
        if end >= len(data):
            if final:
                self._as_text()
            return end, True
        if data[end] in openers:
            self._start_json(sum(map(len, self._region)))
        else:
            self._as_text()
        return end, False

    def _json_step(self, data: str, pos: int, final: bool) -> tuple[int, bool]:
        """Follow the JSON value; returns ``(position, wait)``: with ``wait``, return the
        position from ``_scan`` (the rest is held until more data comes)."""
        assert self._scanner is not None
        end, status = self._scanner.scan(data, pos, final)
        self._region.append(data[pos:end])
        self._live_feed(data[pos:end])
        if status == "more" and not final:
            return end, True
        self._end_json(complete=status == "closed")
        return end, False

    def _end_json(self, *, complete: bool) -> None:
        body = "".join(self._region)[self._prefix :]
        self._n_values += 1
        label = f"{self.noun} {self._n_values}"
        committed, live = self._live_end(complete, label, body)
        if committed:
            self._region, self._scanner, self._state = [], None, self._after()
            return None
        call_like = self.call_like.match(body) is not None
        if not complete:
            if live is not None and self._live_calls(live, label):
                # constrained output cut inside its list: the closed calls are kept
                self._region, self._scanner, self._state = [], None, "text"
                self._text(body[live.done_at :])
                return None
            if call_like:
                self._problem(
                    f"{label} starts like a tool call but its {self.brackets} are not "
                    "balanced; kept as content"
                )
            return self._as_text()
        value, problem = load_json(body)
        if problem:
            if call_like:
                self._problem(f"{label} starts like a tool call but is {problem}; kept as content")
            return self._as_text()
        found = self._read(value)
        if found is None:
            return self._as_text()
        if not found[0]:
            self._problem(f"{label} is a malformed tool call: {found[1]}; kept as content")
            return self._as_text()
        self._region, self._scanner, self._state = [], None, self._after()
        for call in found[0]:
            self._call(call.name, call.arguments)
        return None
