"""Formats whose calls are JSON objects inside tags or after a marker (one table entry each).

Every call is ``{"name": ..., "arguments": {...}}`` (``"parameters"`` is accepted for the
arguments); what differs is how the JSON is marked. All share the rules of
:class:`~._tagged.TaggedParser`: text around the calls is content (vLLM keeps the text before
the first call and drops what follows the calls; we keep both, so nothing the model wrote is
lost); a marked region that does not hold valid calls stays in the content, markers included,
with the reason in ``problems``; the last region may be unclosed; braces inside strings and
nested objects are read by the JSON decoder.

Streaming (:func:`json_stream`): a call is sent at the closing quote of its ``"name"`` string,
its arguments object streams as written; after that first delta the call is committed (a later
error keeps it, arguments closed where they stopped, with the error in ``problems``). A JSON
list that never closes keeps its closed call objects (constrained output).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._calls import read_calls, read_json_values
from ._callstream import CallStream
from ._jsonstream import JsonCallStream
from ._tagged import BodyReader, Found, Region, StreamFactory, TaggedParser
from .protocol import ToolSchemas

__all__ = [
    "json_calls",
    "json_stream",
    "Granite4Parser",
    "LongcatParser",
    "Ernie45Parser",
    "JambaParser",
    "HunyuanA13BParser",
    "MinimaxParser",
    "InternLMParser",
    "GraniteParser",
    "Granite20bFCParser",
    "Phi4MiniJsonParser",
    "XLAMParser",
    "GigaChat3Parser",
]

_ARG_KEYS = ("arguments", "parameters")


def json_calls(
    *, many: bool = True, arg_keys: Sequence[str] = _ARG_KEYS, fence: bool = False
) -> BodyReader:
    """A body reader for JSON calls: one object, a list of them, or (``many``) several objects
    separated by whitespace, ``;`` or ``,``; with ``fence`` a leading language tag (``json``)
    is skipped."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        text = body.strip()
        if fence:
            text = (
                re.sub(r"\A[A-Za-z0-9_+\-]*\s*", "", text, count=1) if text[:1].isalpha() else text
            )
        values, problem = read_json_values(text, many=many)
        if problem:
            return [], problem
        known = None if schemas is None else {name: list(p) for name, p in schemas.items()}
        calls = []
        for k, value in enumerate(values):
            found = read_calls(value, arg_keys=arg_keys, known=known)
            if found is None:
                return None if len(values) == 1 else ([], f"JSON value {k} is not a tool call")
            if not found[0]:
                return found
            calls.extend(found[0])
        return calls, None

    return read


def json_stream(
    *, many: bool = True, arg_keys: Sequence[str] = _ARG_KEYS, fence: bool = False
) -> StreamFactory:
    """The call stream of :func:`json_calls` bodies: a call is sent once its ``"name"`` string
    closed, its arguments object streams as it is written (see :mod:`._jsonstream`); with
    ``fence`` a leading language tag is skipped, as :func:`json_calls` skips it."""

    def make(schemas: ToolSchemas | None) -> CallStream:
        return JsonCallStream(arg_keys=arg_keys, many=many, fence=fence)

    return make


JSON = json_calls()
ONE = json_calls(many=False)
STREAM = json_stream()
STREAM_ONE = json_stream(many=False)
#: a body that starts like a JSON call, for regions that may hold other text
_CALL_LIKE = re.compile(r'\s*(?:json\s*)?[\[{]\s*\{?\s*"name"\s*:')


class Granite4Parser(TaggedParser):
    """``granite4`` (IBM Granite 4.0): ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
    blocks, one call each, several per reply."""

    format = "granite4"
    regions = (Region("<tool_call>", JSON, stream=STREAM, end="</tool_call>"),)


class LongcatParser(TaggedParser):
    """``longcat`` (LongCat-Flash-Chat): ``<longcat_tool_call>{json}</longcat_tool_call>``
    blocks, one call each."""

    format = "longcat"
    regions = (Region("<longcat_tool_call>", JSON, stream=STREAM, end="</longcat_tool_call>"),)


class Ernie45Parser(TaggedParser):
    """``ernie45`` (ERNIE 4.5): ``<tool_call>{json}</tool_call>`` blocks.

    Reasoning (``</think>``) is a reasoning parser's business and is left in the content;
    ``<response>`` / ``</response>`` wrappers are dropped."""

    format = "ernie45"
    regions = (Region("<tool_call>", JSON, stream=STREAM, end="</tool_call>"),)
    drop = ("<response>", "</response>")


class JambaParser(TaggedParser):
    """``jamba`` (AI21 Jamba 1.5): ``<tool_calls>[{json}, ...]</tool_calls>``, one list."""

    format = "jamba"
    regions = (Region("<tool_calls>", JSON, stream=STREAM, end="</tool_calls>"),)


class HunyuanA13BParser(TaggedParser):
    """``hunyuan_a13b`` (Hunyuan-A13B): ``<tool_calls>[{json}, ...]</tool_calls>``.

    The ``助手：`` ("assistant:") role prefix the model may write at the start of its reply is
    dropped there (only there). ``<think>`` / ``<answer>`` sections are left to the reasoning
    parser and stay in the content."""

    format = "hunyuan_a13b"
    regions = (Region("<tool_calls>", JSON, stream=STREAM, end="</tool_calls>"),)
    lead = "助手："


class MinimaxParser(TaggedParser):
    """``minimax`` (MiniMax-M1): ``<tool_calls>`` then one ``{json}`` call per line, then
    ``</tool_calls>``."""

    format = "minimax"
    regions = (Region("<tool_calls>", JSON, stream=STREAM, end="</tool_calls>"),)


class InternLMParser(TaggedParser):
    """``internlm`` (InternLM 2.5): ``<|action_start|><|plugin|>`` then
    ``{"name": ..., "parameters": {...}}`` then ``<|action_end|>``, one call per block."""

    format = "internlm"
    regions = (Region("<|action_start|><|plugin|>", ONE, stream=STREAM_ONE, end="<|action_end|>"),)


class GraniteParser(TaggedParser):
    """``granite`` (Granite 3.0 / 3.1): ``<|tool_call|>`` (3.0) or ``<tool_call>`` (3.1)
    followed by a JSON list of calls, with no closing token: the list ends the region.

    vLLM also reads a bare list at the very start of the reply; we read only marked lists."""

    format = "granite"
    regions = (
        Region("<|tool_call|>", JSON, openers="[", stream=STREAM),
        Region("<tool_call>", JSON, openers="[", stream=STREAM),
    )


class Granite20bFCParser(TaggedParser):
    """``granite-20b-fc`` (granite-20b-functioncalling): each call is ``<function_call>``
    followed by one JSON object, with no closing token."""

    format = "granite-20b-fc"
    regions = (Region("<function_call>", ONE, openers="{", stream=STREAM_ONE),)


class Phi4MiniJsonParser(TaggedParser):
    """``phi4_mini_json`` (Phi-4-mini): ``functools`` followed by a JSON list of calls."""

    format = "phi4_mini_json"
    regions = (Region("functools", JSON, openers="[", stream=STREAM),)


class XLAMParser(TaggedParser):
    """``xlam`` (Salesforce xLAM): a JSON list of calls, bare or marked.

    Read: a bare ``[{"name": ...}]`` list anywhere in the text, a ```` ```json ```` fence,
    ``[TOOL_CALLS]`` followed by a list, or ``<tool_call>...</tool_call>``. Bare lists and fences
    that are not calls are plain content (a problem is noted only when they start like a call,
    ``[{"name": ...``). ``<think>`` text is left to the reasoning parser (content)."""

    format = "xlam"
    regions = (
        Region("<tool_call>", JSON, stream=STREAM, end="</tool_call>"),
        Region("[TOOL_CALLS]", JSON, openers="[", stream=STREAM),
        Region(
            "```",
            json_calls(fence=True),
            end="```",
            call_like=_CALL_LIKE,
            stream=json_stream(fence=True),
        ),
        Region("[", JSON, bare=True, call_like=_CALL_LIKE, stream=STREAM),
    )


class GigaChat3Parser(TaggedParser):
    """``gigachat3`` (GigaChat 3): ``function call<|role_sep|>`` (or ``<|function_call|>``)
    followed by one JSON object ``{"name": ..., "arguments": {...}}``.

    The ``<|message_sep|>`` separator before the call is dropped; the text before it is
    content."""

    format = "gigachat3"
    regions = (
        Region("function call<|role_sep|>", ONE, openers="{", stream=STREAM_ONE),
        Region("<|function_call|>", ONE, openers="{", stream=STREAM_ONE),
    )
    drop = ("<|message_sep|>",)
