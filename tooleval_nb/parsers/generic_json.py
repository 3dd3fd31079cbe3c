"""Generic JSON fallback (format ``json``): tool calls written as JSON anywhere in the text.

Recognised, at the top level of any JSON object or array found in the text (optionally inside a
Markdown code fence, which is then dropped):

* ``{"name": "f", "arguments": {...}}``, with ``"parameters"``, ``"args"``, ``"input"`` or
  ``"tool_input"`` for the arguments and ``"tool"`` / ``"tool_name"`` / ``"function"`` for the
  name; an object with a name but no arguments key is a call only when the name is one of
  ``tools``;
* OpenAI's shape ``{"type": "function", "function": {"name", "arguments"}}``;
* a list of such objects, or ``{"tool_calls": [...]}``.

Other JSON is content. JSON that does not decode is content too; a problem is recorded when it
starts like a call (``{"name": ...``).

Streaming: a call is sent once its name and its arguments key are both read (or its name is an
offered tool's), its arguments object streams as written, also inside OpenAI's shapes (the
``"function"`` object, the ``{"tool_calls": [...]}`` list, string arguments). Committed after
that first delta. Constrained output: the closed call objects of a list that never closes are
calls.
"""

from __future__ import annotations

import re
from typing import Any

from ._calls import CallResult, read_calls
from ._callstream import CallStream
from ._jsonregion import JsonRegionParser
from ._jsonstream import JsonCallStream
from ._scan import MarkerFinder

__all__ = ["GenericJsonParser"]

FENCE = "```"
_CALL_LIKE = re.compile(r'[\[{]\s*\{?\s*"(?:name|tool|tool_name|function|tool_calls)"\s*:')
_LANG_RUN = re.compile(r"[A-Za-z0-9_+\-]*")
_WS_RUN = re.compile(r"\s*")
_MAX_LANG = 20
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input", "tool_input")


def _unwrap(value: Any) -> Any:
    """OpenAI shapes to flat ``{"name", "arguments"}`` objects."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("tool_calls"), list)
        and (set(value) <= {"tool_calls", "content", "role"})
    ):
        value = value["tool_calls"]
    if isinstance(value, list):
        return [_unwrap_one(v) for v in value]
    return _unwrap_one(value)


def _unwrap_one(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        return value["function"]
    return value


class GenericJsonParser(JsonRegionParser):
    """Streaming parser that finds JSON tool calls (or lists of them) anywhere in text."""

    format = "json"
    call_like = _CALL_LIKE
    after_marker = "lang"  # states: text | lang | fence_ws | json | close_ws

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._find = MarkerFinder(FENCE, "{", "[")
        self._close = MarkerFinder(FENCE)

    def _step(self, data: str, pos: int, final: bool) -> tuple[int, bool]:
        n = len(data)
        if self._state == "lang":  # the fence's language tag
            lang = sum(map(len, self._region)) - len(FENCE)
            limit = min(n, pos + _MAX_LANG + 1 - lang)
            end = _LANG_RUN.match(data, pos, limit).end()  # type: ignore[union-attr]
            self._region.append(data[pos:end])
            if lang + end - pos > _MAX_LANG:
                self._as_text()
            elif end >= n:
                if final:
                    self._as_text()
                return n, True
            else:
                self._state = "fence_ws"
            return end, False
        if self._state == "fence_ws":
            return self._after_prefix(data, pos, final, "{[")
        # close_ws: whitespace, then maybe the closing fence of a fenced call
        end = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
        self._region.append(data[pos:end])
        idx, marker = self._close.find(data, end, final)
        if marker is not None and idx == end:
            self._region, self._state = [], "text"
            return end + len(FENCE), False
        if (idx == end and end < n) or (end >= n and not final):
            return end, True  # a partial fence at the end, or only whitespace: wait for more
        self._as_text()
        return end, False

    def _read(self, value: Any) -> tuple[list[CallResult], str | None] | None:
        return read_calls(
            _unwrap(value),
            name_keys=_NAME_KEYS,
            arg_keys=_ARG_KEYS,
            require_args=True,
            known=self.tools,
        )

    def _after(self) -> str:
        return "close_ws" if self._prefix else "text"  # only fenced values have a prefix

    def _stream_value(self) -> CallStream | None:
        # a call is sent once its name and its arguments key are read (plain JSON with a
        # "name" is not a call); OpenAI's shape nests the call under "function"
        return JsonCallStream(
            name_keys=_NAME_KEYS,
            arg_keys=_ARG_KEYS,
            require_args=True,
            known=self.tools,
            nest_key="function",
            wrap_key="tool_calls",
        )
