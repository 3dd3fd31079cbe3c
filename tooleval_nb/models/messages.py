"""Message assembly: what a model is sent for one case.

Order (seed 001): the suite's system prompt, then the per-run system prompt (one string for every
model, or a dict keyed ``provider::model_id``), then the case's prompt — or the case's own
messages. All leading system texts are joined into ONE system message, since several providers
(and the llama.cpp chatml templates) keep only the first.

:func:`for_chatml_tools` adapts a conversation to the embedded server's ``chatml-function-calling``
template, which lists the tools only inside a system message and drops ``tool``-role messages: it
always sends a system message, renders earlier assistant tool calls in the template's own
``functions.<name>:`` text, and turns tool results into user messages the template keeps.

The calls go in the assistant's text, which the template prints after ``message:``, and not in
its ``tool_calls`` (printed as generated, without ``message:``). Measured on the bundled suites
with the embedded model: with ``tool_calls`` SmolLM2 keeps calling tools until its round limit
(agent_booking: 73 requests instead of 44, mean overall 0.29 instead of 0.40, 1.9x the generated
tokens), so the text form stays, although llama.cpp then re-evaluates each earlier call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .spec import ModelSpec, system_prompt_for

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import EvalCase

__all__ = [
    "DEFAULT_SYSTEM",
    "build_messages",
    "for_chatml_tools",
    "merge_system",
    "text_of",
    "tool_names_by_id",
]

#: The system message sent to the embedded model when the conversation has none.
DEFAULT_SYSTEM = "You are a helpful assistant with access to functions. Use them when they help."


def text_of(content: Any) -> str:
    """The text of a message ``content`` (a string, None, or a list of content parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def merge_system(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join the leading system messages into one (texts separated by a blank line)."""
    texts: list[str] = []
    i = 0
    while i < len(messages) and messages[i].get("role") in ("system", "developer"):
        text = text_of(messages[i].get("content")).strip()
        if text:
            texts.append(text)
        i += 1
    rest = [dict(m) for m in messages[i:]]
    if not texts:
        return rest
    return [{"role": "system", "content": "\n\n".join(texts)}, *rest]


def build_messages(
    case: EvalCase | str | Sequence[dict[str, Any]],
    *,
    suite_system_prompt: str | None = None,
    system_prompt: str | dict[str, str] | None = None,
    model: str | ModelSpec | None = None,
) -> list[dict[str, Any]]:
    """The messages for one case: suite system prompt, run system prompt, then the case.

    Args:
        case: an :class:`~tooleval_nb.suite.EvalCase` (its ``messages`` when set, else its
            ``prompt``), a prompt string, or a list of OpenAI messages.
        suite_system_prompt: the suite's ``system_prompt``.
        system_prompt: the per-run system prompt: a string, or a dict keyed ``provider::model_id``
            (then ``model`` selects the entry).
        model: the model the messages are for (only needed with a dict ``system_prompt``).
    """
    run_prompt = system_prompt
    if isinstance(system_prompt, dict):
        run_prompt = system_prompt_for(system_prompt, model) if model is not None else None
    head: list[dict[str, Any]] = []
    for text in (suite_system_prompt, run_prompt):
        if isinstance(text, str) and text.strip():
            head.append({"role": "system", "content": text})
    if isinstance(case, str):
        body: list[dict[str, Any]] = [{"role": "user", "content": case}]
    elif isinstance(case, Sequence):
        body = [dict(m) for m in case if isinstance(m, dict)]
    elif case.messages:
        body = [dict(m) for m in case.messages]
    else:
        body = [{"role": "user", "content": case.prompt}]
    return merge_system([*head, *body])


def tool_names_by_id(messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    """``tool_call_id`` → function name, from the assistant tool calls in ``messages``."""
    names: dict[str, str] = {}
    for msg in messages:
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            if call.get("id"):
                names[call["id"]] = fn.get("name", "")
    return names


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments or "{}"
    return json.dumps(arguments, ensure_ascii=False)


def for_chatml_tools(
    messages: Sequence[dict[str, Any]], default_system: str = DEFAULT_SYSTEM
) -> list[dict[str, Any]]:
    """Adapt messages to llama.cpp's ``chatml-function-calling`` template (see module docstring)."""
    merged = merge_system(messages)
    if not merged or merged[0].get("role") != "system":
        merged.insert(0, {"role": "system", "content": default_system})
    names = tool_names_by_id(merged)
    out: list[dict[str, Any]] = []
    for msg in merged:
        role = msg.get("role")
        if role == "assistant" and msg.get("tool_calls"):
            lines = [text_of(msg.get("content")).strip()] if msg.get("content") else []
            for call in msg["tool_calls"]:
                fn = call.get("function") or {}
                lines.append(
                    f"functions.{fn.get('name', '')}:\n{_arguments_text(fn.get('arguments'))}"
                )
            out.append({"role": "assistant", "content": "\n".join(lines)})
        elif role in ("tool", "function"):
            name = msg.get("name") or names.get(msg.get("tool_call_id", ""), "") or "tool"
            out.append(
                {
                    "role": "user",
                    "content": f"functions.{name} returned:\n{text_of(msg.get('content'))}",
                }
            )
        elif role in ("user", "assistant", "system"):
            out.append({"role": role, "content": text_of(msg.get("content"))})
        else:
            out.append({"role": "user", "content": text_of(msg.get("content"))})
    return out
