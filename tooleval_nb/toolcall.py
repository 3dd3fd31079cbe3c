"""OpenAI-shaped tool calls: the one representation every layer shares.

Parsers produce them, models return them, scoring and the store consume them. ``ToolCall.of``
accepts the other shapes users hand us (OpenAI dicts, ``{"name", "arguments"}`` dicts, BFCL's
``{name: args}`` dicts, litellm/openai SDK objects) so that nobody converts by hand.
"""

from __future__ import annotations

import json
import os
import random
import string
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FunctionCall", "ToolCall", "make_call_id", "to_tool_calls"]

#: How a model is asked for tool calls: its API's native tool calling, or a raw-text format
#: (the model writes the calls in its text; :mod:`tooleval_nb.parsers` reads them back). The one
#: definition: configs, model specs, run settings and report parameters import it.

_ALNUM = string.ascii_letters + string.digits
#: the ids' own generator: seeded from the OS at import and again in every forked child (so
#: workers never repeat each other's ids), and apart from ``random``'s global one (a user's
#: ``random.seed`` neither fixes our ids nor has its sequence consumed by them). An id names a
#: call within a conversation; it is not a secret, so one draw of 24 characters replaces 24
#: reads of the OS's entropy (``secrets.choice``: a tenth of BFCL's partial-credit time).
_IDS = random.Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_IDS.seed)


def make_call_id(length: int = 24, prefix: str = "call_") -> str:
    """A random tool-call id; ``prefix + length`` characters (at least 16 in all by default)."""
    return prefix + "".join(_IDS.choices(_ALNUM, k=length))


class FunctionCall(BaseModel):
    """The function part of a tool call; ``arguments`` is a JSON string (or ``""``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: str = "{}"


class ToolCall(BaseModel):
    """An OpenAI-compatible tool call (``{"id", "type": "function", "function": {...}}``)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(default_factory=make_call_id)
    type: Literal["function"] = "function"
    function: FunctionCall

    @classmethod
    def create(
        cls, name: str, arguments: dict[str, Any] | str | None = None, id: str | None = None
    ) -> ToolCall:
        """Build a call from a name and arguments given as a dict or a JSON string."""
        if arguments is None:
            args = "{}"
        elif isinstance(arguments, str):
            args = arguments
        else:
            args = json.dumps(arguments, ensure_ascii=False)
        fn = FunctionCall(name=name, arguments=args)
        return cls(function=fn) if id is None else cls(id=id, function=fn)

    @property
    def name(self) -> str:
        return self.function.name

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as a dict; ``{}`` for empty arguments; None when they are not a JSON object."""
        raw = self.function.arguments
        if raw is None or raw.strip() == "":
            return {}
        try:
            value = json.loads(raw)
        except (ValueError, TypeError):
            return None
        return value if isinstance(value, dict) else None

    @classmethod
    def of(cls, obj: Any) -> ToolCall:
        """Convert any supported shape to a ToolCall.

        Accepted: a ToolCall; an OpenAI dict ``{"function": {"name", "arguments"}}`` (arguments as a
        JSON string or a dict); a flat ``{"name", "arguments"|"parameters"}`` dict; a BFCL-style
        single-key dict ``{name: arguments}``; any object with ``.function.name`` /
        ``.function.arguments`` (litellm and openai SDK objects).
        """
        if isinstance(obj, ToolCall):
            return obj
        if isinstance(obj, dict):
            call_id = obj.get("id") or None
            if isinstance(obj.get("function"), dict):
                fn = obj["function"]
                return cls.create(str(fn.get("name") or ""), _args(fn.get("arguments")), call_id)
            if "name" in obj:
                args = obj.get("arguments", obj.get("parameters"))
                return cls.create(str(obj["name"]), _args(args), call_id)
            if len(obj) == 1:
                ((name, args),) = obj.items()
                return cls.create(str(name), _args(args))
            raise ValueError(f"not a tool call: {obj!r:.200}")
        fn = getattr(obj, "function", None)
        if fn is not None and hasattr(fn, "name"):
            call_id = getattr(obj, "id", None) or None
            return cls.create(str(fn.name or ""), _args(getattr(fn, "arguments", None)), call_id)
        raise ValueError(f"not a tool call: {obj!r:.200}")


def _args(value: Any) -> dict[str, Any] | str | None:
    if value is None or isinstance(value, (dict, str)):
        return value
    return json.dumps(value, ensure_ascii=False)


def to_tool_calls(calls: Any) -> list[ToolCall]:
    """Normalise None, one call, or a list of calls in any supported shape to ``list[ToolCall]``."""
    if calls is None:
        return []
    if isinstance(calls, (ToolCall, dict)) or hasattr(calls, "function"):
        return [ToolCall.of(calls)]
    return [ToolCall.of(c) for c in calls]
