"""Mistral format: ``[TOOL_CALLS]`` followed by the calls, ids of nine alphanumeric characters.

Two layouts, told apart by what follows the token:

* older tokenizers (v2, v3, Mistral-7B-Instruct-v0.3):
  ``[TOOL_CALLS] [{"name": "f", "arguments": {...}}, ...]`` (a JSON list, or one object);
* v11 and later: ``[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g{...}``, one token per call, the name
  followed by its JSON arguments; v13 writes ``[TOOL_CALLS]f[ARGS]{...}`` and some builds add
  ``[CALL_ID]abc123xyz`` before ``[ARGS]``.

Text before the token is content. A token not followed by a valid call keeps the token and the
text in the content, with the reason in ``problems``.

Streaming: in the list layout a call is sent once its ``"name"`` string has closed; in the v11
layout once the ``{`` of its arguments follows the name. The arguments stream as written. After
that first delta the call is committed: a later error keeps it (arguments closed where they
stopped) with the error in ``problems``.
"""

from __future__ import annotations

import re
from typing import Any

from ._calls import call_from_object, load_json, read_calls
from ._jsonstream import ArgsStream, JsonCallStream
from ._scan import BracketScanner, MarkerFinder
from .protocol import COMMITTED_NOTE, ToolParser

__all__ = ["MistralParser"]

TOKEN = "[TOOL_CALLS]"
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.\-]")
_NAME_RUN = re.compile(r"[A-Za-z0-9_.\-]*")
_WS_RUN = re.compile(r"\s*")
_GAP = re.compile(r"\s*(?:\[CALL_ID\]\s*[A-Za-z0-9_\-]{1,64}\s*)?(?:\[ARGS\])?\s*")
_MAX_NAME = 256
_MAX_GAP = 96


class MistralParser(ToolParser):
    """Streaming parser for ``[TOOL_CALLS]`` outputs (pre-v11 JSON lists and v11+ name{json})."""

    format = "mistral"
    id_style = "mistral"

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._state = "text"  # text | head | name | gap | json
        self._find = MarkerFinder(TOKEN)
        self._scanner: BracketScanner | None = None
        self._name: list[str] = []
        self._name_len = 0
        self._gap: list[str] = []
        self._gap_len = 0
        self._json_at = 0
        self._live_at = 0
        self._n_tokens = 0

    def _scan(self, data: str, final: bool) -> int:
        pos, n = 0, len(data)
        while True:
            state = self._state
            if state == "text":
                idx, marker = self._text_until(self._find, data, pos, final)
                if marker is None:
                    return idx
                pos = idx + len(marker)
                self._region = [TOKEN]
                self._n_tokens += 1
                self._state = "head"
            elif state == "head":
                end = _WS_RUN.match(data, pos).end()  # type: ignore[union-attr]
                self._region.append(data[pos:end])
                pos = end
                if pos >= n:
                    if final:
                        self._malformed("nothing follows it")
                    return n
                char = data[pos]
                if char in "[{":
                    self._scanner = BracketScanner(first="value")
                    self._state = "json"
                    self._live_at = sum(map(len, self._region))
                    self._live_begin(JsonCallStream())
                elif _NAME_CHAR.match(char):
                    self._name, self._name_len = [], 0
                    self._state = "name"
                else:
                    self._malformed(f"it is followed by {char!r}, not a call")
            elif state == "name":
                limit = pos + _MAX_NAME + 1 - self._name_len
                end = _NAME_RUN.match(data, pos, min(n, limit)).end()  # type: ignore[union-attr]
                piece = data[pos:end]
                self._region.append(piece)
                self._name.append(piece)
                self._name_len += len(piece)
                pos = end
                if self._name_len > _MAX_NAME:
                    self._malformed("the function name is too long")
                elif pos >= n:
                    if final:
                        self._malformed("the function name is not followed by arguments")
                    return n
                else:
                    self._gap, self._gap_len = [], 0
                    self._state = "gap"
            elif state == "gap":
                limit = min(n, pos + _MAX_GAP - self._gap_len)
                idx = data.find("{", pos, limit)
                end = limit if idx < 0 else idx
                piece = data[pos:end]
                self._region.append(piece)
                self._gap.append(piece)
                self._gap_len += len(piece)
                pos = end
                if idx >= 0:
                    if _GAP.fullmatch("".join(self._gap)):
                        self._json_at = sum(map(len, self._region))
                        self._scanner = BracketScanner(first="value")
                        self._state = "json"
                        self._live_at = self._json_at
                        self._live_begin(ArgsStream("".join(self._name)))
                    else:
                        self._malformed("the function name is not followed by its arguments")
                elif self._gap_len >= _MAX_GAP or final:
                    self._malformed("the function name is not followed by its arguments")
                else:
                    return n
            else:  # json
                assert self._scanner is not None
                before = pos
                pos, status = self._scanner.follow(self._region, data, pos, final)
                self._live_feed(data[before:pos])
                if status is None:
                    return pos
                if status == "more":
                    self._malformed("its JSON is not closed")
                elif status == "abort":
                    self._malformed("it is not followed by a JSON value")
                elif status == "mismatch":
                    self._malformed("its JSON brackets do not match")
                else:
                    self._end_json()

    def _end_json(self) -> None:
        raw = "".join(self._region)
        committed, _ = self._live_end(True, self._label(), raw[self._live_at :])
        if committed:
            self._done()
            return None
        if self._name:
            name = "".join(self._name)
            value, problem = load_json(raw[self._json_at :])
            if problem:
                return self._malformed(f"the arguments of {name!r} are {problem}")
            result = call_from_object({"name": name, "arguments": value})
            if result is None or result.problem:
                reason = result.problem if result else "unusable"
                return self._malformed(f"the call of {name!r} is malformed: {reason}")
            self._done()
            self._call(result.name, result.arguments)
            return None
        value, problem = load_json(raw[len(TOKEN) :])
        if problem:
            return self._malformed(problem)
        found = read_calls(value, known=self.tools)
        if found is None or not found[0]:
            return self._malformed((found[1] if found else None) or "its JSON is not a tool call")
        self._done()
        for call in found[0]:
            self._call(call.name, call.arguments)
        return None

    def _label(self) -> str:
        return f"[TOOL_CALLS] token {self._n_tokens}"

    def _malformed(self, reason: str) -> None:
        if self._live is not None:
            raw = "".join(self._region)
            committed, live = self._live_end(False, self._label(), raw[self._live_at :])
            if committed:
                if live is not None and live.error is None:
                    self._problem(f"{self._label()} {COMMITTED_NOTE} ({reason})")
                self._done()
                return
        self._problem(
            f"[TOOL_CALLS] token {self._n_tokens} is malformed: {reason}; kept as content"
        )
        self._text("".join(self._region))
        self._done()

    def _done(self) -> None:
        self._region, self._scanner = [], None
        self._name, self._name_len, self._gap, self._gap_len = [], 0, [], 0
        self._state = "text"
