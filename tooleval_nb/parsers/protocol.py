"""The parser data model (the seed's names) and the base streaming parser.

* :class:`ExtractedToolCallInformation`: the result of parsing a whole output.
* :class:`DeltaMessage`, :class:`DeltaToolCall`, :class:`DeltaFunctionCall`: what a streaming
  parser emits. A tool call's first delta carries its ``index``, ``id``, ``type`` and ``name``;
  later deltas for the same index carry only argument fragments.
* :class:`ToolParser`: the base class of every format. ``feed(delta)`` returns a
  :class:`DeltaMessage` or None, ``finish()`` flushes what is left, ``result()`` gives the
  :class:`ExtractedToolCallInformation` so far. Non-streaming parsing is the same machine fed the
  whole text at once, so the two modes cannot drift apart.

Streaming contract (what every format here guarantees):

* Work is linear: each delta is scanned once; only a few characters that might begin a marker
  (``<tool_c``) or end a value (an escape, a number) are held back between deltas.
* Text is emitted as content as soon as it cannot be part of a tool call.
* A call's first delta (``index``, ``id``, ``type``, ``name``) is sent as soon as its name is
  certain; its arguments follow as fragments as soon as they are certain (a format's region
  reads its body with a :class:`~._callstream.CallStream`). Fragments only append: they
  concatenate to the final ``arguments`` string, character for character.
* **The end equals the whole text.** A call whose name was sent may turn out malformed (or not a
  call at all) later; a delta cannot be taken back, but the stream's *final state* is the
  whole-text parse of the same text, for every input: when the stream ends, the last delta
  withdraws the calls the whole-text parse does not have (``DeltaToolCall.withdrawn``), sends
  the ones it has and the stream did not, cuts content back and resends its end where they
  differ (``DeltaMessage.content_from``), and carries the whole-text ``problems``
  (see :mod:`._settle`). Meanwhile a call sent whose region turns malformed is closed where it
  stopped (``{"a": "x`` becomes ``{"a": "x"}``) so that every delta stays valid.
* Malformed input never raises: its text becomes content and a sentence is added to
  ``problems``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Literal

from ..errors import ParserError
from ..toolcall import FunctionCall, ToolCall, make_call_id
from ._callstream import CallStream
from ._scan import MarkerFinder
from ._settle import SentState, settle
from .messages import (
    COMPAT_MODES,
    Compat,
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    final_content,
)

__all__ = [
    "ExtractedToolCallInformation",
    "DeltaFunctionCall",
    "DeltaToolCall",
    "DeltaMessage",
    "ToolParser",
    "IdStyle",
    "final_content",
    "tool_index",
    "tool_schemas",
    "ToolSchemas",
    "mistral_call_id",
    "COMMITTED_NOTE",
    "Compat",
    "COMPAT_MODES",
]

#: the words a stream's own "malformed after its name was sent" note holds; the stream's final
#: problems are the whole-text parse's, so this note never reaches a result
COMMITTED_NOTE = "turned malformed after its name was sent"

#: tool name -> its parameters' schemas (``properties``), in schema order
ToolSchemas = dict[str, dict[str, Any]]

#: How a format's tool-call ids look: OpenAI-like (``call_`` + 24 characters) or Mistral's
#: nine alphanumeric characters.
IdStyle = Literal["openai", "mistral"]


def mistral_call_id() -> str:
    """A Mistral tool-call id: nine random alphanumeric characters."""
    return make_call_id(9, prefix="")


def tool_index(tools: Iterable[Any] | None) -> dict[str, list[str]] | None:
    """Map each tool name to its parameter names in schema order (Tool objects or OpenAI dicts)."""
    schemas = tool_schemas(tools)
    return None if schemas is None else {name: list(props) for name, props in schemas.items()}


def tool_schemas(tools: Iterable[Any] | None) -> ToolSchemas | None:
    """Map each tool name to its parameters' schemas, in schema order (Tool objects or OpenAI
    dicts); the XML-ish formats type their raw-text values with them."""
    if tools is None:
        return None
    index: ToolSchemas = {}
    for tool in tools:
        fn: Any = getattr(tool, "function", None)
        if fn is None and isinstance(tool, dict):
            fn = tool.get("function", tool)
        if isinstance(fn, dict):
            name, params = fn.get("name"), fn.get("parameters") or {}
        else:
            name, params = getattr(fn, "name", None), getattr(fn, "parameters", None) or {}
        if isinstance(name, str) and name:
            props = params.get("properties") if isinstance(params, dict) else None
            index[name] = (
                {k: v for k, v in props.items() if isinstance(k, str)}
                if isinstance(props, dict)
                else {}
            )
    return index


class ToolParser:
    """Base class of the raw-text parsers: a stateful, incremental, never-raising scanner.

    Subclasses set :attr:`format` and implement :meth:`_scan`, reporting what they find through
    :meth:`_text`, :meth:`_think`, :meth:`_call` and :meth:`_problem`.

    A parser instance handles one output: create a fresh one (``get_parser(format)``) per output.

    Attributes:
        tools: tool name -> parameter names in schema order (None without tools).
        schemas: tool name -> parameter schemas (None without tools); the XML-ish formats type
            their raw-text values with them.
        problems: one sentence per malformed or suspicious part found so far.
    """

    #: the format name used by ``get_parser`` / ``parse_tool_calls``
    format: ClassVar[str] = ""
    #: how tool-call ids look for this format
    id_style: ClassVar[IdStyle] = "openai"

    def __init__(self, tools: Iterable[Any] | None = None) -> None:
        tools = None if tools is None else list(tools)
        #: how the whole text is read (``get_parser(..., compat=)`` sets both before the first
        #: feed): the stream's last delta settles it to ``whole_reader(text, tools)``, our own
        #: whole-text parse when None
        self.compat: Compat = "default"
        self.whole_reader: Callable[[str, list[Any] | None], ExtractedToolCallInformation] | None
        self.whole_reader = None
        self._tool_list = tools
        #: the text fed and what the deltas sent, to settle the stream at its end
        self._fed: list[str] = []
        self._sent = SentState()
        self._rewind_content: int | None = None
        self._rewind_reasoning: int | None = None
        self._final: ExtractedToolCallInformation | None = None
        self.schemas = tool_schemas(tools)
        self.tools = None if self.schemas is None else {n: list(p) for n, p in self.schemas.items()}
        self.problems: list[str] = []
        self._hold = ""
        #: raw text of the region being scanned (a call not yet complete); kept as content if
        #: the region turns out malformed
        self._region: list[str] = []
        self._finished = False
        self._broken = False
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[ToolCall] = []
        self._stream = True
        self._d_content: list[str] = []
        self._d_reasoning: list[str] = []
        self._d_calls: list[DeltaToolCall] = []
        #: the call stream of the region being read, the ids and fragment counts of its calls
        #: sent so far, and whether any was sent (the region is committed)
        self._live: CallStream | None = None
        self._live_sent: list[list[Any]] = []
        #: the calls before this index were sent whole and closed (their parts never change):
        #: each delta looks only at the calls from here on, so many calls in one region stay
        #: linear
        self._live_done = 0

    # ------------------------------------------------------------------ public API
    @classmethod
    def parse(cls, text: str, tools: Iterable[Any] | None = None) -> ExtractedToolCallInformation:
        """Parse a whole output (non-streaming), in our reading (``parse_tool_calls(...,
        compat="vllm")`` reads it as vLLM serves it)."""
        parser = cls(tools)
        parser._stream = False
        parser.feed(text)
        parser.finish()
        return parser.result()

    def feed(self, delta: str) -> DeltaMessage | None:
        """Scan the next piece of output; returns what can be emitted now, or None."""
        if self._finished:
            raise ParserError(
                f"{type(self).__name__}.feed() called after finish(); "
                "create a fresh parser with get_parser() for each output"
            )
        if not isinstance(delta, str):
            raise ParserError(f"feed() takes text, got {type(delta).__name__}")
        if self._stream:
            self._fed.append(delta)
        data = self._hold + delta if self._hold else delta
        self._hold = ""
        if self._broken:
            self._text(data)
        else:
            try:
                used = self._scan(data, False)
                self._hold = data[used:]
            except Exception as exc:  # a parser bug must not lose the text: degrade to content
                self._fail(exc, data)
        return self._flush()

    def finish(self) -> DeltaMessage | None:
        """Flush the end of the output (an unclosed block is parsed as far as it is valid)."""
        if self._finished:
            return None
        data, self._hold = self._hold, ""
        if self._broken:
            self._text(data)
        else:
            try:
                self._scan(data, True)
            except Exception as exc:
                self._fail(exc, data)
        self._finished = True
        if not self._stream:
            return None
        if self._live is not None:
            self._live_send()
        text = "".join(self._fed)
        if self.whole_reader is not None:
            whole = self.whole_reader(text, self._tool_list)
        else:
            whole = type(self).parse(text, self._tool_list)
        self._final = settle(self, whole)
        self.problems = list(whole.problems)
        return self._flush(last=True)

    def result(self) -> ExtractedToolCallInformation:
        """The calls, content, reasoning and problems found so far (complete after finish()).

        After a stream's finish() this is the whole-text parse of the text fed (with the ids
        the stream sent), which is also what a reconstructor of its deltas ends with.
        """
        if self._final is not None:
            return self._final
        calls = list(self._calls)
        reasoning = "".join(self._reasoning)
        return ExtractedToolCallInformation(
            tools_called=bool(calls),
            tool_calls=calls,
            content=final_content("".join(self._content), bool(calls)),
            reasoning=reasoning or None,
            problems=list(self.problems),
        )

    # ------------------------------------------------------------------ for subclasses
    def _scan(self, data: str, final: bool) -> int:
        """Consume ``data`` (held tail + new delta); return how many characters were consumed.

        The rest is held and passed again, in front of the next delta; it must stay short (a
        partial marker) so that the total work stays linear. With ``final`` consume everything.
        """
        raise NotImplementedError

    def _text_until(
        self, finder: MarkerFinder, data: str, pos: int, final: bool
    ) -> tuple[int, str | None]:
        """Emit the text before the next marker as content; returns ``finder.find``'s answer."""
        idx, marker = finder.find(data, pos, final)
        self._text(data[pos:idx])
        return idx, marker

    def _text(self, text: str) -> None:
        if text:
            self._content.append(text)
            if self._stream:
                self._d_content.append(text)

    def _think(self, text: str) -> None:
        if text:
            self._reasoning.append(text)
            if self._stream:
                self._d_reasoning.append(text)

    def _problem(self, message: str) -> None:
        self.problems.append(message)

    def _new_id(self) -> str:
        return mistral_call_id() if self.id_style == "mistral" else make_call_id()

    def _check_name(self, index: int, name: str) -> None:
        if self.tools is not None and name not in self.tools:
            self._problem(
                f"tool call {index} names {name!r}, which is not among the tools "
                f"offered ({', '.join(sorted(self.tools)) or 'none'})"
            )

    def _call(self, name: str, arguments: str) -> None:
        call_id = self._new_id()
        index = len(self._calls)
        self._calls.append(
            ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))
        )
        self._check_name(index, name)
        if self._stream:
            self._d_calls.append(
                DeltaToolCall(
                    index=index,
                    id=call_id,
                    type="function",
                    function=DeltaFunctionCall(name=name, arguments=arguments),
                )
            )

    # ------------------------------------------------------------------ streamed calls
    def _live_begin(self, stream: CallStream | None) -> None:
        """Start reading a region's body with ``stream`` (None: the format does not stream)."""
        self._live, self._live_sent, self._live_done = stream, [], 0

    def _live_feed(self, text: str) -> None:
        # a whole-text parse never commits: its stream is needed only to rescue the closed calls
        # of an unclosed body (see _live_end), so it reads the body then, once
        if self._stream and self._live is not None and text:
            self._live.feed(text)

    @property
    def _committed(self) -> bool:
        return bool(self._live_sent)

    def _live_send(self) -> None:
        """Send what the live stream holds beyond what was sent (heads, then fragments)."""
        live = self._live
        if live is None or (live.error is not None and not self._live_sent):
            return  # the error showed before anything was sent: the region is read whole
        base = len(self._calls)
        calls = live.calls
        for k in range(self._live_done, len(calls)):
            call = calls[k]
            if call.name is None:
                break
            if k == len(self._live_sent):
                call_id = self._new_id()
                self._live_sent.append([call_id, len(call.parts)])
                self._check_name(base + k, call.name)
                self._d_calls.append(
                    DeltaToolCall(
                        index=base + k,
                        id=call_id,
                        type="function",
                        function=DeltaFunctionCall(name=call.name, arguments="".join(call.parts)),
                    )
                )
            else:
                entry = self._live_sent[k]
                if entry[1] < len(call.parts):
                    fragment = "".join(call.parts[entry[1] :])
                    entry[1] = len(call.parts)
                    if fragment:
                        self._d_calls.append(
                            DeltaToolCall(
                                index=base + k, function=DeltaFunctionCall(arguments=fragment)
                            )
                        )
            if call.closed and k == self._live_done:
                self._live_done = k + 1

    def _live_end(
        self, closed: bool, label: str, body: str | None = None
    ) -> tuple[bool, CallStream | None]:
        """The region ended: finish its stream. Returns ``(committed, stream)``.

        When the region was committed its calls are recorded here (with the error, if any, in
        ``problems`` and the body's text from the error on as content); otherwise the caller
        reads the body whole, as in a whole-text parse.
        """
        live = self._live
        if live is None:
            return False, None
        if not self._stream:
            self._live = None
            if closed or body is None:
                return False, None
            live.feed(body)
        live.finish(closed)
        if not self._committed:
            self._live, self._live_sent = None, []
            return False, live
        if self._stream:
            self._live_send()
        self._live = None
        for k, call in enumerate(live.calls):
            if call.name is None or k >= len(self._live_sent):
                break
            self._calls.append(
                ToolCall(
                    id=self._live_sent[k][0],
                    function=FunctionCall(name=call.name, arguments=call.arguments),
                )
            )
        self._live_sent = []
        if live.error is not None:
            self._problem(
                f"{label} {COMMITTED_NOTE} ({live.error}); the calls sent are kept, "
                "their arguments closed where they stopped, and the rest of it is "
                "content"
            )
            if body:
                self._text(body[live.error_at :])
        return True, live

    def _live_calls(self, live: CallStream | None, label: str) -> bool:
        """Constrained output: emit the calls of an unclosed body whose objects closed (a list
        that never closed); True when there were any."""
        if live is None or not live.completed:
            return False
        calls = live.completed
        self._problem(f"{label} is not closed; its {len(calls)} complete call(s) are kept")
        for call in calls:
            self._call(call.name or "", call.arguments)
        return True

    # ------------------------------------------------------------------ internals
    def _fail(self, exc: Exception, data: str) -> None:
        if self._committed:
            self._live_end(False, "the region being read")
        self._live, self._live_sent = None, []
        self._broken = True
        self._problem(
            f"the {self.format} parser failed ({type(exc).__name__}: {exc}); "
            "the rest of the output is kept as content"
        )
        self._text("".join(self._region) + data)
        self._region = []

    def _flush(self, last: bool = False) -> DeltaMessage | None:
        if self._stream and self._live is not None and not last:
            self._live_send()
        problems = self.problems if last else []
        if not (
            self._d_content
            or self._d_reasoning
            or self._d_calls
            or problems
            or self._rewind_content is not None
            or self._rewind_reasoning is not None
        ):
            return None
        content, reasoning = "".join(self._d_content), "".join(self._d_reasoning)
        message = DeltaMessage(
            content=content or None,
            reasoning=reasoning or None,
            tool_calls=self._d_calls,
            content_from=self._rewind_content,
            reasoning_from=self._rewind_reasoning,
            problems=list(problems),
        )
        if self._stream:
            self._sent.record(
                content, reasoning, self._d_calls, (self._rewind_content, self._rewind_reasoning)
            )
        self._d_content, self._d_reasoning, self._d_calls = [], [], []
        return message
