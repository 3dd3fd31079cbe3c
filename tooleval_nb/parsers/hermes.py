"""Hermes / Qwen format: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks.

* Several blocks per message; the text around them is content.
* ``<scratch_pad>...</scratch_pad>`` (Hermes 2 Pro's planning notes) and ``<think>...</think>``
  (Qwen3's reasoning, split out as vLLM's ``qwen3`` reasoning parser does) are reasoning, not
  content, and a ``<tool_call>`` written inside them is not a call.
* A block holds one JSON object (``"arguments"`` or ``"parameters"``), or a JSON list of them; a
  Python-literal dict (single quotes, ``True``) is accepted with a note in ``problems``.
* The final block may be left unclosed (generation stopped at the end-of-turn token): it is
  parsed as far as it is valid, its first JSON value is the call and any text after it is
  content.
* A malformed block stays in the content, tags included, with the reason in ``problems``.
* Streaming: a call is sent once its ``"name"`` string has closed; its arguments object streams
  as written (re-written as ``json.dumps`` writes it). Committed after that first delta: a later
  error keeps the call, its arguments closed where they stopped, with the error in ``problems``.
"""

from __future__ import annotations

from typing import Any

from ._calls import decode_prefix, load_json, load_literal, read_calls
from ._jsonstream import JsonCallStream
from ._scan import MarkerFinder
from .protocol import ToolParser

__all__ = ["HermesParser"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
PAD_OPEN, PAD_CLOSE = "<scratch_pad>", "</scratch_pad>"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


class HermesParser(ToolParser):
    """Streaming parser for ``<tool_call>`` blocks (Hermes 2 Pro, Qwen 2.5/3, SmolLM2 prompts)."""

    format = "hermes"

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._state = "text"
        self._n_blocks = 0
        self._in_text = MarkerFinder(OPEN, PAD_OPEN, THINK_OPEN)
        self._in_call = MarkerFinder(CLOSE)
        self._pads = {PAD_OPEN: MarkerFinder(PAD_CLOSE), THINK_OPEN: MarkerFinder(THINK_CLOSE)}
        self._pad = PAD_OPEN

    def _scan(self, data: str, final: bool) -> int:
        pos, n = 0, len(data)
        while True:
            if self._state == "text":
                idx, marker = self._text_until(self._in_text, data, pos, final)
                if marker is None:
                    return idx
                pos = idx + len(marker)
                if marker == OPEN:
                    self._state = "call"
                    self._region = [OPEN]
                    self._live_begin(JsonCallStream())
                else:
                    self._state, self._pad = "pad", marker
            elif self._state == "call":
                idx, marker = self._in_call.find(data, pos, final)
                self._region.append(data[pos:idx])
                self._live_feed(data[pos:idx])
                if marker is None:
                    if final:
                        self._end_block(closed=False)
                        return n
                    return idx
                self._region.append(CLOSE)
                self._end_block(closed=True)
                pos = idx + len(marker)
                self._state = "text"
            else:  # scratch pad
                idx, marker = self._pads[self._pad].find(data, pos, final)
                self._think(data[pos:idx])
                if marker is None:
                    if final:
                        self._problem(
                            f"the {self._pad} is not closed; its text is kept as reasoning"
                        )
                    return idx
                pos = idx + len(marker)
                self._state = "text"

    def _end_block(self, *, closed: bool) -> None:
        raw = "".join(self._region)
        self._region = []
        self._n_blocks += 1
        label = f"<tool_call> block {self._n_blocks}"
        body = raw[len(OPEN) : -len(CLOSE)] if closed else raw[len(OPEN) :]
        committed, live = self._live_end(closed, label, body)
        if committed:
            if not closed and live is not None and live.error is None:
                self._problem(f"{label} is not closed by {CLOSE}; parsed as far as it is valid")
            return
        stripped = body.strip()
        if not stripped:
            self._problem(f"{label} is empty; kept as content")
            self._text(raw)
            return
        rest = ""
        if closed:
            value, problem = load_json(stripped)
        else:
            start = len(body) - len(body.lstrip())
            value, end, problem = decode_prefix(body, start)
            rest = body[end:]
        if problem:
            literal, literal_problem = load_literal(stripped if closed else body)
            if literal_problem is None:
                value, problem, rest = literal, None, ""
                self._problem(f"{label} is not JSON; it was read as a Python literal")
        if problem:
            self._problem(f"{label} is malformed: {problem}; kept as content")
            self._text(raw)
            return
        found = read_calls(value, known=self.tools)
        if found is None or not found[0]:
            reason = found[1] if found else "it is not a tool call object"
            self._problem(f"{label} is malformed: {reason}; kept as content")
            self._text(raw)
            return
        if not closed:
            self._problem(f"{label} is not closed by {CLOSE}; parsed as far as it is valid")
        for call in found[0]:
            self._call(call.name, call.arguments)
        self._text(rest)
