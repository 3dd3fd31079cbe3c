"""The tagged-region machine: one streaming scanner for the formats that mark their calls.

Most open models write a tool call as a *region* of text opened by a marker: a special token
(``<|tool_call_start|>``, ``<｜tool▁calls▁begin｜>``), a tag (``<tool_call>``) or a bracket
(``[``). A format is then a small table (:class:`Region` entries, plus the tokens to drop and an
optional reasoning pair) read by one machine, :class:`TaggedParser`:

* text outside regions is content, emitted as soon as it cannot begin a marker;
* a region either ends at its closing marker (``end``) or, without one, is the bracketed value
  (JSON or Python syntax) that follows the opening marker, followed by
  :class:`~._scan.BracketScanner`;
* the region's body is read by the region's :data:`BodyReader` (JSON objects, Python calls,
  XML-ish parameters, token sequences); its calls are emitted whole once the region ends;
* a region that does not hold valid calls goes back to the content, markers included, with the
  reason in ``problems`` (for regions that may hold other text, such as a bare ``[`` or a code
  fence, only when the body starts like a call);
* the last region may be left unclosed (generation stopped): it is read as far as it goes;
* ``drop`` tokens (wrappers such as ``<|python_start|>``) never reach the content;
* a ``think`` pair (``<seed:think>`` ... ``</seed:think>``) is reasoning.

Each scan step consumes the new data once and holds back at most a partial marker, so streaming
costs O(n), and the whole-text parse is the same machine fed once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Literal

from ._calls import CallResult
from ._callstream import CallStream
from ._scan import BracketScanner, MarkerFinder
from .protocol import COMMITTED_NOTE, ToolParser, ToolSchemas

__all__ = ["Region", "BodyReader", "Found", "TaggedParser", "StreamFactory", "THINK"]

#: what a body reader finds: None when the body is not a call at all; ``([], reason)`` when it
#: looks like a call but is malformed; ``(calls, None)`` otherwise
Found = tuple[list[CallResult], str | None] | None
#: reads a region's body (the text between its markers) given the offered tools' schemas
BodyReader = Callable[[str, ToolSchemas | None], Found]
#: makes the call stream that reads a region's body as it arrives (see :mod:`._callstream`)
StreamFactory = Callable[[ToolSchemas | None], CallStream]

_WS_RUN = re.compile(r"\s*")
#: reasoning written before the answer (Qwen3, GLM-4.5, DeepSeek-R1), split out as vLLM's
#: reasoning parsers do: the text between the two tags is ``reasoning``, not content
THINK = ("<think>", "</think>")


@dataclass(frozen=True)
class Region:
    """One way a format marks its calls.

    Attributes:
        start: the marker that opens the region.
        read: the body reader.
        end: the marker that closes it; None when the region is the bracketed value that follows
            ``start`` (after whitespace).
        syntax: for a bracketed region: ``json`` or ``python`` brackets, strings and escapes.
        openers: for a bracketed region: the brackets the value may start with.
        bare: the markers are part of the body: a bare ``[`` opens the value itself; with an
            ``end``, the body read is ``start ... end`` (a bare ``<function=...>`` element).
        call_like: when set, the region may hold text that is not a call (a bare bracket, a code
            fence): a body that fails to read is a problem only when it matches this pattern.
        stream: the call stream that reads the body as it arrives, so that a call is sent as
            soon as its name is certain (None: the calls are sent when the region ends).
    """

    start: str
    read: BodyReader
    end: str | None = None
    syntax: Literal["json", "python"] = "json"
    openers: str = "[{"
    bare: bool = False
    call_like: re.Pattern[str] | None = None
    stream: StreamFactory | None = None


@cache
def _finder(markers: tuple[str, ...]) -> MarkerFinder:
    # longest first: at one position the longer marker wins (```json before ```)
    return MarkerFinder(*sorted(set(markers), key=len, reverse=True))


class TaggedParser(ToolParser):
    """Streaming parser driven by a format's table: :attr:`regions`, :attr:`drop`, :attr:`think`.

    A format subclasses it with its name, its table and a docstring that says which tokens it
    reads and what happens to the text around the calls.
    """

    #: the ways this format marks calls
    regions: ClassVar[tuple[Region, ...]] = ()
    #: tokens removed wherever they appear outside a region
    drop: ClassVar[tuple[str, ...]] = ()
    #: an (open, close) pair whose text is reasoning
    think: ClassVar[tuple[str, str] | None] = None
    #: a marker dropped only where the output starts (after whitespace): a role prefix
    lead: ClassVar[str | None] = None

    def __init__(self, tools: Iterable[Any] | None = None) -> None:
        super().__init__(tools)
        cls = type(self)
        self._by_start = {r.start: r for r in cls.regions}
        extra = (cls.think[0],) if cls.think else ()
        self._find = _finder(tuple(self._by_start) + cls.drop + extra)
        self._state = "start" if cls.lead else "text"  # start | text | think | region | lead
        #                                                 | value
        self._open: Region | None = None
        self._end_find: MarkerFinder | None = None
        self._scanner: BracketScanner | None = None
        self._prefix = 0  # characters of the region before its body
        self._n_regions = 0

    # ---------------------------------------------------------------- the scan loop
    def _scan(self, data: str, final: bool) -> int:
        pos, n = 0, len(data)
        while True:
            state = self._state
            if state == "start":  # the output's role prefix (Hunyuan's 助手：) is dropped
                assert self.lead is not None
                start = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
                rest = data[start : start + len(self.lead)]
                if (
                    not final
                    and start - pos < 64
                    and self.lead.startswith(rest)
                    and len(rest) < len(self.lead)
                ):
                    return pos  # only whitespace or part of the prefix so far: wait
                self._state = "text"
                if rest == self.lead:
                    self._text(data[pos:start])
                    pos = start + len(self.lead)
            elif state == "text":
                idx, marker = self._text_until(self._find, data, pos, final)
                if marker is None:
                    return idx
                pos = idx + len(marker)
                if marker in self._by_start:
                    self._enter(self._by_start[marker])
                    if self._open is not None and self._open.bare and self._open.end is None:
                        pos = idx
                elif self.think is not None and marker == self.think[0]:
                    self._state = "think"
                # else: a dropped token
            elif state == "think":
                assert self.think is not None
                idx, marker = _finder((self.think[1],)).find(data, pos, final)
                self._think(data[pos:idx])
                if marker is None:
                    if final:
                        self._problem(
                            f"{self.think[0]} is not closed; its text is kept as reasoning"
                        )
                    return idx
                pos, self._state = idx + len(marker), "text"
            elif state == "region":
                assert self._end_find is not None and self._open is not None
                idx, marker = self._end_find.find(data, pos, final)
                self._region.append(data[pos:idx])
                self._live_feed(data[pos:idx])
                if marker is None:
                    if final:
                        self._close(self._body(), closed=False)
                        return n
                    return idx
                bare = self._open.bare
                body = self._body()
                self._region.append(marker)
                if bare:
                    self._live_feed(marker)
                pos = idx + len(marker)
                self._close(body + marker if bare else body, closed=True)
            elif state == "lead":  # whitespace between a start marker and its value
                assert self._open is not None
                end = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
                self._region.append(data[pos:end])
                pos = end
                if pos >= n:
                    if final:
                        self._malformed("nothing follows it")
                    return n
                if data[pos] in self._open.openers:
                    self._prefix = sum(map(len, self._region))
                    self._start_value()
                else:
                    self._malformed(f"it is followed by {data[pos]!r}, not a call")
            else:  # value
                assert self._scanner is not None
                before = pos
                pos, status = self._scanner.follow(self._region, data, pos, final)
                self._live_feed(data[before:pos])
                if status is None:
                    return pos
                if status == "closed":
                    self._close(self._body(), closed=True)
                elif status == "more":
                    self._close(self._body(), closed=False)
                elif status == "abort":
                    self._malformed("it does not start like a value")
                else:  # "mismatch"
                    self._malformed("its brackets do not match")
                if status == "more":
                    return n

    # ---------------------------------------------------------------- regions
    def _enter(self, region: Region) -> None:
        self._open = region
        self._n_regions += 1
        if region.bare and region.end is not None:  # the markers belong to the body
            self._region, self._prefix = [region.start], 0
            self._end_find = _finder((region.end,))
            self._state = "region"
            self._live_begin(self._new_stream(region))
            self._live_feed(region.start)
        elif region.bare:
            self._region, self._prefix = [], 0
            self._start_value()
        else:
            self._region, self._prefix = [region.start], len(region.start)
            if region.end is None:
                self._state = "lead"
            else:
                self._end_find = _finder((region.end,))
                self._state = "region"
                self._live_begin(self._new_stream(region))

    def _new_stream(self, region: Region) -> CallStream | None:
        return None if region.stream is None else region.stream(self.schemas)

    def _start_value(self) -> None:
        assert self._open is not None
        python = self._open.syntax == "python"
        self._scanner = BracketScanner(python=python, first="identifier" if python else "value")
        self._state = "value"
        self._live_begin(self._new_stream(self._open))

    def _body(self) -> str:
        return "".join(self._region)[self._prefix :]

    def _label(self) -> str:
        region = self._open
        assert region is not None
        what = (
            "the call list" if region.bare and region.end is None else f"the {region.start} region"
        )
        return f"{what} {self._n_regions}"

    def _close(self, body: str, *, closed: bool) -> None:
        region = self._open
        assert region is not None
        committed, live = self._live_end(closed, self._label(), body)
        if committed:
            if not closed and region.end is not None and live is not None and live.error is None:
                self._problem(
                    f"{self._label()} is not closed by {region.end}; parsed as far as it is valid"
                )
            self._reset()
            return None
        try:
            found = region.read(body, self.schemas)
        except RecursionError:
            found = [], "it is nested too deeply"
        if found is None or not found[0]:
            if not closed and live is not None and self._live_calls(live, self._label()):
                self._text(body[live.done_at :])  # constrained output cut inside its list
                self._reset()
                return None
            if not closed and region.end is None:
                return self._malformed("its brackets are not closed")
            reason = found[1] if found else "it does not hold a tool call"
            return self._malformed(reason or "it does not hold a tool call")
        if not closed and region.end is not None:
            self._problem(
                f"{self._label()} is not closed by {region.end}; parsed as far as it is valid"
            )
        self._reset()
        for call in found[0]:
            self._call(call.name, call.arguments)
        return None

    def _malformed(self, reason: str) -> None:
        region = self._open
        assert region is not None
        committed, live = self._live_end(False, self._label(), self._body())
        if committed:  # calls of the region were sent: they stay calls
            if live is not None and live.error is None:
                self._problem(
                    f"{self._label()} {COMMITTED_NOTE} ({reason}); the calls sent are kept"
                )
            self._reset()
            return
        raw = "".join(self._region)
        if region.call_like is not None:  # may hold other text: a problem if it looked like a call
            loud = region.call_like.match(raw, 0 if region.bare else len(region.start)) is not None
        else:
            loud = not region.bare
        if loud:
            self._problem(f"{self._label()} is malformed: {reason}; kept as content")
        self._text(raw)
        self._reset()

    def _reset(self) -> None:
        self._region, self._scanner, self._open, self._end_find = [], None, None, None
        self._state = "text"
