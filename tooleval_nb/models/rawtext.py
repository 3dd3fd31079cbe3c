"""Raw-text mode's messages: the tools described in the prompt (the request side of
:class:`~.wire.RawTextWire`, which also parses the reply).

No ``tools`` field is sent. The system prompt gains the tools rendered in a named format
(``hermes``, ``pythonic``, any parser format) by :mod:`tooleval_nb.parsers.prompting`, followed by
one example exchange in that format; earlier assistant tool calls and tool results in the
conversation are re-rendered as text in the same format (providers reject ``tool`` messages
without tools, and the llama.cpp chatml template drops them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..parsers import prompting
from ..parsers.registry import PARSER_FORMATS
from .messages import merge_system, text_of, tool_names_by_id

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import Tool

__all__ = ["RAW_FORMATS", "prepare_messages"]

#: every parser format can be a raw-text mode (see models.spec.MODES)
RAW_FORMATS = PARSER_FORMATS


def _render_calls(calls: Sequence[dict[str, Any]], fmt: str) -> str:
    return str(prompting.render_tool_calls(list(calls), fmt))


def _render_result(name: str, content: str, fmt: str) -> str:
    if fmt == "hermes":
        return (
            f"<tool_response>\n{json.dumps({'name': name, 'content': content})}\n</tool_response>"
        )
    return f"Result of {name}(): {content}"


def _tool_choice_note(tool_choice: Any) -> str:
    if tool_choice == "required":
        return "\n\nYou must answer with at least one function call."
    name = None
    if isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name")
    elif isinstance(tool_choice, str) and tool_choice not in ("auto", "none"):
        name = tool_choice
    return f"\n\nYou must call the function {name}." if name else ""


def prepare_messages(
    messages: Sequence[dict[str, Any]], tools: Sequence[Tool], fmt: str, tool_choice: Any = "auto"
) -> list[dict[str, Any]]:
    """The messages to send in raw-text mode (see the module docstring).

    With ``tool_choice="none"`` or no tools, the tools are not described at all. ``fmt`` is
    one of :data:`RAW_FORMATS` (checked once, by the wire).
    """
    merged = merge_system(messages)
    system = ""
    if merged and merged[0].get("role") == "system":
        system = text_of(merged.pop(0).get("content"))
    head: list[dict[str, Any]] = []
    if tools and tool_choice != "none":
        described = prompting.render_tools_prompt(list(tools), fmt) + _tool_choice_note(tool_choice)
        system = f"{system}\n\n{described}" if system else described
        head = [dict(m) for m in prompting.example_exchange(fmt, list(tools))]
    names = tool_names_by_id(merged)
    body: list[dict[str, Any]] = []
    for msg in merged:
        role = msg.get("role")
        if role == "assistant" and msg.get("tool_calls"):
            text = text_of(msg.get("content")).strip()
            calls = _render_calls(msg["tool_calls"], fmt)
            body.append({"role": "assistant", "content": f"{text}\n{calls}" if text else calls})
        elif role in ("tool", "function"):
            name = msg.get("name") or names.get(msg.get("tool_call_id", ""), "") or "tool"
            body.append(
                {"role": "user", "content": _render_result(name, text_of(msg.get("content")), fmt)}
            )
        else:
            body.append(
                {
                    "role": role if role in ("user", "assistant") else "user",
                    "content": text_of(msg.get("content")),
                }
            )
    out = [{"role": "system", "content": system}] if system else []
    return [*out, *head, *body]
