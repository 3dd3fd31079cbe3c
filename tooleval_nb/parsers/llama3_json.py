"""Llama 3.1 / 3.3 JSON format: ``{"name": "f", "parameters": {...}}`` objects.

* The object may follow ``<|python_tag|>``; several calls are separated by ``;``.
* Only objects with a ``"name"`` and a ``"parameters"`` (or ``"arguments"``) key are calls; other
  JSON in the text is content. An object that starts like a call (``{"name": ...``) but is not
  valid JSON is content with the reason in ``problems``.
* ``<|python_tag|>`` not followed by a JSON object (Llama's built-in tools,
  ``brave_search.call(...)``) is kept as content.
* Streaming: a call is sent once its ``"name"`` and its ``"parameters"`` key are both read, the
  parameters object streams as written; committed after that first delta.
"""

from __future__ import annotations

import re
from typing import Any

from ._calls import CallResult, read_calls
from ._callstream import CallStream
from ._jsonregion import JsonRegionParser
from ._jsonstream import JsonCallStream
from ._scan import MarkerFinder

__all__ = ["Llama3JsonParser"]

TAG = "<|python_tag|>"
_CALL_LIKE = re.compile(r'\{\s*"name"\s*:')
_WS_RUN = re.compile(r"\s*")


class Llama3JsonParser(JsonRegionParser):
    """Streaming parser for Llama 3 JSON tool calls."""

    format = "llama3_json"
    noun = "JSON object"
    brackets = "braces"
    call_like = _CALL_LIKE
    after_marker = "tag"  # states: text | tag | json | sep

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._find = MarkerFinder(TAG, "{")

    def _step(self, data: str, pos: int, final: bool) -> tuple[int, bool]:
        if self._state == "tag":
            return self._after_prefix(data, pos, final, "{")
        # sep: whitespace and one ';' after a call
        end = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
        self._text(data[pos:end])
        if end >= len(data):
            if final:
                self._state = "text"
            return end, True
        self._state = "text"
        return end + (data[end] == ";"), False

    def _read(self, value: Any) -> tuple[list[CallResult], str | None] | None:
        return read_calls(
            value,
            allow_list=False,
            arg_keys=("parameters", "arguments"),
            require_args=True,
            known=self.tools,
        )

    def _after(self) -> str:
        return "sep"

    def _stream_value(self) -> CallStream | None:
        # sent once its "name" and its "parameters" (or "arguments") key are read
        return JsonCallStream(
            arg_keys=("parameters", "arguments"), require_args=True, known=self.tools, lists=False
        )
