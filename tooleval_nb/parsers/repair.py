"""Repair native tool calls from local servers that stuff the whole call into the name.

Small local models served through llama.cpp, Ollama or LM Studio sometimes return a native tool
call whose *function name* holds the entire call, e.g. ``name='{"name": "get_weather",
"arguments": {"city": "Tokyo"}}'`` with ``arguments='{}'``. :func:`repair_tool_call` detects the
shapes below and returns the call it meant, keeping the id:

* JSON (or a Python-literal dict) in the name: ``{"name": ..., "arguments"|"parameters": ...}``,
  OpenAI's ``{"function": {...}}``, optionally inside ``<tool_call>`` tags or a code fence;
* a name followed by its JSON arguments: ``get_weather{"city": "Tokyo"}``;
* a pythonic call in the name: ``get_weather(city='Tokyo')`` or ``[get_weather(city='Tokyo')]``;
* arguments that wrap the call again: ``name='f'``, ``arguments='{"name": "f", "arguments":
  {...}}'``.

Arguments found in the name are used when the call's own arguments are empty; otherwise the
call's arguments win. A call that needs no repair is returned unchanged (the same object).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ..toolcall import FunctionCall, ToolCall
from ._calls import call_from_object, load_json, load_literal
from .registry import parser_class

__all__ = ["repair_tool_call", "repair_tool_calls"]

_NAME_THEN_JSON = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*(\{.*\})\s*", re.DOTALL)
_PY_CALL = re.compile(r"\s*\[?\s*[A-Za-z_][\w.]*\s*\(.*\)\s*\]?\s*", re.DOTALL)
_WRAPPERS = (("<tool_call>", "</tool_call>"), ("```json", "```"), ("```", "```"))
_ARG_KEYS = ("arguments", "parameters", "args", "input")
_PLAIN_NAME = re.compile(r"[\w.\-]+")


def _unwrap_text(text: str) -> str:
    text = text.strip()
    for opening, closing in _WRAPPERS:
        if text.startswith(opening):
            text = text[len(opening) :]
            if text.endswith(closing):
                text = text[: -len(closing)]
            text = text.strip()
    return text


def _from_object(value: Any) -> tuple[str, str] | None:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    result = call_from_object(value, arg_keys=_ARG_KEYS)
    if result is None or result.problem:
        return None
    return result.name, result.arguments


def _from_name(name: str) -> tuple[str, str] | None:
    text = _unwrap_text(name)
    if text.startswith(("{", "[")):
        value, problem = load_json(text)
        if problem:
            value, problem = load_literal(text)
        if problem is None:
            found = _from_object(value)
            if found:
                return found
    match = _NAME_THEN_JSON.fullmatch(text)
    if match:
        value, problem = load_json(match.group(2))
        if problem is None:
            found = _from_object({"name": match.group(1), "arguments": value})
            if found:
                return found
    if _PY_CALL.fullmatch(text):
        source = text if text.startswith("[") else f"[{text}]"
        parsed = parser_class("pythonic").parse(source)
        if len(parsed.tool_calls) == 1:
            call = parsed.tool_calls[0]
            return call.function.name, call.function.arguments
    return None


def _empty(arguments: str | None) -> bool:
    if arguments is None or not arguments.strip():
        return True
    try:
        return json.loads(arguments) in ({}, None, "")
    except ValueError:
        return False


def repair_tool_call(call: Any, problems: list[str] | None = None) -> ToolCall:
    """Return the call a local server meant when it stuffed the call into the function name.

    Args:
        call: a :class:`~tooleval_nb.toolcall.ToolCall` or any shape ``ToolCall.of`` accepts.
        problems: when given, a sentence describing each repair made is appended to it.

    Returns:
        The repaired call (same id), or the call unchanged when nothing needed repair.
    """
    original = ToolCall.of(call)
    name, arguments = original.function.name, original.function.arguments
    note = None
    stripped = name.strip()
    if stripped and not _PLAIN_NAME.fullmatch(stripped):
        found = _from_name(stripped)
        if found:
            new_name, name_args = found
            arguments = name_args if _empty(arguments) else arguments
            note = f"the tool-call name held the whole call; read name {new_name!r} from it"
            name = new_name
    elif stripped != name:
        name, note = stripped, "the tool-call name had surrounding whitespace"
    value = None
    # an object with the key "name" has that word in its text, or a \u escape (most arguments
    # have neither, and are not decoded here)
    if (
        arguments
        and ("name" in arguments or "\\" in arguments)
        and arguments.strip().startswith("{")
    ):
        value, _ = load_json(arguments)
    if (
        isinstance(value, dict)
        and value.get("name") == name
        and (
            set(value) <= {"name", "type", "id", *_ARG_KEYS} and any(k in value for k in _ARG_KEYS)
        )
    ):
        found = _from_object(value)
        if found:
            arguments = found[1]
            note = (note + "; " if note else "") + "the arguments wrapped the call again"
    if note is None:
        return original
    if problems is not None:
        problems.append(f"tool call {original.id}: {note}")
    return ToolCall(id=original.id, function=FunctionCall(name=name, arguments=arguments))


def repair_tool_calls(calls: Iterable[Any], problems: list[str] | None = None) -> list[ToolCall]:
    """:func:`repair_tool_call` applied to each call."""
    return [repair_tool_call(c, problems) for c in calls]
