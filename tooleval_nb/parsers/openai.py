"""OpenAI harmony format (gpt-oss), as the raw completion text shows it.

A message is ``[<|start|>ROLE] [<|channel|>CHANNEL [to=RECIPIENT]] [<|constrain|>TYPE]
<|message|>BODY`` ended by ``<|end|>``, ``<|call|>`` or ``<|return|>``::

    <|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary
    to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>

* A completion as served starts inside an assistant header: vLLM ends the prompt with
  ``<|start|>assistant``, so the reply begins with ``<|channel|>...``, ``<|message|>...`` or a
  recipient (`` to=functions.get_weather<|channel|>commentary json<|message|>{...}<|call|>``).
  Each of these is read as the first message's header; plain text is still plain text.
* A message with a recipient (``to=functions.NAME``, ``to=NAME`` or a dotted ``to=math.sum``,
  in the channel or the role part of the header) is a tool call, on any channel (commentary or
  analysis), with or without the `` json`` / ``<|constrain|>json`` content type; ``functions.``
  is dropped from the name, other recipients (``browser.search``) are kept whole. Its body is
  the JSON arguments (empty means ``{}``). Several calls follow one another, each in its own
  message.
* ``analysis`` bodies are reasoning; ``final`` and ``commentary`` (preambles) bodies are content.
  Content and reasoning stream as they arrive; a call is emitted when its body ends.
* Text outside messages is content, except whitespace between messages and stray end tokens,
  which are dropped; text with no harmony token at all is returned as is.
* A call whose body is not a JSON object stays in the content, tokens included, with the reason
  in ``problems``; an unterminated last call is parsed as far as it is valid.
* Streaming: a call is sent at the ``<|message|>`` after its header (the recipient is certain
  then), its JSON body streams as written. Committed after that first delta: a later error keeps
  the call (arguments closed where they stopped) with the error in ``problems``.
"""

from __future__ import annotations

import re
from typing import Any

from ._calls import dump_arguments, jsonable, load_json
from ._jsonstream import ArgsStream
from ._scan import MarkerFinder
from .protocol import ToolParser

__all__ = ["HarmonyParser"]

START, CHANNEL, CONSTRAIN, MESSAGE = "<|start|>", "<|channel|>", "<|constrain|>", "<|message|>"
END, CALL, RETURN = "<|end|>", "<|call|>", "<|return|>"
_ENDS = (END, CALL, RETURN)
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*([^\s<]+)")
_MAX_HEADER = 1024
_MAX_LEAD = 64
_TO = "to="
_WS_RUN = re.compile(r"\s*")


class HarmonyParser(ToolParser):
    """Streaming parser for harmony-format completions (``openai`` format)."""

    format = "openai"

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._state = "lead"  # lead | text | header | body
        self._in_text = MarkerFinder(START, CHANNEL, MESSAGE, *_ENDS)
        self._in_header = MarkerFinder(MESSAGE, START, *_ENDS)
        self._in_body = MarkerFinder(*_ENDS, START, CHANNEL)
        self._seen = False  # a harmony token was seen
        self._ws: list[str] = []  # whitespace at the start of the current text segment
        self._solid = False  # the current text segment holds non-whitespace
        self._header: list[str] = []
        self._header_len = 0
        self._kind = "content"  # content | reasoning | call
        self._name = ""
        self._n_messages = 0

    def _scan(self, data: str, final: bool) -> int:
        pos, n = 0, len(data)
        while True:
            state = self._state
            if state == "lead":  # the reply may start inside the header: " to=functions.f<|..."
                start = _WS_RUN.match(data, pos, min(n, pos + _MAX_LEAD)).end()  # type: ignore[union-attr]
                rest = data[start : start + len(_TO)]
                if rest == _TO:
                    self._header, self._header_len = [data[pos:start]], start - pos
                    self._state = "header"
                    pos = start
                elif not final and start - pos < _MAX_LEAD and _TO.startswith(rest):
                    return pos  # only whitespace, "t" or "to" so far: wait
                else:
                    self._state = "text"
            elif state == "text":
                idx, marker = self._in_text.find(data, pos, final)
                self._segment(data[pos:idx])
                if marker is None:
                    if final:
                        self._end_segment(at_token=False)
                    return idx
                self._end_segment(at_token=True)
                self._seen = True
                pos = idx + len(marker)
                if marker in _ENDS:
                    continue  # a stray end token: dropped
                self._header, self._header_len = [marker], len(marker)
                self._state = "header"
                if marker == MESSAGE:
                    self._open_body()
            elif state == "header":
                limit = min(n, pos + _MAX_HEADER + 1 - self._header_len)
                idx, marker = self._in_header.find(data, pos, final or limit < n, limit)
                self._header.append(data[pos:idx])
                self._header_len += idx - pos
                pos = idx
                if marker == MESSAGE:
                    self._header.append(MESSAGE)
                    pos += len(MESSAGE)
                    self._open_body()
                elif marker is not None or self._header_len > _MAX_HEADER or final:
                    self._problem(
                        f"harmony message {self._n_messages + 1} has no "
                        f"{MESSAGE} after its header; kept as content"
                    )
                    self._text("".join(self._header))
                    self._state = "text"
                else:
                    return idx
            else:  # body
                idx, marker = self._in_body.find(data, pos, final)
                piece = data[pos:idx]
                if self._kind == "call":
                    self._region.append(piece)
                    self._live_feed(piece)
                elif self._kind == "reasoning":
                    self._think(piece)
                else:
                    self._text(piece)
                pos = idx
                if marker is None:
                    if final:
                        self._close_body("")
                    return idx
                if marker in _ENDS:
                    pos += len(marker)
                    self._close_body(marker)
                else:  # a new message starts without an end token
                    self._close_body("")

    # ---------------------------------------------------------------- text between messages
    def _segment(self, text: str) -> None:
        if not text:
            return
        if self._solid:
            self._text(text)
        elif text.isspace():
            self._ws.append(text)
        else:
            self._solid = True
            self._text("".join(self._ws) + text)
            self._ws = []

    def _end_segment(self, *, at_token: bool) -> None:
        if not self._solid and self._ws and not at_token and not self._seen:
            self._text("".join(self._ws))  # plain text with no harmony at all: keep it as is
        self._ws, self._solid = [], False

    # ---------------------------------------------------------------- messages
    def _open_body(self) -> None:
        header = "".join(self._header)
        self._n_messages += 1
        self._state = "body"
        self._region = []
        recipient = _RECIPIENT.search(header)
        channel = _CHANNEL.search(header)
        if recipient:
            name = recipient.group(1)
            self._name = name[len("functions.") :] if name.startswith("functions.") else name
            self._kind = "call"
            if self._name:
                self._live_begin(ArgsStream(self._name, lenient=False))
        elif channel and channel.group(1) == "analysis":
            self._kind = "reasoning"
        else:
            self._kind = "content"

    def _close_body(self, end: str) -> None:
        self._state = "text"
        if self._kind != "call":
            return
        body = "".join(self._region)
        self._region = []
        label = f"harmony message {self._n_messages} (to={self._name})"
        committed, _ = self._live_end(True, label, body)
        if committed:
            if end != CALL:
                self._problem(f"{label} is not ended by {CALL}; parsed as far as it is valid")
            return
        raw = "".join(self._header) + body + end
        problem = None
        value: Any = {}
        if body.strip():
            value, problem = load_json(body)
            if problem is None and not isinstance(value, dict):
                problem = f"its body is a JSON {type(value).__name__}, not an object"
            if problem is None:
                value, problem = jsonable(value)
        if problem is None and not self._name:
            problem = "it has an empty recipient"
        if problem:
            self._problem(f"{label} is a malformed tool call: {problem}; kept as content")
            self._text(raw)
            return
        if end != CALL:
            self._problem(f"{label} is not ended by {CALL}; parsed as far as it is valid")
        self._call(self._name, dump_arguments(value))
