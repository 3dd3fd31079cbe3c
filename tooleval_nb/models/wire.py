"""Wire formats: how tools and tool calls travel in a request and its reply.

A :class:`WireFormat` prepares the request's messages, ``tools`` and ``tool_choice`` and reads
the tool calls back from the reply:

* :class:`NativeWire` (mode ``native``): the tools in the request's ``tools`` field under their
  provider-safe names (``Tool.api_name``), a named ``tool_choice`` given the API name, and the
  reply's ``tool_calls`` mapped back to the suite's names and repaired (JSON stuffed in a name);
  for the embedded server the messages are adapted to its ``chatml-function-calling`` template
  (:func:`~.messages.for_chatml_tools`);
* :class:`RawTextWire` (any parser format): no tools field; the tools described in the system
  prompt (:mod:`.rawtext`), the calls parsed from the reply's text by that format's parser,
  looked up once when the wire is made.

:func:`wire_for` gives the one wire of a spec. What a reply could not give (malformed arguments,
text the parser could not read) is returned as ``problems``, never raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ModelConfigError
from ..parsers import repair_tool_call
from ..parsers.protocol import Compat
from ..parsers.registry import parse_as, parser_class
from ..parsers.vllm import VLLM_FORMATS
from ..suite import Tool
from ..toolcall import ToolCall
from .messages import for_chatml_tools, merge_system
from .rawtext import RAW_FORMATS, prepare_messages
from .spec import ModelSpec

__all__ = ["NativeWire", "RawTextWire", "Reading", "WireFormat", "WireParts", "wire_for"]


@dataclass(slots=True)
class WireParts:
    """What a wire format puts in a request."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    tool_choice: Any = None
    #: the name sent for a tool → the suite's name, to read the reply's calls back
    names: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Reading:
    """What a wire format reads from a reply: calls (suite names), the remaining text, problems."""

    calls: list[ToolCall]
    content: str | None
    problems: list[str]
    #: reasoning the raw-text parser kept apart from the content (``<think>``, harmony analysis)
    reasoning: str | None = None


class WireFormat(Protocol):
    """How tools and tool calls travel (see the module docstring)."""

    #: the embedded server's chat template for this wire
    chat_format: str

    def prepare(
        self, messages: Sequence[dict[str, Any]], tools: list[Tool], tool_choice: Any
    ) -> WireParts:
        """The request parts; raises :class:`ModelConfigError` for a bad ``tool_choice``."""
        ...

    def read(self, message: dict[str, Any], tools: list[Tool], names: dict[str, str]) -> Reading:
        """The calls and text of a reply's assistant ``message``."""
        ...


_TOOL_PARTS: dict[tuple[int, ...], tuple[list[Tool], list[dict[str, Any]], dict[str, str]]] = {}


def _tool_parts(tools: list[Tool]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The ``tools`` field (each ``tool.to_openai(api_names=True)``) and the API name → suite
    name map, memoised by the identity of the Tool objects (tools are not changed once handed to
    a call; a run sends the same few tools thousands of times, and the direct client serialises
    a list of the same dicts once)."""
    key = tuple(map(id, tools))
    hit = _TOOL_PARTS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], tools, strict=True)):
        return hit[1], hit[2]
    if len(_TOOL_PARTS) > 1024:
        _TOOL_PARTS.clear()
    payloads = [t.to_openai(api_names=True) for t in tools]
    names = {t.api_name: t.name for t in tools}
    _TOOL_PARTS[key] = (list(tools), payloads, names)
    return payloads, names


def _text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    return content if isinstance(content, str) else None


class NativeWire:
    """Tools in the request's ``tools`` field, calls from the reply's ``tool_calls``.

    Args:
        chatml_tools: adapt the messages to the embedded server's template.
    """

    def __init__(self, *, chatml_tools: bool = False):
        self.chatml_tools = chatml_tools
        self.chat_format = "chatml-function-calling"

    def prepare(
        self, messages: Sequence[dict[str, Any]], tools: list[Tool], tool_choice: Any
    ) -> WireParts:
        msgs = merge_system(messages)
        if self.chatml_tools:
            msgs = for_chatml_tools(msgs)
        if not tools:
            return WireParts(msgs)
        payloads, names = _tool_parts(tools)
        return WireParts(msgs, list(payloads), _api_tool_choice(tool_choice, tools), names)

    def read(self, message: dict[str, Any], tools: list[Tool], names: dict[str, str]) -> Reading:
        calls: list[ToolCall] = []
        problems: list[str] = []
        for i, raw_call in enumerate(message.get("tool_calls") or ()):
            try:
                call = ToolCall.of(raw_call)
            except (ValueError, TypeError) as exc:
                problems.append(f"tool call {i} could not be read: {exc}")
                continue
            call = repair_tool_call(call, problems)  # JSON stuffed in the name; recorded
            original = names.get(call.function.name)
            if original and original != call.function.name:
                call = call.model_copy(
                    update={"function": call.function.model_copy(update={"name": original})}
                )
            if call.parsed_arguments() is None:
                problems.append(
                    f"tool call {i} ({call.function.name}): arguments are not a JSON "
                    f"object: {call.function.arguments[:200]!r}"
                )
            calls.append(call)
        return Reading(calls, _text(message), problems)

    def __repr__(self) -> str:
        return f"NativeWire(chatml_tools={self.chatml_tools})"


def _api_tool_choice(tool_choice: Any, tools: list[Tool]) -> Any:
    """Normalise tool_choice; a bare function name becomes the OpenAI dict with the API name."""
    if tool_choice is None or tool_choice in ("auto", "required", "none"):
        return tool_choice
    name: Any
    if isinstance(tool_choice, str):
        name = tool_choice
        fn: dict[str, Any] = {}
    elif isinstance(tool_choice, dict):
        fn = dict(tool_choice.get("function") or {})
        name = fn.get("name")
    else:
        raise ModelConfigError(
            f"tool_choice must be 'auto', 'required', 'none', a tool name or a "
            f"dict, not {tool_choice!r:.100}"
        )
    for tool in tools:
        if tool.name == name:
            name = tool.api_name
            break
    if name is not None:
        fn["name"] = name
    return {"type": "function", "function": fn}


class RawTextWire:
    """Tools described in the prompt, calls parsed from the reply's text in one parser format.

    Raises:
        ModelConfigError: ``format`` is not a parser format.
    """

    chat_format = "chatml"

    def __init__(self, format: str, compat: Compat = "default"):
        if format not in RAW_FORMATS:
            raise ModelConfigError(f"unknown raw-text format {format!r}; use one of {RAW_FORMATS}")
        if compat == "vllm" and format not in VLLM_FORMATS:
            raise ModelConfigError(
                f"parser_compat='vllm' does not read the {format!r} format yet; it reads "
                f"{', '.join(VLLM_FORMATS)}; use parser_compat='default' for {format!r}"
            )
        self.format = format
        self.compat = compat
        self._parser = parser_class(format)

    def prepare(
        self, messages: Sequence[dict[str, Any]], tools: list[Tool], tool_choice: Any
    ) -> WireParts:
        choice = (tool_choice or "none") if tools else "none"
        return WireParts(prepare_messages(messages, tools, self.format, choice))

    def read(self, message: dict[str, Any], tools: list[Tool], names: dict[str, str]) -> Reading:
        text = _text(message)
        if not text:
            return Reading([], text, [])
        info = parse_as(self._parser, text, tools or None, self.compat)
        return Reading(list(info.tool_calls), info.content, list(info.problems), info.reasoning)

    def __repr__(self) -> str:
        extra = "" if self.compat == "default" else f", compat={self.compat!r}"
        return f"RawTextWire({self.format!r}{extra})"


_WIRES: dict[tuple[str, bool, str], WireFormat] = {}


def wire_for(spec: ModelSpec) -> WireFormat:
    """The wire format of ``spec`` (its ``mode``), one instance per mode."""
    key = (spec.mode, spec.embedded, spec.parser_compat)
    wire = _WIRES.get(key)
    if wire is None:
        if spec.mode == "native":
            wire = NativeWire(chatml_tools=spec.embedded)
        else:
            wire = RawTextWire(spec.mode, spec.parser_compat)
        _WIRES[key] = wire
    return wire
